"""The `checkout` section of the store settings."""

from __future__ import annotations

from rest_framework import serializers

from store.common.params import StrictBooleanField, StrictCharField, StrictIntegerField
from store.settings.registry import Section, register


class CheckoutSettings(serializers.Serializer):
    guest_checkout = StrictBooleanField(
        default=True, help_text="Shoppers may check out without an account."
    )
    account_creation = StrictBooleanField(
        default=True, help_text="Shoppers may create an account at the checkout."
    )
    require_phone = StrictBooleanField(
        default=False, help_text="The billing address needs a phone number."
    )
    hold_minutes = StrictIntegerField(
        min_value=1,
        max_value=1440,
        default=10,
        help_text="An open checkout holds its stock and coupon uses this long after its last "
        "write (WooCommerce: 10).",
    )
    unpaid_order_hold_minutes = StrictIntegerField(
        min_value=1,
        max_value=10080,
        default=60,
        help_text="An order whose card payment failed keeps its stock and coupon uses this "
        "long for another try, then it is cancelled (WooCommerce: 60).",
    )
    guest_order_max_units = StrictIntegerField(
        min_value=1,
        max_value=100_000,
        default=100,
        help_text="Units (all lines together) a guest's checkout may hold, and so an unpaid "
        "guest order; an account with a verified e-mail address is not limited.",
    )
    shopper_hold_percent = StrictIntegerField(
        min_value=1,
        max_value=100,
        default=10,
        help_text="Against stock hoarding: one shopper (a cart session, or a client address) "
        "holds at most this share of an item's stock, or shopper_hold_min_units units when "
        "that is more, across its open checkouts and its orders not yet paid or shipped; a "
        "checkout asking more of an item is refused (409 product_hold_limit) and holds "
        "nothing more. An account with a verified e-mail address is not limited. 100: no "
        "limit but the stock.",
    )
    shopper_hold_min_units = StrictIntegerField(
        min_value=1,
        max_value=100_000,
        default=5,
        help_text="The units of an item one shopper may always hold, however small the share "
        "shopper_hold_percent leaves (whichever is larger).",
    )
    offline_payment_hold_minutes = StrictIntegerField(
        min_value=1,
        max_value=86_400,
        default=120,
        help_text="An order awaiting an offline payment (bank transfer) keeps its stock and "
        "coupon uses at most this long after it is placed, then it is cancelled unless paid "
        "(a shorter payments.bank_transfer_hold_hours applies). Cash on delivery is paid at "
        "the door and is not cancelled for being unpaid.",
    )
    terms_url = StrictCharField(
        max_length=500, default="", allow_blank=True, help_text="The store's terms page."
    )
    order_received_page = StrictCharField(
        max_length=500,
        default="",
        allow_blank=True,
        help_text="The storefront's order-received page, with {order_id}, {order_number} and "
        "{key} placeholders (e.g. https://shop.example.com/order-received/{order_id}?key={key}). "
        "Empty: the API's /order-received/{id}?key= URL.",
    )

    def validate_order_received_page(self, value: str) -> str:
        try:
            value.format(order_id=1, order_number="EC-000001", key="k")
        except (KeyError, IndexError, ValueError) as exc:
            raise serializers.ValidationError(
                f"Only the placeholders {{order_id}}, {{order_number}} and {{key}} ({exc})."
            ) from None
        return value


CHECKOUT = register(Section("checkout", "Checkout", CheckoutSettings))
