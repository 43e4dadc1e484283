"""The warehouse's own operations (erp/inventory's routes call them): adjust, transfer,
stocktake, and a level's reorder point. Each movement carries a unit cost (`_costing`).
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction

from store.common.errors import invalid_params, not_found
from store.inventory.choices import AdjustmentReason, MovementReason
from store.inventory.models import StockLevel, StockMovement, Warehouse
from store.inventory.services._costing import (
    StockLine,
    _arrivals,
    _items_of,
    _levels_in,
    _post_costed,
    _save_costs,
    _warehouse_of,
)
from store.inventory.services._ledger import Reference, _level, _lock_products, _Posting
from store.inventory.services.holds import InsufficientStock, Need, Shortage
from store.inventory.services.refresh import stock_fields_refresh


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
