"""Units arriving at a cost: the ERP's purchase receipts. Each movement carries its unit
cost and moves its level's average cost.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from store.common.errors import invalid_params
from store.inventory.choices import MovementReason
from store.inventory.models import StockMovement
from store.inventory.services._costing import (
    StockLine,
    _arrivals,
    _items_of,
    _levels_in,
    _post_costed,
    _save_costs,
    _warehouse_of,
)
from store.inventory.services._ledger import Reference, _lock_products
from store.inventory.services.refresh import stock_fields_refresh


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
