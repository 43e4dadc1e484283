"""Costs of the warehouse's own operations and of receipts (private to this package).

They lock and post as the other modules do (products, then levels, in pk order; one _post_many
per reason) and keep costs. A level's `unit_cost` is the moving average of what arrived at a
known cost; every movement of these operations carries a unit cost (what arrived at, or the
level's average when units leave or are counted). Units of unknown cost leave the average as it
is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import Case, Q, Value, When

from store.catalog.models import Product, Variant
from store.common.errors import not_found, rule_broken
from store.inventory.models import StockLevel, StockMovement, Warehouse
from store.inventory.services._ledger import (
    Reference,
    _item_filter,
    _level,
    _lock_levels,
    _post_many,
    _Posting,
    _warehouse_for_update,
)
from store.inventory.services.warehouses import default_warehouse

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
