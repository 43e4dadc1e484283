"""The loyalty points' write: an order's points brought up to date, idempotently (earned once
per paid order of a customer with an account, reversed once on a refund)."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

from django.conf import settings
from django.db import transaction

from store.customers.models import Customer
from store.orders.choices import OrderStatus, PaymentStatus
from store.orders.models import Order
from theme.modules import selectors as kernel
from theme.modules.points.models import PointsEntry, PointsKind

REFUNDED_PAYMENTS = (PaymentStatus.REFUNDED, PaymentStatus.PARTIALLY_REFUNDED)


def points_for(total: Decimal) -> int:
    return int((total * settings.THEME_POINTS_PER_UNIT).to_integral_value(rounding=ROUND_DOWN))


def points_may_change(order: Order) -> bool:
    """Whether `points_sync` could write anything for the order as it stands: points are
    earned by a paid order of a customer and reversed by a refund, so an order without a
    customer, or neither paid nor refunded, has none to change."""
    if order.customer_id is None:
        return False
    return (
        order.status == OrderStatus.REFUNDED
        or order.payment_status == PaymentStatus.PAID
        or order.payment_status in REFUNDED_PAYMENTS
    )


def points_sync(*, order_id: int) -> PointsEntry | None:
    """Bring an order's points up to date (idempotent; run after the order's commit): a paid
    order of a customer with an account earns points once; a refunded one (in full or in
    part, or moved to refunded) has them reversed once. Answers the entry written, if any."""
    if not kernel.module_active("points"):
        return None
    with transaction.atomic():
        order = Order.objects.select_for_update().filter(pk=order_id).first()
        if order is None or order.customer_id is None or not points_may_change(order):
            return None
        user_id = (
            Customer.objects.filter(pk=order.customer_id).values_list("user_id", flat=True).first()
        )
        if user_id is None:
            return None
        entries = {e.kind: e for e in PointsEntry.objects.filter(order=order)}
        earned = entries.get(PointsKind.EARNED)
        refunded = order.status == OrderStatus.REFUNDED or order.payment_status in REFUNDED_PAYMENTS
        if earned is None:
            if refunded or order.payment_status != PaymentStatus.PAID:
                return None
            if order.status in (OrderStatus.CANCELLED, OrderStatus.FAILED):
                return None
            points = points_for(order.total)
            if points <= 0:
                return None
            return PointsEntry.objects.create(
                user_id=user_id,
                order=order,
                kind=PointsKind.EARNED,
                points=points,
                note=f"Order {order.order_number}",
            )
        if refunded and PointsKind.REVERSED not in entries:
            return PointsEntry.objects.create(
                user_id=earned.user_id,
                order=order,
                kind=PointsKind.REVERSED,
                points=-earned.points,
                note=f"Refund of order {order.order_number}",
            )
    return None
