"""Line items of an order: add, change, remove; totals and stock follow."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Sum

from store.common.errors import rule_broken
from store.common.money import money
from store.common.problems import Problems
from store.inventory.choices import MovementReason
from store.orders.choices import CLAIMING, OrderSource
from store.orders.models import OrderItem, ShipmentItem
from store.orders.services.common import (
    ensure_editable,
    lock_order_of,
    order_for_update,
    order_trail,
)
from store.orders.services.lines import amounts, resolve_lines, taxed
from store.orders.services.shipments import refresh_fulfillment
from store.orders.services.stock import schedule_release, take_stock
from store.orders.services.totals import recalculate
from store.reports import rollups


def _quantity_param(_item_id) -> str:
    return "quantity"


@transaction.atomic
@rollups.batched
def order_item_add(*, order_id: int, fields: dict, actor=None, source=OrderSource.API) -> OrderItem:
    """Add a line (product_id, variant_id?, quantity, price?, tax?, title?, sku?, options?);
    the totals are recalculated and the stock taken (409 `insufficient_stock`)."""
    order = order_for_update(order_id)
    trail = order_trail(order)
    ensure_editable(order)
    problems = Problems()
    lines = resolve_lines([fields], problems, prefix="")
    problems.raise_if_any()
    item = lines[0].item(order)
    item.save()
    recalculate(order, actor=actor, source=source)
    refresh_fulfillment(order, actor=actor, source=source)
    take_stock(
        order,
        reason=MovementReason.ORDER_EDITED,
        actor=actor,
        param=_quantity_param,
        only=item.pk,
    )
    trail.record(note=f"Item {item.pk} added: {item.quantity} x {item.title}.")
    return item


def _shipped_units(item: OrderItem) -> int:
    return (
        ShipmentItem.objects.filter(order_item=item, shipment__status__in=CLAIMING).aggregate(
            units=Sum("quantity")
        )["units"]
        or 0
    )


@transaction.atomic
@rollups.batched
def order_item_update(
    *, item_id: int, fields: dict, actor=None, source=OrderSource.API
) -> OrderItem:
    """Change a line's quantity, price, tax, title or SKU (its product stays: remove the line
    and add another). More units are taken from stock now; fewer are given back."""
    order, item = lock_order_of(OrderItem, item_id, "order_item")
    trail = order_trail(order)
    ensure_editable(order)
    old_quantity = item.quantity
    quantity = fields.get("quantity", item.quantity)
    shipped = _shipped_units(item)
    if quantity < shipped:
        raise rule_broken(
            f"{shipped} unit(s) of this item are in shipments; the quantity cannot go below.",
            code="item_shipped",
            status=409,
        )
    if quantity < item.restocked:
        raise rule_broken(
            f"{item.restocked} unit(s) of this item were restocked; the quantity cannot go below.",
            code="item_restocked",
            status=409,
        )
    item.quantity = quantity
    if fields.get("price") is not None:
        item.unit_price = money(fields["price"])
    if fields.get("tax") is not None:
        item.tax = taxed(order, fields["tax"])
    for name in ("title", "sku"):
        if fields.get(name):
            setattr(item, name, fields[name])
    if "options" in fields and fields["options"] is not None:
        item.options = fields["options"]
    item.subtotal, item.total = amounts(item.unit_price, item.quantity, item.tax)
    item.save()
    recalculate(order, actor=actor, source=source)
    refresh_fulfillment(order, actor=actor, source=source)
    if quantity > old_quantity:
        take_stock(
            order,
            reason=MovementReason.ORDER_EDITED,
            actor=actor,
            param=_quantity_param,
            only=item.pk,
        )
    elif quantity < old_quantity:
        schedule_release(order)
    trail.record(note=f"Item {item.pk} changed: {item.quantity} x {item.title}.")
    return item


@transaction.atomic
@rollups.batched
def order_item_delete(*, item_id: int, actor=None, source=OrderSource.API) -> None:
    """Remove a line that is in no shipment; its stock is given back."""
    order, item = lock_order_of(OrderItem, item_id, "order_item")
    trail = order_trail(order)
    ensure_editable(order)
    if ShipmentItem.objects.filter(order_item=item).exists():
        raise rule_broken(
            "This item is in a shipment; delete the shipment first.",
            code="item_shipped",
            status=409,
        )
    item.delete()
    recalculate(order, actor=actor, source=source)
    refresh_fulfillment(order, actor=actor, source=source)
    schedule_release(order)
    trail.record(note=f"Item {item_id} removed: {item.quantity} x {item.title}.")
