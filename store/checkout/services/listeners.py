"""The checkout's listeners: coupon uses follow their order; a checkout follows its cart.

- An order that stops holding what it was sold with (cancelled, refunded, failed, deleted)
  gives back its coupon uses; reopened, it counts them again (store.orders.signals).
- When a guest cart merges into a customer's at log-in (store.cart.signals), the guest
  cart's checkouts move to the customer's cart; the stock either cart held is given back (the
  next write of the checkout takes it again for the merged lines), and an open checkout the
  customer's cart already had is cancelled: the guest's is the latest the shopper made.
"""

from __future__ import annotations

from store.cart.models import Cart
from store.cart.signals import cart_merging
from store.checkout.models import EDITABLE, Checkout, CheckoutStatus
from store.checkout.services import holds
from store.coupons import services as coupon_services
from store.orders.models import Order
from store.orders.signals import order_released, order_reopened


def _reference(order: Order) -> str | None:
    """The coupon uses' reference of the checkout that placed `order` (None: no checkout did)."""
    if not order.placed_by_checkout:
        return None
    pk = Checkout.objects.filter(order_id=order.pk).values_list("pk", flat=True).first()
    return f"checkout:{pk}" if pk is not None else None


def on_order_released(sender, order: Order, **kwargs) -> None:
    reference = _reference(order)
    if reference is not None:
        coupon_services.coupon_uses_release(order_reference=reference)


def on_order_reopened(sender, order: Order, **kwargs) -> None:
    reference = _reference(order)
    if reference is not None:
        coupon_services.coupon_uses_restore(order_reference=reference)


def on_cart_merging(sender, guest: Cart, into: Cart, **kwargs) -> None:
    checkouts = list(
        Checkout.objects.select_for_update().filter(cart__in=[guest, into]).order_by("pk")
    )
    guest_open = any(c.cart_id == guest.pk and c.status in EDITABLE for c in checkouts)
    # The customer's own open checkout first: the guest's takes its place on the cart.
    for checkout in sorted(checkouts, key=lambda c: c.cart_id != into.pk):
        if checkout.status not in EDITABLE:
            if checkout.cart_id == guest.pk:  # placed: keep it reachable from the new cart
                Checkout.objects.filter(pk=checkout.pk).update(cart=into)
            continue
        own = checkout.cart_id == into.pk
        holds.stock_release(checkout=checkout, cart=into if own else guest)
        if own and guest_open:
            coupon_services.coupon_uses_release(order_reference=checkout.reference)
            checkout.status = CheckoutStatus.CANCELLED
            checkout.expires_at = None
        elif not own:
            checkout.cart = into
            checkout.user = checkout.user or into.user
        checkout.save()


def connect() -> None:
    order_released.connect(on_order_released, dispatch_uid="store.checkout.order_released")
    order_reopened.connect(on_order_reopened, dispatch_uid="store.checkout.order_reopened")
    cart_merging.connect(on_cart_merging, dispatch_uid="store.checkout.cart_merging")
