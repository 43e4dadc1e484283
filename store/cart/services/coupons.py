"""Coupons on the cart: apply, remove, and validate without applying.

A coupon is checked when it is applied (each refusal has its own code, store.coupons.rules)
and again whenever the cart is priced; its use is counted when the order is placed.
Applying an individual-use coupon replaces the coupons already applied (as WooCommerce does);
no other coupon can join an individual-use one.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from common.errors import ServiceError
from store.cart.models import Cart, CartCoupon
from store.cart.services.pricing import CartState, cart_state
from store.cart.services.session import cart_find, cart_for_update, touch
from store.coupons import selectors as coupon_selectors
from store.coupons.models import Coupon
from store.coupons.rules import check_active, refused
from store.coupons.selectors import Customer


def _coupon(code: str) -> Coupon:
    coupon = coupon_selectors.coupon_by_code(code)
    if coupon is None:
        raise refused("coupon_not_found", f"Coupon {(code or '').strip()!r} does not exist.")
    return coupon


def _check(cart: Cart, coupon: Coupon, *, user) -> CartState:
    """Every check of applying `coupon` to `cart`; answers the cart priced with it."""
    if CartCoupon.objects.filter(cart=cart, coupon=coupon).exists():
        raise refused("coupon_already_applied", f"Coupon {coupon.code!r} is already applied.")
    check_active(coupon, now=timezone.now())
    coupon_selectors.check_usage(coupon, customer=Customer.of(user))
    return cart_state(cart, preview_coupon=coupon, alone=coupon.individual_use, tidy=False)


@transaction.atomic
def cart_coupon_apply(*, token: str | None, user=None, code: str) -> tuple[Cart, list[dict]]:
    """Apply `code` to the request's cart; answers the cart and notices (coupons replaced)."""
    coupon = _coupon(code)
    cart = cart_for_update(token=token, user=user, create=False)
    if cart is None or not cart.items.exists():
        raise refused("coupon_empty_cart", "Add products to your cart before applying a coupon.")
    _check(cart, coupon, user=user)
    notices = []
    if coupon.individual_use:
        others = CartCoupon.objects.filter(cart=cart)
        replaced = list(others.values_list("coupon__code", flat=True))
        if replaced:
            others.delete()
            notices.append(
                {
                    "code": "coupons_replaced",
                    "message": f"Coupon {coupon.code!r} cannot be combined with other coupons: "
                    f"{', '.join(replaced)} removed.",
                }
            )
    CartCoupon.objects.create(cart=cart, coupon=coupon, applied_at=timezone.now())
    touch(cart)
    return cart, notices


@transaction.atomic
def cart_coupon_remove(*, token: str | None, user=None, code: str) -> Cart:
    cart = cart_for_update(token=token, user=user, create=False)
    text = (code or "").strip()
    link = (
        CartCoupon.objects.filter(cart=cart, coupon__code__iexact=text).first()
        if cart is not None
        else None
    )
    if link is None:
        raise refused("coupon_not_applied", f"Coupon {text!r} is not applied to your cart.")
    link.delete()
    touch(cart)
    return cart


@dataclass
class Validation:
    valid: bool
    coupon: Coupon | None
    state: CartState | None
    error: ServiceError | None
    cart_checked: bool


def cart_coupon_validate(*, token: str | None, user=None, code: str) -> Validation:
    """Whether `code` would apply to the request's cart, and what it would take off. Saves
    nothing. With an empty cart only what does not depend on the cart is checked (the coupon
    exists, is active, has not expired, has uses left)."""
    try:
        coupon = _coupon(code)
    except ServiceError as exc:
        return Validation(False, None, None, exc, False)
    cart = cart_find(token=token, user=user)
    has_items = cart is not None and cart.items.exists()
    try:
        if has_items:
            state = _check(cart, coupon, user=user)
        else:
            check_active(coupon, now=timezone.now())
            coupon_selectors.check_usage(coupon, customer=Customer.of(user))
            state = None
    except ServiceError as exc:
        return Validation(False, coupon, None, exc, has_items)
    return Validation(True, coupon, state, None, has_items)
