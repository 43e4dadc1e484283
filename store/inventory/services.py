"""Every change of stock, in one place.

Each public function runs in one transaction that locks what it changes in a fixed order —
the products concerned (by pk), then their stock levels (by pk) — so two writers never
deadlock and never both take the last unit. Each change of a level writes its StockMovement
(the ledger) and, before the transaction ends, the `stock_quantity` and `stock_status` of the
products and variants concerned are recomputed from the levels (`stock_fields_refresh`).

Callers that lock rows of their own (an order) lock them before calling in, so the order of
locks is always: the caller's row, products, levels.
"""

from __future__ import annotations

import logging
import uuid
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from django.db import IntegrityError, transaction
from django.db.models import Case, F, IntegerField, Q, Sum, Value, When
from django.utils import timezone

from common.errors import Conflict
from common.events import STORE as STORE_EVENT
from common.events import DomainEvent, publish_many
from store.catalog import cache as catalog_cache
from store.catalog.cache import invalidate as invalidate_catalog
from store.catalog.choices import ProductStatus, ProductType, StockStatus
from store.catalog.models import Product, Variant
from store.catalog.rules import (
    base_slug,
    combine_stock_status,
    derive_stock_status,
    unique_value,
)
from store.common.accounts import logged_in
from store.common.errors import invalid_params, not_found, rule_broken
from store.inventory.choices import AdjustmentReason, MovementReason
from store.inventory.models import StockLevel, StockMovement, Warehouse
from store.settings import selectors as store_settings

logger = logging.getLogger(__name__)

DEFAULT_WAREHOUSE_NAME = "Main warehouse"
DEFAULT_WAREHOUSE_CODE = "main"


# --- Warehouses ----------------------------------------------------------------------------------


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


def _warehouse_for_update(warehouse_id: int) -> Warehouse:
    warehouse = Warehouse.objects.select_for_update().filter(pk=warehouse_id).first()
    if warehouse is None:
        raise not_found("warehouse", warehouse_id)
    return warehouse


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


# --- Locks and levels ----------------------------------------------------------------------------


def _lock_products(product_ids: Iterable[int]) -> list[int]:
    """Lock product rows in pk order (a product's row is the lock of its variants' stock)."""
    ids = sorted(set(product_ids))
    if not ids:
        return []
    return list(
        Product.objects.select_for_update()
        .filter(pk__in=ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def stock_lock(*, product_ids: Iterable[int]) -> list[int]:
    """Lock the products (pk order) before several stock changes in one transaction.

    A caller about to give back one set of items and take another (a checkout's hold turning
    into an order) locks the union first, so its locks follow the global pk order too.
    """
    return _lock_products(product_ids)


def _item_filter(pairs: Iterable[tuple[int, int | None]]) -> Q:
    query = Q(pk__in=[])
    for product_id, variant_id in pairs:
        if variant_id is None:
            query |= Q(product_id=product_id, variant__isnull=True)
        else:
            query |= Q(variant_id=variant_id)
    return query


def _lock_levels(query: Q) -> list[StockLevel]:
    """Lock levels in pk order (their warehouse is read along, not locked)."""
    return list(
        StockLevel.objects.select_for_update(of=("self",))
        .filter(query)
        .select_related("warehouse")
        .order_by("pk")
    )


def _level(warehouse: Warehouse, product_id: int, variant_id: int | None) -> StockLevel:
    """The level of an item in a warehouse, created at zero (the caller holds the product lock)."""
    level, _created = StockLevel.objects.get_or_create(
        warehouse=warehouse, product_id=product_id, variant_id=variant_id
    )
    level.warehouse = warehouse
    return level


def _sku(product_id: int, variant_id: int | None) -> str:
    if variant_id is not None:
        return Variant.objects.filter(pk=variant_id).values_list("sku", flat=True).first() or ""
    return Product.objects.filter(pk=product_id).values_list("sku", flat=True).first() or ""


def _skus(levels: Iterable[StockLevel]) -> dict[int, str]:
    """{level id: SKU of its item} in two queries."""
    levels = list(levels)
    products = dict(
        Product.objects.filter(pk__in={lv.product_id for lv in levels}).values_list("pk", "sku")
    )
    variants = dict(
        Variant.objects.filter(
            pk__in={lv.variant_id for lv in levels if lv.variant_id}
        ).values_list("pk", "sku")
    )
    return {
        lv.pk: (
            variants.get(lv.variant_id, "") if lv.variant_id else products.get(lv.product_id, "")
        )
        for lv in levels
    }


@dataclass(frozen=True)
class Reference:
    """What caused a change: `type` and `id` (an order: "order", "42"), who, and a note."""

    type: str = ""
    id: str = ""
    actor: object = None
    note: str = ""


@dataclass
class _Posting:
    level: StockLevel
    delta: int
    key: str
    line: int | None = None
    sku: str = ""


def _post(
    level: StockLevel,
    delta: int,
    *,
    reason: str,
    reference: Reference,
    key: str,
    line: int | None = None,
    sku: str = "",
) -> StockMovement:
    """Change one locked level by `delta` and write its movement."""
    return _post_many([_Posting(level, delta, key, line, sku)], reason=reason, reference=reference)[
        0
    ]


def _post_many(
    postings: list[_Posting], *, reason: str, reference: Reference
) -> list[StockMovement]:
    """Change locked levels and write their movements in two statements whatever their number:
    one UPDATE of the levels (`quantity + CASE ...`, an F() expression) and one INSERT of the
    movements. A level posted twice adds both deltas, each movement with its own
    `quantity_after`."""
    if not postings:
        return []
    deltas: dict[int, int] = defaultdict(int)
    for posting in postings:
        deltas[posting.level.pk] += posting.delta
    change = Case(
        *(When(pk=pk, then=Value(delta)) for pk, delta in deltas.items()),
        default=Value(0),
        output_field=IntegerField(),
    )
    StockLevel.objects.filter(pk__in=list(deltas)).update(
        quantity=F("quantity") + change, updated_at=timezone.now()
    )
    actor = logged_in(reference.actor)
    rows = []
    for posting in postings:
        level = posting.level
        level.quantity += posting.delta
        rows.append(
            StockMovement(
                level=level,
                warehouse_id=level.warehouse_id,
                product_id=level.product_id,
                variant_id=level.variant_id,
                sku=posting.sku[:64],
                quantity=posting.delta,
                quantity_after=level.quantity,
                reason=reason,
                reference_type=reference.type,
                reference_id=str(reference.id),
                reference_line=posting.line,
                note=reference.note[:255],
                idempotency_key=posting.key,
                actor=actor,
            )
        )
    try:
        with transaction.atomic():
            return StockMovement.objects.bulk_create(rows)
    except IntegrityError:
        keys = ", ".join(repr(posting.key) for posting in postings)
        raise Conflict(
            f"The stock change {keys} was already made.", code="duplicate_stock_movement"
        ) from None


# --- Derived fields ------------------------------------------------------------------------------


@dataclass
class Refreshed:
    """The stock fields after a refresh: {product id: (quantity, status)}, the same for variants."""

    products: dict[int, tuple[int, str]] = field(default_factory=dict)
    variants: dict[int, tuple[int, str]] = field(default_factory=dict)


def stock_fields_refresh(*, product_ids: Iterable[int]) -> Refreshed:
    """Recompute `stock_quantity` and `stock_status` of products and their variants.

    Quantity: the sum of the item's levels in active warehouses. Status: with tracked
    inventory, in stock above zero, else on backorder when allowed, else out of stock; without
    tracking, the status set by hand. A variable product with enabled variants takes the best
    status of those variants and, when any of them is tracked, the sum of their quantities
    (backordered ones count as zero).
    """
    ids = sorted(set(product_ids))
    out = Refreshed()
    if not ids:
        return out
    totals = {
        (row["product_id"], row["variant_id"]): row["total"]
        for row in StockLevel.objects.filter(product_id__in=ids, warehouse__is_active=True)
        .values("product_id", "variant_id")
        .annotate(total=Sum("quantity"))
        .order_by()
    }
    fields = ("pk", "track_inventory", "allow_backorders", "stock_status", "stock_quantity")
    variants_of: dict[int, list[tuple[bool, bool, int, str]]] = defaultdict(list)
    changed: dict[int, set[str]] = defaultdict(set)
    variant_rows: list[Variant] = []
    product_rows: list[Product] = []
    low = _LowStock()
    for row in Variant.objects.filter(product_id__in=ids).values(
        *fields, "product_id", "enabled", "sku", "title"
    ):
        quantity = totals.get((row["product_id"], row["pk"]), 0)
        if row["enabled"]:
            low.note(row, quantity, product_id=row["product_id"], variant_id=row["pk"])
        status = derive_stock_status(
            track=row["track_inventory"],
            quantity=quantity,
            backorders=row["allow_backorders"],
            manual=row["stock_status"],
        )
        if (quantity, status) != (row["stock_quantity"], row["stock_status"]):
            variant_rows.append(Variant(pk=row["pk"], stock_quantity=quantity, stock_status=status))
            _note_change(changed, row["product_id"], row, quantity, status)
        out.variants[row["pk"]] = (quantity, status)
        if row["enabled"]:
            variants_of[row["product_id"]].append(
                (row["track_inventory"], row["allow_backorders"], quantity, status)
            )
    for row in Product.objects.filter(pk__in=ids).values(
        *fields, "type", "status", "sku", "title", "low_stock_threshold"
    ):
        low.products[row["pk"]] = row
        quantity = totals.get((row["pk"], None), 0)
        if row["type"] == ProductType.SIMPLE:
            low.note(row, quantity, product_id=row["pk"], variant_id=None)
        status = derive_stock_status(
            track=row["track_inventory"],
            quantity=quantity,
            backorders=row["allow_backorders"],
            manual=row["stock_status"],
        )
        enabled = variants_of.get(row["pk"], [])
        if row["type"] == ProductType.VARIABLE and enabled:
            status = combine_stock_status([v[3] for v in enabled])
            if any(v[0] for v in enabled):
                quantity = sum(max(v[2], 0) for v in enabled if v[0])
        if (quantity, status) != (row["stock_quantity"], row["stock_status"]):
            product_rows.append(Product(pk=row["pk"], stock_quantity=quantity, stock_status=status))
            _note_change(changed, row["pk"], row, quantity, status)
        out.products[row["pk"]] = (quantity, status)
    # one UPDATE (CASE per row) per model, whatever the number of items
    stock_fields = ["stock_quantity", "stock_status"]
    Variant.objects.bulk_update(variant_rows, stock_fields, batch_size=500)
    Product.objects.bulk_update(product_rows, stock_fields, batch_size=500)
    # Only the changed products' cached bodies, and the lists that depend on what changed.
    # (A dimension's token is the lists', not a product's: one bump for all of them.)
    if changed:
        invalidate_catalog(list(changed), set().union(*changed.values()))
    low.publish()
    return out


class _LowStock:
    """stock.low (issue 17): a tracked item (a simple product, an enabled variant, not
    archived) whose quantity for sale falls from above its low-stock threshold to at or below
    it (the product's threshold, else the store's inventory setting: the dashboard's notion).
    Published once per crossing, in the refresh's transaction; nothing when it only stays low."""

    def __init__(self) -> None:
        self.candidates: list[tuple[dict, int, int, int | None]] = []
        self.products: dict[int, dict] = {}

    def note(self, row: dict, quantity: int, *, product_id: int, variant_id: int | None) -> None:
        if row["track_inventory"] and quantity < row["stock_quantity"]:
            self.candidates.append((row, quantity, product_id, variant_id))

    def publish(self) -> None:
        if not self.candidates:
            return
        default = None
        batch = []
        for row, quantity, product_id, variant_id in self.candidates:
            product = self.products.get(product_id)
            if product is None or product["status"] == ProductStatus.ARCHIVED:
                continue
            threshold = product["low_stock_threshold"]
            if threshold is None:
                if default is None:
                    default = store_settings.get_value("inventory", "low_stock_threshold")
                threshold = default
            if not quantity <= threshold < row["stock_quantity"]:
                continue
            title = product["title"]
            if variant_id is not None and row["title"]:
                title = f"{title} - {row['title']}"
            batch.append(
                DomainEvent(
                    account=None,
                    event="stock.low",
                    scope=STORE_EVENT,
                    data={
                        "product_id": product_id,
                        "variant_id": variant_id,
                        "sku": row["sku"],
                        "title": title,
                        "stock_quantity": quantity,
                        "previous_quantity": row["stock_quantity"],
                        "low_stock_threshold": threshold,
                    },
                )
            )
        publish_many(batch)


def _note_change(changed, product_id: int, row: dict, quantity: int, status: str) -> None:
    dimensions = changed[product_id]
    if quantity != row["stock_quantity"]:
        dimensions.add(catalog_cache.STOCK_QUANTITY)
    if status != row["stock_status"]:
        dimensions.add(catalog_cache.STOCK)


@transaction.atomic
def stock_status_set(
    *, product_id: int, variant_id: int | None = None, status: str, refresh: bool = True
) -> None:
    """The stock status of an item without tracked inventory, set by hand. `refresh=False`
    leaves recomputing the stock fields to a caller that does it once for all its writes."""
    _lock_products([product_id])
    model, pk = (Variant, variant_id) if variant_id is not None else (Product, product_id)
    item = model.objects.filter(pk=pk).values("track_inventory").first()
    if item is None:
        raise not_found("variant" if variant_id is not None else "product", pk)
    if item["track_inventory"]:
        raise invalid_params(
            {"stock_status": ["The stock status follows the stock while inventory is tracked."]}
        )
    if status not in StockStatus.values:
        raise invalid_params({"stock_status": [f"Not a stock status: {status!r}."]})
    model.objects.filter(pk=pk).update(stock_status=status)
    if refresh:
        stock_fields_refresh(product_ids=[product_id])


# --- Setting stock by hand -----------------------------------------------------------------------


def _check_item(product_id: int, variant_id: int | None) -> None:
    if variant_id is None:
        if not Product.objects.filter(pk=product_id).exists():
            raise not_found("product", product_id)
    elif not Variant.objects.filter(pk=variant_id, product_id=product_id).exists():
        raise not_found("variant", variant_id)


@transaction.atomic
def stock_set(
    *,
    product_id: int,
    variant_id: int | None = None,
    quantity: int,
    warehouse_id: int | None = None,
    reason: str = MovementReason.MANUAL_ADJUSTMENT,
    reference: Reference | None = None,
    idempotency_key: str | None = None,
    refresh: bool = True,
) -> StockMovement | None:
    """Set how many units of an item there are; answers the movement (None: nothing changed).

    With `warehouse_id` the level in that warehouse becomes `quantity`. Without it `quantity`
    is the item's total for sale (its levels in active warehouses): the default warehouse's
    level is adjusted to make it so, which other warehouses' stock may make impossible
    (400 `stock_in_other_warehouses`). A repeated `idempotency_key` changes nothing.
    `refresh=False` leaves recomputing the stock fields to a caller that does it once for all
    its writes (the catalog's).
    """
    reference = reference or Reference()
    if quantity < 0:
        raise invalid_params({"stock_quantity": ["Stock cannot be set below zero."]})
    _lock_products([product_id])
    _check_item(product_id, variant_id)
    if idempotency_key and StockMovement.objects.filter(idempotency_key=idempotency_key).exists():
        return None
    levels = _lock_levels(_item_filter([(product_id, variant_id)]))
    if warehouse_id is not None:
        warehouse = Warehouse.objects.filter(pk=warehouse_id).first()
        if warehouse is None:
            raise not_found("warehouse", warehouse_id)
        level = next((lv for lv in levels if lv.warehouse_id == warehouse.pk), None)
        level = level or _level(warehouse, product_id, variant_id)
        delta = quantity - level.quantity
    else:
        warehouse = default_warehouse()
        level = next((lv for lv in levels if lv.warehouse_id == warehouse.pk), None)
        elsewhere = sum(
            lv.quantity
            for lv in levels
            if lv.warehouse.is_active and lv.warehouse_id != warehouse.pk
        )
        if quantity < elsewhere:
            raise invalid_params(
                {
                    "stock_quantity": [
                        f"Other warehouses hold {elsewhere} of this item, so the total cannot "
                        f"be {quantity}; change their stock first."
                    ]
                },
                code="stock_in_other_warehouses",
            )
        current = level.quantity if level is not None else 0
        delta = quantity - elsewhere - current
        if delta and level is None:
            level = _level(warehouse, product_id, variant_id)
    if delta == 0:
        return None
    movement = _post(
        level,
        delta,
        reason=reason,
        reference=reference,
        key=idempotency_key or f"set:{uuid.uuid4().hex}",
        sku=_sku(product_id, variant_id),
    )
    if refresh:
        stock_fields_refresh(product_ids=[product_id])
    return movement


@transaction.atomic
def stock_discard(
    *, product_id: int, variant_id: int | None = None, reference: Reference | None = None
) -> list[StockMovement]:
    """Write the stock of an item about to be deleted out of the ledger (to zero).

    Without `variant_id` the product's own stock and every variant's go.
    """
    reference = reference or Reference()
    _lock_products([product_id])
    query = Q(variant_id=variant_id) if variant_id is not None else Q(product_id=product_id)
    movements = []
    levels = _lock_levels(query)
    skus = _skus(levels)
    for level in levels:
        if level.quantity:
            movements.append(
                _post(
                    level,
                    -level.quantity,
                    reason=MovementReason.ITEM_DELETED,
                    reference=reference,
                    key=f"discard:{uuid.uuid4().hex}",
                    sku=skus.get(level.pk, ""),
                )
            )
    return movements


# --- Stock held by orders (or anything else with lines) ------------------------------------------


@dataclass(frozen=True)
class Need:
    """Units one line of a reference needs from an item's stock."""

    line: int | None
    product_id: int
    variant_id: int | None
    quantity: int
    allow_backorders: bool = False
    label: str = ""
    sku: str = ""


@dataclass(frozen=True)
class Shortage:
    need: Need
    available: int


class InsufficientStock(Conflict):
    """409 `insufficient_stock`: some items do not have the units asked for."""

    def __init__(self, shortages: list[Shortage], *, param=None) -> None:
        self.shortages = shortages
        parts = [
            f"{s.need.label or s.need.sku or f'product {s.need.product_id}'}: "
            f"{s.available} available, {s.need.quantity} wanted"
            for s in shortages
        ]
        errors = None
        if param is not None:
            errors = {
                param(s.need): [
                    f"Only {max(s.available, 0)} in stock." if s.available > 0 else "Out of stock."
                ]
                for s in shortages
            }
        super().__init__(
            "Not enough stock: " + "; ".join(parts) + ".",
            code="insufficient_stock",
            errors=errors,
        )


def _selling_order(level: StockLevel) -> tuple:
    """Orders take from the default warehouse first, then by priority, then by id."""
    return (not level.warehouse.is_default, level.warehouse.priority, level.warehouse_id)


@transaction.atomic
def stock_take(
    *,
    needs: list[Need],
    reason: str,
    reference: Reference,
    key_prefix: str,
    param=None,
) -> list[StockMovement]:
    """Take units for each need from active warehouses, atomically with the check.

    Takes from the default warehouse first, then the others by priority. When an item has
    fewer units for sale than its needs together ask for, nothing is taken and
    InsufficientStock names every short item — unless the item allows backorders: then the
    default warehouse's level goes below zero for the rest. `param(need)` names the request
    parameter of a need in the refusal.
    """
    needs = [need for need in needs if need.quantity > 0]
    if not needs:
        return []
    _lock_products(need.product_id for need in needs)
    pairs = {(need.product_id, need.variant_id) for need in needs}
    levels = [lv for lv in _lock_levels(_item_filter(pairs)) if lv.warehouse.is_active]
    by_item: dict[tuple[int, int | None], list[StockLevel]] = defaultdict(list)
    for level in levels:
        by_item[(level.product_id, level.variant_id)].append(level)
    for item_levels in by_item.values():
        item_levels.sort(key=_selling_order)
    wanted: dict[tuple[int, int | None], int] = defaultdict(int)
    for need in needs:
        wanted[(need.product_id, need.variant_id)] += need.quantity
    shortages = []
    for need in needs:
        item = (need.product_id, need.variant_id)
        available = sum(max(lv.quantity, 0) for lv in by_item[item])
        if wanted[item] > available and not need.allow_backorders:
            # Two lines of one item are checked together; name each of them.
            shortages.append(Shortage(need, available))
    if shortages:
        raise InsufficientStock(shortages, param=param)
    warehouse = None
    postings = []
    for need in needs:
        item = (need.product_id, need.variant_id)
        remaining = need.quantity
        for level in by_item[item]:
            if remaining == 0:
                break
            # what the postings before this one left on the level
            left = level.quantity + sum(p.delta for p in postings if p.level is level)
            take = min(remaining, max(left, 0))
            if take:
                postings.append(
                    _Posting(
                        level, -take, f"{key_prefix}:{need.line}:{level.pk}", need.line, need.sku
                    )
                )
                remaining -= take
        if remaining:  # a backorder: the default warehouse goes below zero
            warehouse = warehouse or default_warehouse()
            level = next((lv for lv in by_item[item] if lv.warehouse_id == warehouse.pk), None)
            if level is None:
                level = _level(warehouse, need.product_id, need.variant_id)
                by_item[item].append(level)
            postings.append(
                _Posting(
                    level, -remaining, f"{key_prefix}:{need.line}:{level.pk}:b", need.line, need.sku
                )
            )
    movements = _post_many(postings, reason=reason, reference=reference)
    stock_fields_refresh(product_ids={need.product_id for need in needs})
    return movements


def held_by(*, reference_type: str, reference_id) -> dict[int | None, dict[int, int]]:
    """What a reference holds: {line: {level id: units}} (levels that still exist, units > 0)."""
    rows = (
        StockMovement.objects.filter(
            reference_type=reference_type, reference_id=str(reference_id), level__isnull=False
        )
        .values("reference_line", "level_id")
        .annotate(total=Sum("quantity"))
        .order_by()
    )
    out: dict[int | None, dict[int, int]] = defaultdict(dict)
    for row in rows:
        if row["total"] < 0:
            out[row["reference_line"]][row["level_id"]] = -row["total"]
    return dict(out)


@transaction.atomic
def stock_release(
    *,
    reference: Reference,
    keep: dict[int | None, int],
    reason: str,
    key_prefix: str,
) -> list[StockMovement]:
    """Give back what a reference holds beyond `keep` ({line: units to keep}; others keep 0).

    Units go back to the levels they were taken from, the last taken first. The caller holds
    whatever lock serialises changes of this reference's holdings (an order's row).
    """
    held = held_by(reference_type=reference.type, reference_id=reference.id)
    excess = {
        line: sum(levels.values()) - keep.get(line, 0)
        for line, levels in held.items()
        if sum(levels.values()) > keep.get(line, 0)
    }
    if not excess:
        return []
    level_ids = {level_id for line in excess for level_id in held[line]}
    product_ids = set(
        StockLevel.objects.filter(pk__in=level_ids).values_list("product_id", flat=True)
    )
    _lock_products(product_ids)
    levels = {lv.pk: lv for lv in _lock_levels(Q(pk__in=level_ids))}
    skus = _skus(levels.values())
    postings = []
    for line, units in sorted(excess.items(), key=lambda item: (item[0] is None, item[0] or 0)):
        order = sorted(
            (levels[level_id] for level_id in held[line] if level_id in levels),
            key=_selling_order,
            reverse=True,
        )
        for level in order:
            if units == 0:
                break
            back = min(units, held[line][level.pk])
            postings.append(
                _Posting(
                    level, back, f"{key_prefix}:{line}:{level.pk}", line, skus.get(level.pk, "")
                )
            )
            units -= back
    movements = _post_many(postings, reason=reason, reference=reference)
    stock_fields_refresh(product_ids=product_ids)
    return movements


# --- ERP: adjust, transfer, stocktake (issue 14) ---
#
# The warehouse's own operations (erp/inventory's routes call them): they lock and post as the
# functions above do (products, then levels, in pk order; one _post_many per reason) and keep
# costs. A level's `unit_cost` is the moving average of what arrived at a known cost; every
# movement of these operations carries a unit cost (what arrived at, or the level's average when
# units leave or are counted). Units of unknown cost leave the average as it is.

COST_QUANTUM = Decimal("0.0001")


@dataclass(frozen=True)
class StockLine:
    """Units of one item: a transfer's or a receipt's line, or a stocktake's count. `line`
    names the document's line in the ledger (reference_line; default the line's position)."""

    product_id: int
    variant_id: int | None
    quantity: int
    unit_cost: Decimal | None = None
    line: int | None = None


@dataclass
class Transfer:
    reference: str
    source: Warehouse
    destination: Warehouse
    out: list[StockMovement]
    into: list[StockMovement]


@dataclass(frozen=True)
class Count:
    """One counted item of a stocktake: what the ledger said, what was counted."""

    product_id: int
    variant_id: int | None
    sku: str
    expected: int
    counted: int
    unit_cost: Decimal | None
    movement: StockMovement | None

    @property
    def difference(self) -> int:
        return self.counted - self.expected


@dataclass
class Stocktake:
    reference: str
    warehouse: Warehouse
    counts: list[Count]


def average_cost(
    quantity: int, unit_cost: Decimal | None, added: int, added_cost: Decimal | None
) -> Decimal | None:
    """A level's average cost after `added` units at `added_cost` arrive on `quantity` units
    at `unit_cost` (units below zero, backorders, have no cost of their own)."""
    if added_cost is None or added <= 0:
        return unit_cost
    on_hand = max(quantity, 0)
    if unit_cost is None or on_hand == 0:
        return Decimal(added_cost).quantize(COST_QUANTUM, rounding=ROUND_HALF_UP)
    total = on_hand * unit_cost + added * Decimal(added_cost)
    return (total / (on_hand + added)).quantize(COST_QUANTUM, rounding=ROUND_HALF_UP)


def _warehouse_of(warehouse_id: int, *, lock: bool = False) -> Warehouse:
    """A warehouse by id; 0 is the default one (the spec's `warehouse_id` lookup)."""
    if warehouse_id == 0:
        warehouse_id = default_warehouse().pk
    return _warehouse_for_update(warehouse_id) if lock else _warehouse_plain(warehouse_id)


def _warehouse_plain(warehouse_id: int) -> Warehouse:
    warehouse = Warehouse.objects.filter(pk=warehouse_id).first()
    if warehouse is None:
        raise not_found("warehouse", warehouse_id)
    return warehouse


def _items_of(lines: Iterable[StockLine]) -> dict[tuple[int, int | None], dict]:
    """{(product id, variant id): {sku, allow_backorders}} in two queries; 404 for an item that
    does not exist (a variant of another product does not)."""
    pairs = {(line.product_id, line.variant_id) for line in lines}
    products = {
        row["pk"]: row
        for row in Product.objects.filter(pk__in={p for p, _ in pairs}).values(
            "pk", "sku", "allow_backorders"
        )
    }
    variants = {
        row["pk"]: row
        for row in Variant.objects.filter(pk__in={v for _, v in pairs if v}).values(
            "pk", "product_id", "sku", "allow_backorders"
        )
    }
    out = {}
    for product_id, variant_id in sorted(pairs, key=lambda pair: (pair[0], pair[1] or 0)):
        if product_id not in products:
            raise not_found("product", product_id)
        row = products[product_id]
        if variant_id is not None:
            row = variants.get(variant_id)
            if row is None or row["product_id"] != product_id:
                raise not_found("variant", variant_id)
        out[(product_id, variant_id)] = {
            "sku": row["sku"] or "",
            "allow_backorders": row["allow_backorders"],
        }
    return out


def _levels_in(
    warehouse_ids: Iterable[int], pairs
) -> dict[tuple[int, int, int | None], StockLevel]:
    """The locked levels of these items in these warehouses: {(warehouse, product, variant)}."""
    query = _item_filter(pairs) & Q(warehouse_id__in=list(warehouse_ids))
    return {(lv.warehouse_id, lv.product_id, lv.variant_id): lv for lv in _lock_levels(query)}


def _post_costed(
    postings: list[_Posting], costs: list[Decimal | None], *, reason: str, reference: Reference
) -> list[StockMovement]:
    """_post_many, then the movements' unit costs (one UPDATE by their unique keys)."""
    movements = _post_many(postings, reason=reason, reference=reference)
    known = {p.key: cost for p, cost in zip(postings, costs, strict=True) if cost is not None}
    if known:
        StockMovement.objects.filter(idempotency_key__in=list(known)).update(
            unit_cost=Case(
                *(When(idempotency_key=key, then=Value(cost)) for key, cost in known.items()),
                output_field=StockMovement._meta.get_field("unit_cost"),
            )
        )
        for movement in movements:
            movement.unit_cost = known.get(movement.idempotency_key)
    return movements


def _save_costs(levels: Iterable[StockLevel]) -> None:
    """Write the levels' (changed) average costs in one UPDATE."""
    levels = list(levels)
    if levels:
        StockLevel.objects.bulk_update(levels, ["unit_cost"])


def _arrivals(
    warehouse: Warehouse,
    lines: list[StockLine],
    items: dict,
    levels: dict,
    *,
    key_prefix: str,
) -> tuple[list[_Posting], list[Decimal | None], list[StockLevel]]:
    """Postings of units arriving in `warehouse` (created levels go into `levels`), their costs,
    and the levels whose average cost changes (each line moves it, in order). An inactive
    warehouse takes no stock in (409 `warehouse_inactive`; a stocktake may still find some)."""
    if not warehouse.is_active:
        raise rule_broken(
            f"Warehouse {warehouse.name!r} is inactive; activate it before moving stock in.",
            code="warehouse_inactive",
            status=409,
        )
    postings, costs, changed = [], [], {}
    for index, line in enumerate(lines):
        key = (warehouse.pk, line.product_id, line.variant_id)
        level = levels.get(key) or _level(warehouse, line.product_id, line.variant_id)
        levels[key] = level
        before = level.quantity + sum(p.delta for p in postings if p.level is level)
        cost = average_cost(before, level.unit_cost, line.quantity, line.unit_cost)
        if cost != level.unit_cost:
            level.unit_cost = cost
            changed[level.pk] = level
        postings.append(
            _Posting(
                level,
                line.quantity,
                f"{key_prefix}:{index}",
                index if line.line is None else line.line,
                items[(line.product_id, line.variant_id)]["sku"],
            )
        )
        costs.append(line.unit_cost if line.unit_cost is not None else level.unit_cost)
    return postings, costs, list(changed.values())


@transaction.atomic
def stock_add_at_cost(
    *,
    warehouse_id: int,
    lines: list[StockLine],
    reference: Reference,
    key_prefix: str,
    reason: str = MovementReason.PURCHASE_RECEIVED,
) -> list[StockMovement]:
    """Units arriving at a cost (a purchase receipt): one movement per line carrying its unit
    cost, and each level's moving-average cost updated. A repeated `key_prefix` is refused
    (409 `duplicate_stock_movement`) and changes nothing."""
    if not lines or any(line.quantity <= 0 for line in lines):
        raise invalid_params({"lines": ["Each line adds at least one unit."]})
    warehouse = _warehouse_of(warehouse_id)
    items = _items_of(lines)
    _lock_products(line.product_id for line in lines)
    levels = _levels_in([warehouse.pk], items)
    postings, costs, changed = _arrivals(warehouse, lines, items, levels, key_prefix=key_prefix)
    movements = _post_costed(postings, costs, reason=reason, reference=reference)
    _save_costs(changed)
    stock_fields_refresh(product_ids={line.product_id for line in lines})
    return movements


@transaction.atomic
def stock_adjust(
    *,
    product_id: int,
    variant_id: int | None = None,
    warehouse_id: int,
    reason: str,
    quantity: int | None = None,
    new_quantity: int | None = None,
    unit_cost: Decimal | None = None,
    note: str = "",
    actor=None,
) -> StockMovement | None:
    """Change one level by `quantity` (signed) or to `new_quantity`, for a `reason`
    (AdjustmentReason, required); answers the movement (None: the level already holds
    `new_quantity`). Taking below zero is refused (409 `insufficient_stock`) unless the item
    allows backorders. `unit_cost` (only when adding) moves the level's average cost; the
    movement carries it, or the level's average."""
    problems = {}
    if reason not in AdjustmentReason.values:
        problems["reason"] = [f"Use one of {', '.join(AdjustmentReason.values)}."]
    if (quantity is None) == (new_quantity is None):
        problems["quantity"] = ["Send either quantity (a change) or new_quantity."]
    elif quantity == 0:
        problems["quantity"] = ["A change of zero changes nothing."]
    elif new_quantity is not None and new_quantity < 0:
        problems["new_quantity"] = ["Stock cannot be set below zero."]
    if problems:
        raise invalid_params(problems)
    warehouse = _warehouse_of(warehouse_id)
    line = StockLine(product_id, variant_id, 0)
    item = _items_of([line])[(product_id, variant_id)]
    _lock_products([product_id])
    levels = _levels_in([warehouse.pk], [(product_id, variant_id)])
    level = levels.get((warehouse.pk, product_id, variant_id))
    current = level.quantity if level is not None else 0
    delta = quantity if quantity is not None else new_quantity - current
    if unit_cost is not None and delta <= 0:
        raise invalid_params({"unit_cost": ["A unit cost goes only with units added."]})
    if delta == 0:
        return None
    if delta < 0 and current + delta < 0 and not item["allow_backorders"]:
        need = Need(None, product_id, variant_id, -delta, sku=item["sku"])
        raise InsufficientStock([Shortage(need, current)], param=lambda _need: "quantity")
    reference = Reference(type="adjustment", id=reason, actor=actor, note=note)
    key = f"adjust:{uuid.uuid4().hex}"
    if delta > 0:
        arriving = [StockLine(product_id, variant_id, delta, unit_cost)]
        postings, costs, changed = _arrivals(
            warehouse, arriving, {(product_id, variant_id): item}, levels, key_prefix=key
        )
    else:
        level = level or _level(warehouse, product_id, variant_id)
        postings = [_Posting(level, delta, f"{key}:0", None, item["sku"])]
        costs, changed = [level.unit_cost], []
    movement = _post_costed(
        postings, costs, reason=MovementReason.MANUAL_ADJUSTMENT, reference=reference
    )[0]
    _save_costs(changed)
    stock_fields_refresh(product_ids=[product_id])
    return movement


@transaction.atomic
def stock_transfer(
    *,
    from_warehouse_id: int,
    to_warehouse_id: int,
    lines: list[StockLine],
    note: str = "",
    actor=None,
) -> Transfer:
    """Move units between two warehouses: every line or none (409 `insufficient_stock` names
    each short line; a transfer never takes a level below zero). Each line is a transfer_out
    and a transfer_in movement carrying the source's average cost, which moves the
    destination's average. The destination must be active (409 `warehouse_inactive`)."""
    if not lines:
        raise invalid_params({"lines": ["A transfer needs at least one line."]})
    if any(line.quantity <= 0 for line in lines):
        raise invalid_params({"lines": ["Each line moves at least one unit."]})
    source_id = _warehouse_of(from_warehouse_id).pk
    destination_id = _warehouse_of(to_warehouse_id).pk
    if source_id == destination_id:
        raise invalid_params({"to_warehouse_id": ["Choose a warehouse other than the source."]})
    items = _items_of(lines)
    # The warehouses first (pk order: two opposite transfers never deadlock), so a
    # deactivation cannot slip between the check and the arrival.
    locked = {
        w.pk: w
        for w in Warehouse.objects.select_for_update()
        .filter(pk__in=[source_id, destination_id])
        .order_by("pk")
    }
    source, destination = locked[source_id], locked[destination_id]
    _lock_products(line.product_id for line in lines)
    levels = _levels_in([source.pk, destination.pk], items)
    wanted: dict[tuple[int, int | None], int] = defaultdict(int)
    for line in lines:
        wanted[(line.product_id, line.variant_id)] += line.quantity
    shortages = []
    for index, line in enumerate(lines):
        item = (line.product_id, line.variant_id)
        level = levels.get((source.pk, *item))
        available = max(level.quantity, 0) if level is not None else 0
        if wanted[item] > available:
            need = Need(
                index, line.product_id, line.variant_id, line.quantity, sku=items[item]["sku"]
            )
            shortages.append(Shortage(need, available))
    if shortages:
        raise InsufficientStock(shortages, param=lambda need: f"lines.{need.line}.quantity")
    reference = Reference(type="transfer", id=uuid.uuid4().hex, actor=actor, note=note)
    out_postings, out_costs = [], []
    for index, line in enumerate(lines):
        level = levels[(source.pk, line.product_id, line.variant_id)]
        sku = items[(line.product_id, line.variant_id)]["sku"]
        out_postings.append(
            _Posting(level, -line.quantity, f"transfer:{reference.id}:{index}:out", index, sku)
        )
        out_costs.append(level.unit_cost)
    arriving = [
        StockLine(line.product_id, line.variant_id, line.quantity, cost)
        for line, cost in zip(lines, out_costs, strict=True)
    ]
    in_postings, in_costs, changed = _arrivals(
        destination, arriving, items, levels, key_prefix=f"transfer:{reference.id}:in"
    )
    out = _post_costed(
        out_postings, out_costs, reason=MovementReason.TRANSFER_OUT, reference=reference
    )
    into = _post_costed(
        in_postings, in_costs, reason=MovementReason.TRANSFER_IN, reference=reference
    )
    _save_costs(changed)
    stock_fields_refresh(product_ids={line.product_id for line in lines})
    return Transfer(reference.id, source, destination, out, into)


@transaction.atomic
def stock_stocktake(
    *, warehouse_id: int, counts: list[StockLine], note: str = "", actor=None
) -> Stocktake:
    """Post the differences between counted quantities and the ledger in one warehouse as
    stocktake movements (at the level's average cost), all in one transaction. Items not
    counted are untouched; an item counted twice is refused."""
    if not counts:
        raise invalid_params({"counts": ["Count at least one item."]})
    problems = {}
    seen: set[tuple[int, int | None]] = set()
    for index, line in enumerate(counts):
        item = (line.product_id, line.variant_id)
        if line.quantity < 0:
            problems[f"counts.{index}.quantity"] = ["A count cannot be below zero."]
        if item in seen:
            problems[f"counts.{index}"] = ["This item is counted twice."]
        seen.add(item)
    if problems:
        raise invalid_params(problems)
    warehouse = _warehouse_of(warehouse_id)
    items = _items_of(counts)
    _lock_products(line.product_id for line in counts)
    levels = _levels_in([warehouse.pk], items)
    reference = Reference(type="stocktake", id=uuid.uuid4().hex, actor=actor, note=note)
    postings, costs, rows = [], [], []
    for index, line in enumerate(counts):
        key = (warehouse.pk, line.product_id, line.variant_id)
        level = levels.get(key)
        expected = level.quantity if level is not None else 0
        if line.quantity != expected:
            level = level or _level(warehouse, line.product_id, line.variant_id)
            postings.append(
                _Posting(
                    level,
                    line.quantity - expected,
                    f"stocktake:{reference.id}:{index}",
                    index,
                    items[key[1:]]["sku"],
                )
            )
            costs.append(level.unit_cost)
        rows.append((line, expected, level))
    movements = iter(
        _post_costed(postings, costs, reason=MovementReason.STOCKTAKE, reference=reference)
    )
    result = []
    for line, expected, level in rows:
        result.append(
            Count(
                product_id=line.product_id,
                variant_id=line.variant_id,
                sku=items[(line.product_id, line.variant_id)]["sku"],
                expected=expected,
                counted=line.quantity,
                unit_cost=level.unit_cost if level is not None else None,
                movement=next(movements) if line.quantity != expected else None,
            )
        )
    stock_fields_refresh(product_ids={line.product_id for line in counts})
    return Stocktake(reference.id, warehouse, result)


REORDER_FIELDS = ("reorder_point", "reorder_quantity")


@transaction.atomic
def stock_reorder_set(*, level_id: int, fields: dict) -> StockLevel:
    """A level's reorder point and quantity (None clears either)."""
    level = StockLevel.objects.select_for_update().filter(pk=level_id).first()
    if level is None:
        raise not_found("stock_level", level_id)
    problems = {
        name: ["Must be zero or more."]
        for name in REORDER_FIELDS
        if fields.get(name) is not None and fields[name] < 0
    }
    if problems:
        raise invalid_params(problems)
    changed = [name for name in REORDER_FIELDS if name in fields]
    for name in changed:
        setattr(level, name, fields[name])
    if changed:
        level.save(update_fields=[*changed, "updated_at"])
    return level


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


# --- ERP: purchase receipts (issue 14) ---

# A purchase receipt's line: the item, the units received, their unit cost (the store's
# currency) and the goods-received note's line.
Receipt = StockLine


def stock_receive(
    *,
    receipts: list[StockLine],
    warehouse_id: int,
    reference: Reference,
    key_prefix: str,
) -> list[StockMovement]:
    """Post received goods into one warehouse (reason purchase_received), each movement at its
    unit cost, each level's average cost moved (stock_add_at_cost). Every receipt needs a cost
    of zero or more; a receipt posted twice is refused (409 duplicate_stock_movement)."""
    problems = {
        f"receipts.{index}.unit_cost": ["A cost of zero or more."]
        for index, receipt in enumerate(receipts)
        if receipt.unit_cost is None or Decimal(receipt.unit_cost) < 0
    }
    if problems:
        raise invalid_params(problems)
    if not receipts:
        return []
    return stock_add_at_cost(
        warehouse_id=warehouse_id,
        lines=receipts,
        reference=reference,
        key_prefix=key_prefix,
        reason=MovementReason.PURCHASE_RECEIVED,
    )
