"""The auto-reorder: draft purchase orders for the stock levels at or below their reorder
point, from the cheapest supplier price in the store's currency.
"""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.db.models import F

from erp.purchasing import selectors
from erp.purchasing.services._shared import store_currency
from erp.purchasing.services.orders import purchase_order_create
from store.inventory import services as inventory
from store.inventory.models import StockLevel

AUTO_REORDER = "auto-reorder"


def reorder_quantity(level: StockLevel) -> int:
    """What to order for a level at or below its reorder point: its reorder quantity, else
    up to twice the point (at least one)."""
    if level.reorder_quantity:
        return level.reorder_quantity
    return max(2 * (level.reorder_point or 0) - level.quantity, 1)


@transaction.atomic
def purchase_orders_auto_reorder(*, user=None) -> dict:
    """Draft purchase orders for every stock level (of an active warehouse) at or below its
    reorder point, from the cheapest price in the store's currency of an active supplier
    (selectors.cheapest_price: tiers the quantity reaches first; else the quantity is raised
    to the smallest minimum), one order per supplier and warehouse. Skipped, with their
    reason: items an open order already brings to that warehouse (`on_order`) and items
    without such a price (`no_supplier_price`). Running it again creates nothing new: what it
    ordered is then on order. The products are locked first (pk order), so two runs at once
    cannot both order the same item."""
    candidates = list(
        StockLevel.objects.filter(
            reorder_point__isnull=False,
            quantity__lte=F("reorder_point"),
            warehouse__is_active=True,
        ).values_list("product_id", flat=True)
    )
    inventory.stock_lock(product_ids=candidates)
    levels = list(
        StockLevel.objects.filter(
            reorder_point__isnull=False,
            quantity__lte=F("reorder_point"),
            warehouse__is_active=True,
        )
        .select_related("warehouse", "product", "variant")
        .order_by("warehouse_id", "product_id", "variant_id")
    )
    currency = store_currency()
    default = inventory.default_warehouse()
    on_order = selectors.outstanding_by_item(default_warehouse_id=default.pk)
    prices = selectors.prices_for_items(
        items={(lv.product_id, lv.variant_id) for lv in levels}, currency=currency
    )
    groups: dict[tuple[int, int], list[dict]] = defaultdict(list)
    skipped = []
    for level in levels:
        item = (level.product_id, level.variant_id)
        entry = {
            "product_id": level.product_id,
            "variant_id": level.variant_id,
            "warehouse_id": level.warehouse_id,
            "sku": (level.variant.sku if level.variant else level.product.sku) or "",
            "quantity": level.quantity,
            "reorder_point": level.reorder_point,
        }
        outstanding = on_order.get((level.warehouse_id, *item))
        if outstanding:
            skipped.append(
                {
                    **entry,
                    "reason": "on_order",
                    "message": f"{outstanding['quantity']} on order "
                    f"({', '.join(outstanding['numbers'])}).",
                }
            )
            continue
        need = reorder_quantity(level)
        choice = selectors.cheapest_price(prices.get(item, []), need)
        if choice is None:
            skipped.append(
                {
                    **entry,
                    "reason": "no_supplier_price",
                    "message": f"No active supplier has a {currency} price for this item.",
                }
            )
            continue
        price, quantity = choice
        groups[(price.supplier_id, level.warehouse_id)].append(
            {
                "product_id": level.product_id,
                "variant_id": level.variant_id,
                "quantity": quantity,
                "unit_cost": price.unit_price,
            }
        )
    created = []
    for (supplier_id, warehouse_id), lines in sorted(groups.items()):
        created.append(
            purchase_order_create(
                fields={
                    "supplier_id": supplier_id,
                    "currency": currency,
                    "warehouse_id": None if warehouse_id == default.pk else warehouse_id,
                    "lines": lines,
                },
                user=user,
                origin=AUTO_REORDER,
            )
        )
    return {"created": created, "skipped": skipped}
