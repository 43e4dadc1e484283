"""The `payments` section of the store settings: the gateways the checkout offers."""

from __future__ import annotations

from rest_framework import serializers

from store.common.params import (
    StrictBooleanField,
    StrictCharField,
    StrictDecimalField,
    StrictIntegerField,
)
from store.settings.registry import Section, register

#: The longest hold of an unpaid bank-transfer order: 60 days.
BANK_TRANSFER_MAX_HOLD_HOURS = 60 * 24


def _text(default: str, *, max_length: int = 500, help_text: str = "") -> StrictCharField:
    return StrictCharField(
        max_length=max_length, default=default, allow_blank=True, help_text=help_text
    )


class PaymentSettings(serializers.Serializer):
    sandbox_card_enabled = StrictBooleanField(
        default=True,
        help_text="Offer card payments through the local sandbox provider (test cards only, "
        "no money moves; refused unless PAYMENT_SANDBOX_ALLOWED or DEBUG).",
    )
    sandbox_card_title = _text("Credit or debit card", max_length=100)
    sandbox_card_description = _text(
        "Pay now by card. Sandbox: use a test card such as 4242 4242 4242 4242; no money moves."
    )
    bank_transfer_enabled = StrictBooleanField(default=True)
    bank_transfer_title = _text("Direct bank transfer", max_length=100)
    bank_transfer_description = _text(
        "Pay by bank transfer, with the order number as the payment reference. The order "
        "ships once the payment has arrived."
    )
    bank_transfer_account_name = _text("", max_length=200)
    bank_transfer_bank_name = _text("", max_length=200)
    bank_transfer_iban = _text("", max_length=64)
    bank_transfer_bic = _text("", max_length=16)
    bank_transfer_hold_hours = StrictIntegerField(
        min_value=1,
        max_value=BANK_TRANSFER_MAX_HOLD_HOURS,
        default=24,
        help_text="An order paid by bank transfer that is still unpaid this many hours after "
        "it was placed is cancelled (its stock and coupon uses come back). Replaces "
        'bank_transfer_hold_days; there is no "never": an unpaid order cannot hold stock '
        "for ever.",
    )
    cash_on_delivery_enabled = StrictBooleanField(default=True)
    cash_on_delivery_title = _text("Cash on delivery", max_length=100)
    cash_on_delivery_description = _text("Pay in cash when the order is delivered.")
    stripe_enabled = StrictBooleanField(
        default=False,
        help_text="Card payments by Stripe PaymentIntents (its config's provider; the sandbox "
        "without one, where allowed).",
    )
    stripe_title = _text("Card (Stripe)", max_length=100)
    stripe_description = _text("Pay by credit or debit card.")
    paypal_enabled = StrictBooleanField(default=False)
    paypal_title = _text("PayPal", max_length=100)
    paypal_description = _text("Pay with your PayPal account.")
    bank_redirect_enabled = StrictBooleanField(default=False)
    bank_redirect_title = _text("Online banking", max_length=100)
    bank_redirect_description = _text("You are sent to your bank to approve the payment.")


class _LimitField(StrictDecimalField):
    """A total limit, kept as text in the JSON settings (`"0.00"`: no limit)."""

    def __init__(self, **kwargs):
        super().__init__(max_digits=12, decimal_places=2, default="0.00", **kwargs)

    def run_validation(self, data=serializers.empty):
        value = super().run_validation(data)
        return str(value) if value is not None else value


class _CountryField(serializers.RegexField):
    def __init__(self, **kwargs):
        super().__init__(r"^[A-Za-z]{2}$", max_length=2, **kwargs)

    def to_internal_value(self, data):
        return super().to_internal_value(data).upper()


GATEWAY_IDS = (
    "sandbox_card",
    "bank_transfer",
    "cash_on_delivery",
    "stripe",
    "paypal",
    "bank_redirect",
)
#: Every gateway's limits and place in the list, declared once for each.
for _position, _gateway in enumerate(GATEWAY_IDS):
    PaymentSettings._declared_fields.update(
        {
            f"{_gateway}_order": StrictIntegerField(
                min_value=0, max_value=1000, default=_position, help_text="Lower comes first."
            ),
            f"{_gateway}_countries": serializers.ListField(
                child=_CountryField(),
                max_length=300,
                default=list,
                help_text="ISO country codes the gateway is offered for (empty: all).",
            ),
            f"{_gateway}_min_total": _LimitField(
                help_text="Offered from this cart total (0: no minimum)."
            ),
            f"{_gateway}_max_total": _LimitField(
                help_text="Offered up to this cart total (0: no maximum)."
            ),
        }
    )


PAYMENTS = register(Section("payments", "Payments", PaymentSettings))
