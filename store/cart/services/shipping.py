"""The cart's shipping address and method."""

from __future__ import annotations

from django.db import transaction

from store.cart.models import Cart
from store.cart.services.pricing import cart_state
from store.cart.services.session import cart_for_update, touch
from store.common.addresses import DESTINATION_FIELDS, address_clean, api_problems
from store.common.errors import invalid_params, rule_broken
from store.shipping.selectors import method_exists


def clean_destination(*, country: str | None, region: str | None, postcode: str | None) -> dict:
    """The destination as the cart stores it, cleaned by the store's address rule (the
    country required); 400 naming each bad part (`country`, `region`, `postcode`)."""
    cleaned, problems = address_clean(
        {"country": country, "state": region, "postcode": postcode},
        keys=DESTINATION_FIELDS,
        required=("country",),
    )
    if problems:
        raise invalid_params(api_problems(problems))
    return {
        "shipping_country": cleaned["country"],
        "shipping_region": cleaned.get("state", ""),
        "shipping_postcode": cleaned.get("postcode", ""),
    }


@transaction.atomic
def cart_shipping_address_set(
    *,
    token: str | None,
    user=None,
    country: str | None,
    region: str | None,
    postcode: str | None,
) -> Cart:
    """Set the address shipping (and tax) is reckoned for; makes the cart when needed."""
    cleaned = clean_destination(country=country, region=region, postcode=postcode)
    cart = cart_for_update(token=token, user=user)
    return cart_destination_set(cart=cart, cleaned=cleaned)


def cart_destination_set(*, cart: Cart, cleaned: dict) -> Cart:
    """Store a cleaned destination (clean_destination) on a locked cart (the checkout calls
    it too)."""
    for name, value in cleaned.items():
        setattr(cart, name, value)
    cart.save(update_fields=[*cleaned, "updated_at"])
    touch(cart)
    return cart


@transaction.atomic
def cart_shipping_method_set(*, token: str | None, user=None, method_id: int) -> Cart:
    """Choose a shipping method: only one available for the cart's address and contents."""
    cart = cart_for_update(token=token, user=user, create=False)
    return cart_method_choose(cart=cart, method_id=method_id)


def cart_method_choose(*, cart: Cart | None, method_id: int) -> Cart:
    """Choose a method for a locked cart (the checkout calls it too)."""
    if not method_exists(method_id):
        raise rule_broken(
            f"No shipping method with id {method_id}.", code="shipping_method_not_found"
        )
    state = cart_state(cart) if cart is not None else None
    if state is None or not state.items:
        raise rule_broken(
            "Add products to your cart before choosing how to ship them.", code="cart_empty"
        )
    if not any(quote.method.pk == method_id for quote in state.quotes):
        where = state.location.country + (
            f" {state.location.postcode}" if state.location.postcode else ""
        )
        raise rule_broken(
            f"Shipping method {method_id} is not available for this cart ({where}): choose one "
            "of GET /cart/shipping-methods.",
            code="shipping_method_unavailable",
        )
    cart.shipping_method_id = method_id
    cart.save(update_fields=["shipping_method"])
    touch(cart)
    return cart
