"""Shipments; the fulfilment status follows what shipped."""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from store.common.errors import rule_broken
from store.common.problems import Problems
from store.orders.choices import (
    CLAIMING,
    SHIPPED_OUT,
    TERMINAL,
    FulfillmentStatus,
    HistoryField,
    OrderSource,
    ShipmentStatus,
)
from store.orders.models import Order, OrderItem, Shipment, ShipmentItem
from store.orders.selectors import invalidate_counts as order_counts_changed
from store.orders.services.common import lock_order_of, order_for_update, order_trail, record
from store.reports import rollups

FIELDS = ("carrier", "service", "tracking_number", "tracking_url", "note")


def _quantities(order: Order, statuses, *, exclude_shipment: int | None = None) -> dict[int, int]:
    rows = ShipmentItem.objects.filter(shipment__order=order, shipment__status__in=statuses)
    if exclude_shipment:
        rows = rows.exclude(shipment_id=exclude_shipment)
    return {
        row["order_item_id"]: row["units"]
        for row in rows.values("order_item_id").annotate(units=Sum("quantity")).order_by()
    }


def fulfillment_status_for(order: Order) -> str:
    """Fulfilled when every unit went out in shipments that are shipped or delivered,
    partially when some did; returned when none is out but some came back; else unfulfilled."""
    ordered = dict(OrderItem.objects.filter(order=order).values_list("pk", "quantity"))
    out = _quantities(order, SHIPPED_OUT)
    shipped = sum(min(out.get(pk, 0), quantity) for pk, quantity in ordered.items())
    total = sum(ordered.values())
    if total and shipped >= total:
        return FulfillmentStatus.FULFILLED
    if shipped:
        return FulfillmentStatus.PARTIALLY_FULFILLED
    if order.shipments.filter(status=ShipmentStatus.RETURNED).exists():
        return FulfillmentStatus.RETURNED
    return FulfillmentStatus.UNFULFILLED


def refresh_fulfillment(order: Order, *, actor=None, source=OrderSource.API, note="") -> None:
    status = fulfillment_status_for(order)
    if status == order.fulfillment_status:
        return
    record(
        order,
        HistoryField.FULFILLMENT_STATUS,
        order.fulfillment_status,
        status,
        actor=actor,
        source=source,
        note=note or "Follows the shipments.",
    )
    order.fulfillment_status = status
    Order.objects.filter(pk=order.pk).update(fulfillment_status=status, updated_at=timezone.now())
    order_counts_changed()  # the list's cached totals per fulfillment status


def _stamp(shipment: Shipment) -> None:
    now = timezone.now()
    if shipment.status in SHIPPED_OUT and shipment.shipped_at is None:
        shipment.shipped_at = now
    if shipment.status == ShipmentStatus.DELIVERED and shipment.delivered_at is None:
        shipment.delivered_at = now


def _check_units(order: Order, wanted: dict[int, int], *, exclude_shipment=None) -> None:
    """Shipments that claim units (being prepared, shipped, delivered) cannot claim more
    than each line has."""
    claimed = _quantities(order, CLAIMING, exclude_shipment=exclude_shipment)
    ordered = dict(OrderItem.objects.filter(order=order).values_list("pk", "quantity"))
    problems = Problems()
    for position, (item_id, units) in enumerate(wanted.items()):
        left = ordered[item_id] - claimed.get(item_id, 0)
        if units > left:
            problems.add(
                f"items.{position}.quantity",
                f"Item {item_id} has {max(left, 0)} unit(s) left to ship.",
                code="shipment_exceeds_order",
            )
    problems.raise_if_any()


@transaction.atomic
@rollups.batched
def shipment_create(*, order_id: int, fields: dict, actor=None, source=OrderSource.API) -> Shipment:
    """Record a shipment of some units (`items`: [{order_item_id, quantity}]) or, without
    items, of every unit not yet in a shipment. Not for cancelled, refunded or failed orders."""
    order = order_for_update(order_id)
    trail = order_trail(order)
    if order.status in TERMINAL:
        raise rule_broken(f"A {order.status} order ships nothing.", code="order_closed", status=409)
    ordered = dict(OrderItem.objects.filter(order=order).values_list("pk", "quantity"))
    problems = Problems()
    wanted: dict[int, int] = defaultdict(int)
    if fields.get("items"):
        for position, entry in enumerate(fields["items"]):
            if entry["order_item_id"] not in ordered:
                problems.add(
                    f"items.{position}.order_item_id",
                    f"Order {order.pk} has no item {entry['order_item_id']}.",
                )
            else:
                wanted[entry["order_item_id"]] += entry["quantity"]
        problems.raise_if_any()
    else:
        claimed = _quantities(order, CLAIMING)
        wanted.update(
            {
                pk: quantity - claimed.get(pk, 0)
                for pk, quantity in ordered.items()
                if quantity > claimed.get(pk, 0)
            }
        )
        if not wanted:
            raise rule_broken(
                "Every unit of this order is already in a shipment.", code="nothing_to_ship"
            )
    status = fields.get("status") or ShipmentStatus.SHIPPED
    if status in CLAIMING:
        _check_units(order, wanted)
    shipment = Shipment(order=order, status=status)
    for name in FIELDS:
        if name in fields:
            setattr(shipment, name, fields[name] or "")
    for name in ("shipped_at", "delivered_at"):
        if fields.get(name):
            setattr(shipment, name, fields[name])
    _stamp(shipment)
    shipment.save()
    ShipmentItem.objects.bulk_create(
        ShipmentItem(shipment=shipment, order_item_id=pk, quantity=units)
        for pk, units in wanted.items()
    )
    refresh_fulfillment(order, actor=actor, source=source)
    trail.record(note=f"Shipment {shipment.pk} recorded ({shipment.status}).")
    return shipment


@transaction.atomic
@rollups.batched
def shipment_update(
    *, shipment_id: int, fields: dict, actor=None, source=OrderSource.API
) -> Shipment:
    """Status (pending, shipped, delivered, returned, cancelled), carrier and tracking."""
    order, shipment = lock_order_of(Shipment, shipment_id, "shipment")
    trail = order_trail(order)
    status = fields.get("status", shipment.status)
    if status in CLAIMING and shipment.status not in CLAIMING:
        units = dict(shipment.items.values_list("order_item_id", "quantity"))
        _check_units(order, units, exclude_shipment=shipment.pk)
    shipment.status = status
    for name in FIELDS:
        if name in fields:
            setattr(shipment, name, fields[name] or "")
    for name in ("shipped_at", "delivered_at"):
        if name in fields:
            setattr(shipment, name, fields[name])
    _stamp(shipment)
    shipment.save()
    refresh_fulfillment(order, actor=actor, source=source)
    trail.record(note=f"Shipment {shipment.pk} changed ({shipment.status}).")
    return shipment


@transaction.atomic
@rollups.batched
def shipment_delete(*, shipment_id: int, actor=None, source=OrderSource.API) -> None:
    order, shipment = lock_order_of(Shipment, shipment_id, "shipment")
    trail = order_trail(order)
    shipment.delete()
    refresh_fulfillment(order, actor=actor, source=source)
    trail.record(note=f"Shipment {shipment_id} deleted.")
