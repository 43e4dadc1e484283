"""POST /erp/inventory/backfill/start: the ledger's ERP fields filled in for the stock levels
that have none (store.inventory StockLevel): `unit_cost` from the item's regular price (its
current price without one) times `cost_ratio`; `reorder_point` from the product's low-stock
threshold, else the default given; `reorder_quantity` when one is given. A value a level has
is never changed, so a batch done twice changes nothing the second time.

The levels of a batch are locked (FOR UPDATE, as the ledger's services lock them), so a receipt
that sets a cost at the same time is not overwritten."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.db.models import Q

from erp.core.services.batches import BatchResult, Phase
from store.inventory.models import StockLevel

COST_PLACES = Decimal("0.0001")
DEFAULT_COST_RATIO = "0.60"
DEFAULT_REORDER_POINT = 5


def _levels(params: dict):
    query = Q(unit_cost__isnull=True) | Q(reorder_point__isnull=True)
    if params.get("reorder_quantity") is not None:
        query |= Q(reorder_quantity__isnull=True)
    return StockLevel.objects.filter(query)


def _list_price(level: StockLevel) -> Decimal | None:
    for item in (level.variant, level.product):
        if item is None:
            continue
        price = item.regular_price if item.regular_price is not None else item.price
        if price is not None:
            return price
    return None


def _backfill(job, levels: list, params: dict) -> BatchResult:
    result = BatchResult()
    ratio = Decimal(params.get("cost_ratio", DEFAULT_COST_RATIO))
    default_point = params.get("reorder_point")
    reorder_quantity = params.get("reorder_quantity")
    locked = list(
        StockLevel.objects.select_for_update(of=("self",))
        .select_related("product", "variant")
        .filter(pk__in=[level.pk for level in levels])
        .order_by("pk")
    )
    changed = []
    for level in locked:
        fields = []
        if level.unit_cost is None:
            price = _list_price(level)
            if price is None:
                result.add("no_price")
            else:
                level.unit_cost = (price * ratio).quantize(COST_PLACES, rounding=ROUND_HALF_UP)
                fields.append("unit_cost")
                result.add("costed")
        if level.reorder_point is None:
            point = level.product.low_stock_threshold
            if point is None:
                point = default_point
            if point is not None:
                level.reorder_point = point
                fields.append("reorder_point")
                result.add("reorder_points")
        if level.reorder_quantity is None and reorder_quantity is not None:
            level.reorder_quantity = reorder_quantity
            fields.append("reorder_quantity")
            result.add("reorder_quantities")
        if fields:
            changed.append(level)
        else:
            result.add("unchanged")
    if changed:
        StockLevel.objects.bulk_update(changed, ["unit_cost", "reorder_point", "reorder_quantity"])
    return result


PHASES = (Phase("levels", _levels, _backfill),)
