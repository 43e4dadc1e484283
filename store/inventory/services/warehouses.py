"""Warehouses: the default one (always present), creating, changing, making the default,
activating and deactivating, deleting.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from store.catalog.rules import base_slug, unique_value
from store.common.errors import invalid_params, rule_broken
from store.inventory.models import StockLevel, Warehouse
from store.inventory.services._ledger import _lock_products, _warehouse_for_update
from store.inventory.services.refresh import stock_fields_refresh

DEFAULT_WAREHOUSE_NAME = "Main warehouse"
DEFAULT_WAREHOUSE_CODE = "main"


def default_warehouse() -> Warehouse:
    """The default warehouse; created when missing (a fresh or flushed database)."""
    found = Warehouse.objects.filter(is_default=True).first()
    if found is not None:
        return found
    code = unique_value(
        DEFAULT_WAREHOUSE_CODE, lambda v: Warehouse.objects.filter(code=v).exists(), limit=64
    )
    try:
        with transaction.atomic():
            return Warehouse.objects.create(
                name=DEFAULT_WAREHOUSE_NAME, code=code, is_default=True, is_active=True
            )
    except IntegrityError:  # another transaction made it first
        return Warehouse.objects.get(is_default=True)


def warehouse_ensure_default_on_migrate(sender, using="default", **kwargs) -> None:
    """post_migrate (also after a test flush): the default warehouse is always present."""
    if getattr(sender, "label", None) == "store_inventory":
        default_warehouse()


WAREHOUSE_FIELDS = ("name", "code", "priority", "address", "city", "postcode", "country")


@transaction.atomic
def warehouse_create(*, fields: dict) -> Warehouse:
    problems = {}
    if not fields.get("name"):
        problems["name"] = ["A warehouse needs a name."]
    code = fields.get("code")
    if code and Warehouse.objects.filter(code=code).exists():
        problems["code"] = [f"Code {code!r} is already used."]
    if problems:
        raise invalid_params(problems)
    warehouse = Warehouse(is_active=fields.get("is_active", True))
    for name in WAREHOUSE_FIELDS:
        if name in fields:
            setattr(warehouse, name, fields[name])
    if not warehouse.code:
        warehouse.code = unique_value(
            base_slug(warehouse.name, "warehouse")[:60],
            lambda v: Warehouse.objects.filter(code=v).exists(),
            limit=64,
        )
    warehouse.save()
    return warehouse


@transaction.atomic
def warehouse_update(*, warehouse_id: int, fields: dict) -> Warehouse:
    warehouse = _warehouse_for_update(warehouse_id)
    code = fields.get("code")
    if code and Warehouse.objects.filter(code=code).exclude(pk=warehouse.pk).exists():
        raise invalid_params({"code": [f"Code {code!r} is already used."]})
    for name in WAREHOUSE_FIELDS:
        if name in fields:
            setattr(warehouse, name, fields[name])
    warehouse.save()
    if "is_active" in fields and fields["is_active"] != warehouse.is_active:
        warehouse_set_active(warehouse_id=warehouse.pk, active=fields["is_active"])
        warehouse.refresh_from_db()
    return warehouse


@transaction.atomic
def warehouse_set_default(*, warehouse_id: int) -> Warehouse:
    """Make an active warehouse the default (the old default stays, as an ordinary one)."""
    warehouse = _warehouse_for_update(warehouse_id)
    if warehouse.is_default:
        return warehouse
    if not warehouse.is_active:
        raise rule_broken(
            "Activate the warehouse before making it the default.", code="warehouse_inactive"
        )
    Warehouse.objects.select_for_update().filter(is_default=True).update(is_default=False)
    Warehouse.objects.filter(pk=warehouse.pk).update(is_default=True)
    warehouse.is_default = True
    return warehouse


@transaction.atomic
def warehouse_set_active(*, warehouse_id: int, active: bool) -> Warehouse:
    """Activate or deactivate; stock in inactive warehouses stops counting as for sale."""
    warehouse = _warehouse_for_update(warehouse_id)
    if warehouse.is_active == active:
        return warehouse
    if not active and warehouse.is_default:
        raise rule_broken(
            "The default warehouse cannot be deactivated; make another one the default first.",
            code="default_warehouse",
        )
    product_ids = sorted(
        set(StockLevel.objects.filter(warehouse=warehouse).values_list("product_id", flat=True))
    )
    _lock_products(product_ids)
    Warehouse.objects.filter(pk=warehouse.pk).update(is_active=active, updated_at=timezone.now())
    warehouse.is_active = active
    stock_fields_refresh(product_ids=product_ids)
    return warehouse


@transaction.atomic
def warehouse_delete(*, warehouse_id: int) -> None:
    """Delete a warehouse that never held stock; others are deactivated instead."""
    warehouse = _warehouse_for_update(warehouse_id)
    if warehouse.is_default:
        raise rule_broken(
            "The default warehouse cannot be deleted; make another one the default first.",
            code="default_warehouse",
        )
    if warehouse.levels.exists() or warehouse.movements.exists():
        raise rule_broken(
            "This warehouse has stock or stock history; deactivate it instead.",
            code="warehouse_in_use",
            status=409,
        )
    warehouse.delete()


@transaction.atomic
def warehouse_deactivate(*, warehouse_id: int) -> Warehouse:
    """Deactivate a warehouse that holds no stock (409 `warehouse_has_stock` while any of its
    levels is not zero: move it out first); the default one never (400 `default_warehouse`)."""
    warehouse = _warehouse_for_update(warehouse_id)
    if warehouse.is_active and not warehouse.is_default:
        held = warehouse.levels.exclude(quantity=0).count()
        if held:
            raise rule_broken(
                f"Warehouse {warehouse.name!r} holds stock of {held} item(s); transfer or "
                "adjust it to zero before deactivating.",
                code="warehouse_has_stock",
                status=409,
            )
    return warehouse_set_active(warehouse_id=warehouse.pk, active=False)
