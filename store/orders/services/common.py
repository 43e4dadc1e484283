"""Helpers shared by the order services: locks, the history, editability."""

from __future__ import annotations

from django.db.models import QuerySet

from common import audit
from common.compiled import CompiledQuery, insert
from store.common.accounts import logged_in
from store.common.errors import not_found, rule_broken
from store.orders.choices import EDITABLE, OrderSource
from store.orders.models import Order, OrderStatusChange
from store.reports import rollups

# The fields of an order its audit trail follows (common.audit).
AUDITED_FIELDS = (
    "status",
    "payment_status",
    "fulfillment_status",
    "currency",
    "customer",
    "billing_address",
    "shipping_address",
    "payment_method",
    "payment_method_title",
    "shipping_method",
    "shipping_method_title",
    "customer_note",
    "admin_note",
    "vat_number",
    "subtotal",
    "discount_total",
    "shipping_total",
    "shipping_tax",
    "tax_total",
    "total",
    "amount_paid",
    "amount_refunded",
    "item_count",
    "paid_at",
    "completed_at",
)


def order_trail(order: Order) -> audit.Tracker:
    """Snapshot a locked order; the service calls `.record()` once its change is made."""
    return audit.track(order, AUDITED_FIELDS)


def _order_lock(with_customer: bool) -> CompiledQuery:
    def build(order_id: int) -> QuerySet[Order]:
        queryset: QuerySet[Order] = rollups.with_watermark(
            Order.objects.select_for_update(of=("self",))
        )
        if with_customer:
            queryset = queryset.select_related("customer")
        return queryset.filter(pk=order_id)

    return CompiledQuery(build, (-1,), (-2,))


# Every change of an order starts here: compiled once per connection (common.compiled).
_ORDER_LOCKS = {True: _order_lock(True), False: _order_lock(False)}


def order_for_update(order_id: int, *, with_customer: bool = False) -> Order:
    """Lock an order's row: every change of an order, its lines, payments, shipments and the
    stock it holds happens under this lock (taken before any product or stock lock). The
    reports' watermark is read in the same statement (rollups.with_watermark).

    `with_customer` reads the customer along (not locked): a service whose caller answers the
    full order from the instance it returns (the status moves) needs no read of its own."""
    found = _ORDER_LOCKS[with_customer].instances(order_id)
    if not found:
        raise not_found("order", order_id)
    order: Order = found[0]
    rollups.order_locked(order)  # what it adds to the reports before the change
    return order


def lock_order_of(model, pk: int, resource: str):
    """Lock the order a child row (item, payment, shipment) belongs to; answer (order, row)."""
    order_id = model.objects.filter(pk=pk).values_list("order_id", flat=True).first()
    if order_id is None:
        raise not_found(resource, pk)
    order = order_for_update(order_id)
    row = model.objects.filter(pk=pk, order_id=order.pk).first()
    if row is None:  # deleted while we waited for the lock
        raise not_found(resource, pk)
    return order, row


def record(
    order: Order,
    field: str,
    old: str,
    new: str,
    *,
    actor=None,
    source: str = OrderSource.API,
    note: str = "",
) -> OrderStatusChange:
    return insert(  # compiled once (common.compiled): every status change writes one
        OrderStatusChange(
            order=order,
            field=field,
            from_value=old or "",
            to_value=new,
            note=(note or "")[:255],
            source=source,
            actor=logged_in(actor),
        )
    )


def ensure_editable(order: Order) -> None:
    if order.status not in EDITABLE:
        raise rule_broken(
            f"The items of a {order.status} order cannot change; only pending, on-hold and "
            "processing orders are edited.",
            code="order_not_editable",
            status=409,
        )
