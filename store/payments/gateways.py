"""The payment methods the checkout offers, behind one interface.

- `sandbox_card`: a card charged at once through the local sandbox card provider
  (providers/sandbox.py). Sandbox payments move no money, so the method works only with DEBUG
  or PAYMENT_SANDBOX_ALLOWED (as the licence renewals' sandbox); elsewhere it is not offered
  and choosing it answers 503 `payments_not_configured`.
- `bank_transfer`: offline; the order waits on hold for the transfer, with the store's bank
  details and the order number as the reference; left unpaid `bank_transfer_hold_hours` (24),
  at most the checkout's `offline_payment_hold_minutes` (120), it is cancelled.
- `cash_on_delivery`: offline; the order goes to processing and is paid when delivered.
- `stripe` (card intent), `paypal` (wallet order, created then captured), `bank_redirect`
  (the shopper is sent to the bank): online gateways paid after the order is placed, through
  the provider of the gateway's active config (store.payments.models.GatewayConfig: Stripe,
  PayPal or the local sandbox); with no config, the sandbox where it is allowed.

Titles, descriptions, order, country and total limits, bank details and whether each is
offered are the store settings' `payments` section (/payment/gateways edits them there).
"""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from typing import ClassVar

from django.conf import settings
from rest_framework import serializers
from stdnum import luhn

from common.api.fields import IntegerField
from store.common.errors import invalid_params
from store.payments.models import GatewayConfig
from store.payments.providers.base import Card, CardProvider, PaymentsNotConfigured
from store.payments.providers.sandbox import TEST_CARDS, SandboxCardProvider

CARD = "card"
OFFLINE = "offline"
WALLET = "wallet"
REDIRECT = "redirect"
KINDS = (CARD, OFFLINE, WALLET, REDIRECT)


class Gateway:
    id: ClassVar[str] = ""
    kind: ClassVar[str] = OFFLINE
    #: The order's status once placed while unpaid ("pending", "on_hold", "processing").
    placed_status: ClassVar[str] = "pending"
    #: Whether the payment is taken at the checkout (complete) rather than later, offline.
    pays_at_checkout: ClassVar[bool] = False

    def _value(self, config: dict, name: str):
        return config["payments"][f"{self.id}_{name}"]

    def enabled(self, config: dict) -> bool:
        return bool(self._value(config, "enabled"))

    def order(self, config: dict) -> int:
        return self._value(config, "order")

    def applies(self, config: dict, *, country: str = "", total: Decimal | None = None) -> bool:
        """Offered for a cart shipped to `country` with `total` (either unknown: not limited
        by it): the gateway's countries (empty: all) and its min/max total (0: none)."""
        return not self.unavailable_because(config, country=country, total=total)

    def unavailable_because(
        self, config: dict, *, country: str = "", total: Decimal | None = None
    ) -> str:
        """Why the gateway's limits leave out a cart shipped to `country` with `total` ("":
        they do not). The one rule of `applies`, the lists and the checkout's refusal."""
        countries = self._value(config, "countries")
        if country and countries and country.upper() not in countries:
            return f"it is not offered in {country.upper()} (only {', '.join(countries)})"
        if total is not None:
            low = Decimal(self._value(config, "min_total"))
            high = Decimal(self._value(config, "max_total"))
            if low and total < low:
                return f"it is offered from a total of {low} (this one is {total})"
            if high and total > high:
                return f"it is offered up to a total of {high} (this one is {total})"
        return ""

    def configured(self) -> bool:
        return True

    def ensure_configured(self) -> None:
        """Raise when the method cannot take payments on this server."""

    def title(self, config: dict) -> str:
        return self._value(config, "title") or self.id

    def description(self, config: dict) -> str:
        return self._value(config, "description")

    def instructions(self, config: dict, *, order_number: str = "") -> str:
        """What the shopper does next (shown on the confirmation and in the e-mail)."""
        return ""

    def unpaid_hold(self, config: dict) -> timedelta | None:
        """How long an order placed with this method may stay unpaid before it is cancelled
        (None: never). Card methods use the checkout's unpaid-order hold instead."""
        return None

    def clean_data(self, data) -> Card | None:
        """The payment data of a complete request, checked (400 naming each bad field)."""
        return None

    def describe(self, config: dict) -> dict:
        return {
            "id": self.id,
            "title": self.title(config),
            "description": self.description(config),
            "type": self.kind,
            "instructions": self.instructions(config),
            "test_cards": [],
        }


class CardDataSerializer(serializers.Serializer):
    card_number = serializers.CharField(max_length=30, help_text="12 to 19 digits.")
    exp_month = IntegerField(column="PositiveSmallIntegerField", min_value=1, max_value=12)
    exp_year = IntegerField(
        column="PositiveSmallIntegerField",
        min_value=0,
        max_value=2199,
        help_text="Four digits (two are read as 20YY).",
    )
    cvc = serializers.CharField(max_length=4, help_text="3 digits (4 for American Express).")
    holder = serializers.CharField(max_length=100, required=False, allow_blank=True)


_SEPARATORS = re.compile(r"[\s-]")


class SandboxCardGateway(Gateway):
    id = "sandbox_card"
    kind = CARD
    placed_status = "pending"
    pays_at_checkout = True

    def __init__(self, provider: CardProvider | None = None) -> None:
        self.provider = provider or SandboxCardProvider()

    def configured(self) -> bool:
        return bool(settings.PAYMENT_SANDBOX_ALLOWED)

    def ensure_configured(self) -> None:
        if not self.configured():
            raise PaymentsNotConfigured(
                "Card payments are not configured on this server: the sandbox card provider "
                "moves no money and is off in production. Choose another payment method; the "
                "operator sets PAYMENT_SANDBOX_ALLOWED=1 only on a staging site."
            )

    def describe(self, config: dict) -> dict:
        return {**super().describe(config), "test_cards": TEST_CARDS}

    def clean_data(self, data) -> Card:
        if not isinstance(data, dict):
            raise invalid_params(
                {"payment_data": ["Send the card: card_number, exp_month, exp_year and cvc."]}
            )
        serializer = CardDataSerializer(data=data)
        problems: dict[str, list[str] | str] = {}
        if not serializer.is_valid():
            for name, messages in serializer.errors.items():
                problems[f"payment_data.{name}"] = [str(m) for m in messages]
        values = serializer.validated_data if not problems else {}
        number = _SEPARATORS.sub("", str(data.get("card_number", "")))
        if "payment_data.card_number" not in problems and not (
            number.isdigit() and 12 <= len(number) <= 19 and luhn.is_valid(number)
        ):
            problems["payment_data.card_number"] = ["Not a valid card number."]
        cvc = str(data.get("cvc", ""))
        if "payment_data.cvc" not in problems and not (cvc.isdigit() and 3 <= len(cvc) <= 4):
            problems["payment_data.cvc"] = ["The security code has 3 or 4 digits."]
        if problems:
            raise invalid_params(problems)
        year = values["exp_year"]
        return Card(
            number=number,
            exp_month=values["exp_month"],
            exp_year=year + 2000 if year < 100 else year,
            cvc=cvc,
            holder=values.get("holder", ""),
        )


def bank_transfer_hold(config: dict) -> timedelta:
    """How long an unpaid bank-transfer order keeps its stock: the payments' hours, at most
    the checkout's `offline_payment_hold_minutes` (an unpaid order holds real stock: a longer
    wait is a hoarder's). The instructions and the order's deadline both read this."""
    hours = timedelta(hours=config["payments"]["bank_transfer_hold_hours"])
    return min(hours, timedelta(minutes=config["checkout"]["offline_payment_hold_minutes"]))


def _in_words(hold: timedelta) -> str:
    """A hold in words: whole days as days ("3 days"), whole hours as hours, else minutes."""
    minutes = int(hold.total_seconds()) // 60
    if minutes % (24 * 60) == 0:
        amount, unit = minutes // (24 * 60), "day"
    elif minutes % 60 == 0:
        amount, unit = minutes // 60, "hour"
    else:
        amount, unit = minutes, "minute"
    return f"{amount} {unit}{'s' if amount != 1 else ''}"


class BankTransferGateway(Gateway):
    id = "bank_transfer"
    placed_status = "on_hold"

    def instructions(self, config: dict, *, order_number: str = "") -> str:
        payments = config["payments"]
        parts = [
            f"{label}: {payments[key]}"
            for label, key in (
                ("Account holder", "bank_transfer_account_name"),
                ("Bank", "bank_transfer_bank_name"),
                ("IBAN", "bank_transfer_iban"),
                ("BIC", "bank_transfer_bic"),
            )
            if payments[key]
        ]
        reference = order_number or "your order number"
        parts.append(f"Reference: {reference}")
        parts.append(f"Unpaid orders are cancelled after {_in_words(bank_transfer_hold(config))}.")
        return "\n".join(parts)

    def unpaid_hold(self, config: dict) -> timedelta | None:
        return bank_transfer_hold(config)


class CashOnDeliveryGateway(Gateway):
    id = "cash_on_delivery"
    placed_status = "processing"

    def instructions(self, config: dict, *, order_number: str = "") -> str:
        return "Pay in cash when the order is delivered."


class OnlineGateway(Gateway):
    """Paid after placing, at the provider of the gateway's active config (the sandbox
    without one, where allowed); the order waits unpaid for the checkout's unpaid-order hold."""

    placed_status = "pending"
    #: The providers a config of this gateway may name.
    providers: ClassVar[tuple[str, ...]] = ("sandbox",)

    def configured(self) -> bool:
        """An active config, or the sandbox is allowed here."""
        return bool(settings.PAYMENT_SANDBOX_ALLOWED) or (
            GatewayConfig.objects.filter(gateway=self.id, active=True).exists()
        )

    def ensure_configured(self) -> None:
        if not self.configured():
            raise PaymentsNotConfigured(
                f"The {self.id} gateway has no active config (POST /payment/gateway-config) "
                "and the sandbox is off on this server (PAYMENT_SANDBOX_ALLOWED)."
            )

    def unpaid_hold(self, config: dict) -> timedelta | None:
        return timedelta(minutes=config["checkout"]["unpaid_order_hold_minutes"])


class StripeGateway(OnlineGateway):
    id = "stripe"
    kind = CARD
    providers = ("stripe", "sandbox")

    def instructions(self, config: dict, *, order_number: str = "") -> str:
        return "Pay by card: POST /payment/stripe/intent, then confirm with its client secret."


class PayPalGateway(OnlineGateway):
    id = "paypal"
    kind = WALLET
    providers = ("paypal", "sandbox")

    def instructions(self, config: dict, *, order_number: str = "") -> str:
        return "Pay with PayPal: approve the PayPal order, then it is captured."


class BankRedirectGateway(OnlineGateway):
    id = "bank_redirect"
    kind = REDIRECT
    providers = ("sandbox",)

    def instructions(self, config: dict, *, order_number: str = "") -> str:
        return "You are sent to your bank to approve the payment."


GATEWAYS: dict[str, Gateway] = {
    gateway.id: gateway
    for gateway in (
        SandboxCardGateway(),
        BankTransferGateway(),
        CashOnDeliveryGateway(),
        StripeGateway(),
        PayPalGateway(),
        BankRedirectGateway(),
    )
}
ONLINE: dict[str, OnlineGateway] = {
    gateway.id: gateway for gateway in GATEWAYS.values() if isinstance(gateway, OnlineGateway)
}
