"""Stock set by hand (the catalog's writes): an item's quantity, in one warehouse or in
total; the stock status of an item without tracked inventory; and the stock of an item about
to be deleted, written out of the ledger.
"""

from __future__ import annotations

import uuid

from django.db import transaction
from django.db.models import Q

from store.catalog.choices import StockStatus
from store.catalog.models import Product, Variant
from store.common.errors import invalid_params, not_found
from store.inventory.choices import MovementReason
from store.inventory.models import StockMovement, Warehouse
from store.inventory.services._ledger import (
    Reference,
    _item_filter,
    _level,
    _lock_levels,
    _lock_products,
    _post,
    _sku,
    _skus,
)
from store.inventory.services.refresh import stock_fields_refresh
from store.inventory.services.warehouses import default_warehouse


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
