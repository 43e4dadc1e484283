"""Totals and the payment status, computed by the server from lines and payments."""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Count, Q, Sum
from django.utils import timezone

from store.common.errors import invalid_params
from store.common.money import money
from store.orders import events as order_events
from store.orders.choices import (
    HistoryField,
    OrderSource,
    PaymentKind,
    PaymentRecordStatus,
    PaymentStatus,
)
from store.orders.models import Order, OrderItem, Payment
from store.orders.services.common import record

ZERO = Decimal("0.00")


def payment_status_for(*, total: Decimal, paid: Decimal, refunded: Decimal) -> str:
    """From completed payments and refunds: refunded when everything paid went back,
    partially refunded when some did, else paid when the payments cover the total,
    partially paid when they cover part of it, else unpaid."""
    net = paid - refunded
    if refunded > 0:
        return PaymentStatus.REFUNDED if net <= 0 else PaymentStatus.PARTIALLY_REFUNDED
    if paid > 0 and net >= total:
        return PaymentStatus.PAID
    if paid > 0:
        return PaymentStatus.PARTIALLY_PAID
    return PaymentStatus.UNPAID


def total_for(
    *, subtotal: Decimal, discount_total: Decimal, shipping_total: Decimal, tax_total: Decimal
) -> Decimal:
    """subtotal - discount + shipping + tax; a discount larger than what it discounts is
    refused (400 naming discount_total)."""
    total = subtotal - discount_total + shipping_total + tax_total
    if total < 0:
        raise invalid_params(
            {
                "discount_total": [
                    f"The discount ({discount_total}) is larger than the order "
                    f"({subtotal + shipping_total + tax_total})."
                ]
            }
        )
    return total


def recalculate(
    order: Order,
    *,
    payments_changed: bool = True,
    actor=None,
    source: str = OrderSource.API,
    note: str = "",
) -> Order:
    """Store the order's totals from its lines and its amounts paid from its payments; the
    payment status follows (a change is recorded in the history).

    total = subtotal - discount_total + shipping_total + tax_total, where tax_total is the
    lines' tax plus shipping_tax. A discount larger than what it discounts is refused.
    """
    lines = OrderItem.objects.filter(order=order).aggregate(
        subtotal=Sum("subtotal"), tax=Sum("tax"), count=Sum("quantity"), lines=Count("id")
    )
    order.subtotal = money(lines["subtotal"] or ZERO)
    order.tax_total = money((lines["tax"] or ZERO) + order.shipping_tax)
    order.item_count = lines["count"] or 0
    order.total = money(
        total_for(
            subtotal=order.subtotal,
            discount_total=order.discount_total,
            shipping_total=order.shipping_total,
            tax_total=order.tax_total,
        )
    )
    fields = ["subtotal", "tax_total", "item_count", "total", "updated_at"]
    if payments_changed:
        done = Payment.objects.filter(order=order, status=PaymentRecordStatus.COMPLETED)
        sums = done.aggregate(
            paid=Sum("amount", filter=Q(kind=PaymentKind.PAYMENT)),
            refunded=Sum("amount", filter=Q(kind=PaymentKind.REFUND)),
        )
        order.amount_paid = money(sums["paid"] or ZERO)
        order.amount_refunded = money(sums["refunded"] or ZERO)
        fields += ["amount_paid", "amount_refunded"]
    status = payment_status_for(
        total=order.total, paid=order.amount_paid, refunded=order.amount_refunded
    )
    if status != order.payment_status:
        record(
            order,
            HistoryField.PAYMENT_STATUS,
            order.payment_status,
            status,
            actor=actor,
            source=source,
            note=note or "Follows the amounts paid.",
        )
        order.payment_status = status
        fields.append("payment_status")
        if status == PaymentStatus.PAID and order.paid_at is None:
            order.paid_at = timezone.now()
            fields.append("paid_at")
    order.save(update_fields=fields)
    if "payment_status" in fields and order.payment_status == PaymentStatus.PAID:
        order_events.order_paid(order)
    return order
