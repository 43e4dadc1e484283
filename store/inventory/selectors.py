"""Inventory reads."""

from __future__ import annotations

from django.db.models import Sum

from store.common.errors import not_found
from store.inventory.models import StockLevel, StockMovement, Warehouse
from store.inventory.services import default_warehouse


def warehouse_get(warehouse_id: int) -> Warehouse:
    """A warehouse by id; 0 is the default warehouse (spec: lookup `warehouse_id`)."""
    if warehouse_id == 0:
        return default_warehouse()
    warehouse = Warehouse.objects.filter(pk=warehouse_id).first()
    if warehouse is None:
        raise not_found("warehouse", warehouse_id)
    return warehouse


def quantity_in(*, warehouse: Warehouse, product_id: int, variant_id: int | None) -> int:
    """Units of an item in one warehouse (0 without a level)."""
    levels = StockLevel.objects.filter(warehouse=warehouse, product_id=product_id)
    levels = levels.filter(variant_id=variant_id) if variant_id else levels.filter(variant=None)
    return levels.aggregate(total=Sum("quantity"))["total"] or 0


def stock_elsewhere(*, product_id: int, variant_id: int | None) -> int:
    """Units of an item for sale outside the default warehouse (a total cannot go below it)."""
    levels = StockLevel.objects.filter(
        product_id=product_id, warehouse__is_active=True, warehouse__is_default=False
    )
    levels = levels.filter(variant_id=variant_id) if variant_id else levels.filter(variant=None)
    return levels.aggregate(total=Sum("quantity"))["total"] or 0


def held_per_item(*, reference_type: str, reference_id) -> dict[tuple[int, int | None], int]:
    """Units a reference holds per item ({(product id, variant id): units}), in one query."""
    rows = (
        StockMovement.objects.filter(
            reference_type=reference_type, reference_id=str(reference_id), level__isnull=False
        )
        .values("product_id", "variant_id")
        .annotate(total=Sum("quantity"))
        .order_by()
    )
    return {
        (row["product_id"], row["variant_id"]): -row["total"] for row in rows if row["total"] < 0
    }
