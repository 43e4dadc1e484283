"""The `cart` section of the store settings: limits and how long idle carts are kept."""

from __future__ import annotations

from rest_framework import serializers

from store.common.params import StrictIntegerField
from store.settings.registry import Section, register


class CartSettings(serializers.Serializer):
    max_lines = StrictIntegerField(
        min_value=1, max_value=1000, default=100, help_text="Different items a cart may hold."
    )
    max_quantity = StrictIntegerField(
        min_value=1,
        max_value=100_000,
        default=100,
        help_text="Units of one item in a cart (and so in a checkout's stock hold): more than "
        "a household buys, few enough that one cart cannot hold a store's whole stock.",
    )
    guest_cart_days = StrictIntegerField(
        min_value=1,
        max_value=3650,
        default=30,
        help_text="A guest's cart unchanged this long is deleted (the cookie lasts 30 days).",
    )
    customer_cart_days = StrictIntegerField(
        min_value=1,
        max_value=3650,
        default=180,
        help_text="A logged-in customer's cart unchanged this long is deleted.",
    )


CART = register(Section("cart", "Cart", CartSettings))
