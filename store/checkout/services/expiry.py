"""The beat's checkout jobs: the end of an open checkout's hold, and the cancellation of an
order left unpaid past its hold (store.checkout.tasks). Each checkout is re-checked under its
lock, so a doubled or late beat changes nothing twice."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from store.cart.models import Cart
from store.checkout.models import Checkout, CheckoutStatus
from store.checkout.services import holds
from store.coupons import services as coupon_services
from store.orders import services as order_services
from store.orders.choices import (
    OrderSource,
    OrderStatus,
    PaymentStatus,
)
from store.orders.models import Order

BATCH = 200


def checkout_hold_expire(
    *, checkout_id: int, now: datetime | None = None, force: bool = False
) -> bool:
    """Give back the stock and coupon uses of an open checkout whose hold ran out (`force`:
    at once, staff); it becomes expired (a later write takes them again). Answers whether it
    did; idempotent."""
    now = now or timezone.now()
    cart_id = Checkout.objects.filter(pk=checkout_id).values_list("cart_id", flat=True).first()
    with transaction.atomic():
        if cart_id is not None:  # the lock order: the cart, then the checkout
            Cart.objects.select_for_update().filter(pk=cart_id).first()
        due = {} if force else {"expires_at__lte": now}
        checkout = (
            Checkout.objects.select_for_update(skip_locked=True)
            .filter(pk=checkout_id, status=CheckoutStatus.OPEN, **due)
            .first()
        )
        if checkout is None or checkout.cart_id != cart_id:
            return False
        coupon_services.coupon_uses_release(order_reference=checkout.reference, now=now)
        holds.stock_release(checkout=checkout)
        checkout.status = CheckoutStatus.EXPIRED
        checkout.save()
    return True


def checkout_holds_expire(*, now: datetime | None = None) -> int:
    """Beat: every open checkout whose hold ran out (in batches); answers how many."""
    now = now or timezone.now()
    done = 0
    ids = list(
        Checkout.objects.filter(status=CheckoutStatus.OPEN, expires_at__lte=now)
        .order_by("expires_at")
        .values_list("pk", flat=True)[:BATCH]
    )
    for checkout_id in ids:
        done += checkout_hold_expire(checkout_id=checkout_id, now=now)
    return done


def checkout_cancel_unpaid(
    *, checkout_id: int, now: datetime | None = None, force: bool = False
) -> bool:
    """Cancel the order of a checkout left unpaid past `payment_due_at` (`force`: before, by
    staff; it must still have one). Its stock comes back
    through the orders' release task, its coupon uses through the listener of the orders'
    `order_released`). An order paid meanwhile, or moved on by staff, is left alone. Answers
    whether it cancelled; idempotent."""
    now = now or timezone.now()
    with transaction.atomic():
        due = {"payment_due_at__isnull": False} if force else {"payment_due_at__lte": now}
        checkout = (
            Checkout.objects.select_for_update(skip_locked=True)
            .filter(pk=checkout_id, **due)
            .first()
        )
        if checkout is None:
            return False
        checkout.payment_due_at = None
        order = (
            Order.objects.select_for_update().filter(pk=checkout.order_id).first()
            if checkout.order_id
            else None
        )
        cancelled = False
        if order is None:
            checkout.status = CheckoutStatus.CANCELLED
        elif order.payment_status == PaymentStatus.UNPAID and order.status in (
            OrderStatus.PENDING,
            OrderStatus.ON_HOLD,
        ):
            order_services.order_status_set(
                order_id=order.pk,
                status=OrderStatus.CANCELLED,
                note="Unpaid past its hold: cancelled; stock and coupon uses given back.",
                source=OrderSource.SYSTEM,
            )
            checkout.status = CheckoutStatus.CANCELLED
            cancelled = True
        elif checkout.status == CheckoutStatus.AWAITING_PAYMENT:
            checkout.status = CheckoutStatus.COMPLETED  # paid, or moved on by staff
            checkout.completed_at = now
        checkout.save()
    return cancelled


def checkouts_cancel_unpaid(*, now: datetime | None = None) -> int:
    """Beat: the orders left unpaid past their hold (in batches); answers how many."""
    now = now or timezone.now()
    ids = list(
        Checkout.objects.filter(payment_due_at__lte=now)
        .order_by("payment_due_at")
        .values_list("pk", flat=True)[:BATCH]
    )
    return sum(checkout_cancel_unpaid(checkout_id=pk, now=now) for pk in ids)
