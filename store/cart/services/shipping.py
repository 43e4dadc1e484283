"""The cart's shipping address and method."""

from __future__ import annotations

from django.db import transaction

from store.cart.models import Cart
from store.cart.services.pricing import cart_state
from store.cart.services.session import cart_for_update, touch
from store.common.errors import invalid_params, rule_broken
from store.common.locations import clean_postcode, clean_region, country_valid
from store.shipping.selectors import method_exists


def clean_address(*, country: str, region: str | None, postcode: str | None) -> dict:
    """The address as stored; 400 naming each bad part."""
    country = (country or "").strip().upper()
    problems: dict[str, list[str]] = {}
    if not country_valid(country):
        problems["country"] = [f"Unknown country code {country!r} (ISO 3166-1 alpha-2, e.g. GR)."]
    cleaned = {"shipping_country": country, "shipping_region": "", "shipping_postcode": ""}
    if "country" not in problems:
        try:
            cleaned["shipping_region"] = clean_region(country, region)
        except ValueError as exc:
            problems["region"] = [str(exc)]
    try:
        cleaned["shipping_postcode"] = clean_postcode(postcode)
    except ValueError as exc:
        problems["postcode"] = [str(exc)]
    if problems:
        raise invalid_params(problems)
    return cleaned


@transaction.atomic
def cart_shipping_address_set(
    *, token: str | None, user=None, country: str, region: str | None, postcode: str | None
) -> Cart:
    """Set the address shipping (and tax) is reckoned for; makes the cart when needed."""
    cleaned = clean_address(country=country, region=region, postcode=postcode)
    cart = cart_for_update(token=token, user=user)
    return cart_destination_set(cart=cart, cleaned=cleaned)


def cart_destination_set(*, cart: Cart, cleaned: dict) -> Cart:
    """Store a cleaned address (clean_address) on a locked cart (the checkout calls it too)."""
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
