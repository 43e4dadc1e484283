"""Bodies, queries and answers of the /payment routes."""

from __future__ import annotations

from decimal import Decimal

from rest_framework import serializers

from common.api.fields import IntegerField
from store.common.addresses import CountryField
from store.common.money import MoneyField, money_str
from store.common.params import (
    PageField,
    PerPageField,
    StrictBooleanField,
    StrictCharField,
)
from store.payments.gateways import GATEWAYS, KINDS, ONLINE
from store.payments.models import Mode, Provider
from store.payments.sections import _CountryField, _LimitField

KINDS_TEXT = "One of " + ", ".join(KINDS) + "."


def _key(**kwargs):
    return StrictCharField(max_length=64, help_text="The order's key (order_key).", **kwargs)


# --- Methods and gateways ------------------------------------------------------------------------


class MethodsQuerySerializer(serializers.Serializer):
    country = CountryField(
        required=False, help_text="Instead of the cart's: ISO 3166-1 alpha-2 (any case)."
    )
    total = MoneyField(required=False, help_text="Instead of the cart's total.")


class SandboxTestCardSerializer(serializers.Serializer):
    number = serializers.CharField()
    brand = serializers.CharField()
    result = serializers.CharField()


class OfferedMethodSerializer(serializers.Serializer):
    id = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    type = serializers.CharField(help_text=KINDS_TEXT)
    instructions = serializers.CharField()
    test_cards = SandboxTestCardSerializer(many=True, help_text="Sandbox only.")


class OfferedMethodsSerializer(serializers.Serializer):
    payment_methods = OfferedMethodSerializer(many=True)
    country = serializers.CharField(allow_blank=True, help_text="'' when unknown.")
    total = serializers.CharField()
    currency = serializers.CharField()


class GatewaySettingsSerializer(serializers.Serializer):
    countries = serializers.ListField(
        child=_CountryField(), max_length=300, required=False, help_text="Empty: all."
    )
    min_total = _LimitField(required=False, help_text="0: no minimum.")
    max_total = _LimitField(required=False, help_text="0: no maximum.")
    account_name = StrictCharField(max_length=200, required=False, allow_blank=True)
    bank_name = StrictCharField(max_length=200, required=False, allow_blank=True)
    iban = StrictCharField(max_length=64, required=False, allow_blank=True)
    bic = StrictCharField(max_length=16, required=False, allow_blank=True)
    hold_hours = IntegerField(
        column="PositiveSmallIntegerField", min_value=1, max_value=1440, required=False
    )


class GatewaySerializer(serializers.Serializer):
    id = serializers.CharField(help_text="One of " + ", ".join(GATEWAYS) + ".")
    title = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    type = serializers.CharField(help_text=KINDS_TEXT)
    enabled = serializers.BooleanField()
    order = IntegerField()
    available = serializers.BooleanField(help_text="Can take payments on this server now.")
    online = serializers.BooleanField(help_text="Paid at a provider after the order is placed.")
    providers = serializers.ListField(child=serializers.CharField())
    provider = serializers.CharField(allow_null=True)
    config_id = IntegerField(allow_null=True)
    settings = serializers.DictField(
        help_text="countries, min_total, max_total, and bank_transfer's bank details."
    )


class GatewayListSerializer(serializers.Serializer):
    gateways = GatewaySerializer(many=True)


class GatewayWriteSerializer(serializers.Serializer):
    enabled = StrictBooleanField(required=False)
    order = IntegerField(column="PositiveSmallIntegerField", max_value=1000, required=False)
    title = StrictCharField(max_length=100, required=False, allow_blank=True)
    description = StrictCharField(max_length=500, required=False, allow_blank=True)
    settings = GatewaySettingsSerializer(required=False)

    def to_internal_value(self, data):
        values = super().to_internal_value(data)
        sent = data.get("settings") if isinstance(data, dict) else None
        if isinstance(sent, dict) and "settings" in values:
            # Only the keys sent (an unknown key is refused by the service, by name).
            values["settings"] = {
                **{k: v for k, v in sent.items() if k not in values["settings"]},
                **values["settings"],
            }
        return values


# --- Gateway configs ---------------------------------------------------------------------------


class CredentialsSerializer(serializers.Serializer):
    secret_key = StrictCharField(max_length=255, required=False, allow_blank=True)
    publishable_key = StrictCharField(max_length=255, required=False, allow_blank=True)
    webhook_secret = StrictCharField(max_length=255, required=False, allow_blank=True)
    client_id = StrictCharField(max_length=255, required=False, allow_blank=True)
    client_secret = StrictCharField(max_length=255, required=False, allow_blank=True)
    webhook_id = StrictCharField(max_length=255, required=False, allow_blank=True)

    def to_internal_value(self, data):
        values = super().to_internal_value(data)
        if isinstance(data, dict):
            # A key of no provider goes on: the service refuses it by name, as one of another.
            values.update({key: value for key, value in data.items() if key not in self.fields})
        return values


class ConfigWriteSerializer(serializers.Serializer):
    gateway = serializers.ChoiceField(choices=list(ONLINE))
    provider = serializers.ChoiceField(choices=Provider.choices)
    title = StrictCharField(max_length=100, required=False, allow_blank=True)
    mode = serializers.ChoiceField(choices=Mode.choices, required=False)
    active = StrictBooleanField(
        required=False,
        help_text="Default true on create. Becomes true only when the provider's check of "
        "the credentials passes (see `check` in the answer).",
    )
    credentials = CredentialsSerializer(
        required=False,
        help_text="sandbox: webhook_secret (made when left out); stripe: secret_key, "
        "publishable_key, webhook_secret; paypal: client_id, client_secret, webhook_id. "
        "Merged into the stored ones: a key sent empty removes it; a key sent as its "
        "masked value (as answered) keeps the stored secret.",
    )


class LastCheckSerializer(serializers.Serializer):
    at = serializers.DateTimeField(allow_null=True)
    ok = serializers.BooleanField(allow_null=True)
    message = serializers.CharField(allow_blank=True)


class ConfigSerializer(serializers.Serializer):
    id = IntegerField()
    gateway = serializers.CharField()
    provider = serializers.ChoiceField(choices=Provider.choices)
    title = serializers.CharField(allow_blank=True)
    mode = serializers.ChoiceField(choices=Mode.choices)
    active = serializers.BooleanField()
    credentials = serializers.DictField(
        child=serializers.CharField(allow_blank=True), help_text="Secrets masked: sk_live_…abcd."
    )
    last_check = LastCheckSerializer()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class SaveCheckSerializer(serializers.Serializer):
    ok = serializers.BooleanField(help_text="The provider accepted the credentials.")
    message = serializers.CharField(
        help_text="The provider's answer, or why the check failed (credentials refused or "
        "missing, the provider unreachable)."
    )
    account = serializers.CharField(allow_blank=True, help_text="What the provider named.")
    held_inactive = serializers.BooleanField(
        help_text="The config was to be active (asked, or it was) and is saved inactive "
        "because the check failed; the gateway's other configs were left as they were."
    )


class ConfigSavedSerializer(ConfigSerializer):
    check = SaveCheckSerializer(
        allow_null=True,
        help_text="The provider's check of the credentials that this save ran (also kept as "
        "`last_check`); null when the save changed nothing it depends on (credentials, "
        "provider, mode) and did not make the config active.",
    )


class ConfigListQuerySerializer(serializers.Serializer):
    gateway = serializers.ChoiceField(choices=list(ONLINE), required=False)
    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")


class ConfigPageSerializer(serializers.Serializer):
    configs = ConfigSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


class ConfigTestSerializer(serializers.Serializer):
    id = IntegerField()
    provider = serializers.CharField()
    mode = serializers.CharField()
    ok = serializers.BooleanField()
    message = serializers.CharField()
    account = serializers.CharField(allow_blank=True)


# --- Refunds ---------------------------------------------------------------------------------


class _KnownKeysSerializer(serializers.Serializer):
    """Unknown keys are refused: a misspelt `amount` must not refund everything."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {key[:50]: ["Unknown field."] for key in unknown[:20]}
                )
        return super().to_internal_value(data)


class RestockItemSerializer(_KnownKeysSerializer):
    item_id = IntegerField(min_value=1, help_text="A line of the order (its items' `id`).")
    quantity = IntegerField(
        min_value=1, max_value=1_000_000, help_text="Units of the line given back to stock."
    )


class RefundWriteSerializer(_KnownKeysSerializer):
    """Unknown keys are refused: a misspelt `amount` must not refund everything."""

    amount = MoneyField(
        required=False, min_value=Decimal("0.01"), help_text="Left out: everything left to refund."
    )
    currency = serializers.RegexField(
        r"^[A-Za-z]{3}$", max_length=3, required=False, help_text="Must be the order's."
    )
    reason = StrictCharField(max_length=500, required=False, allow_blank=True)
    restock = StrictBooleanField(
        required=False,
        default=False,
        help_text="Give the stock back: without `items`, everything (a refund of everything "
        "left only: the order moves to refunded); with `items`, those units only (any "
        "refund; the order's status stays).",
    )
    items = serializers.ListField(
        child=RestockItemSerializer(),
        required=False,
        min_length=1,
        max_length=200,
        help_text="With `restock: true`: the lines and units to give back to stock, "
        "[{item_id, quantity}].",
    )


class RefundLineSerializer(serializers.Serializer):
    payment_id = IntegerField(help_text="The refund's payment record on the order.")
    amount = serializers.CharField(help_text="Negative: money going back.")
    gateway = serializers.CharField()
    provider = serializers.CharField(allow_blank=True, help_text="'' for a manual refund.")
    refund_id = serializers.CharField(allow_blank=True)
    manual = serializers.BooleanField(help_text="No provider call (taken offline).")


class RefundSerializer(serializers.Serializer):
    order_id = IntegerField()
    amount = serializers.CharField(help_text="Negative: the refund's total.")
    currency = serializers.CharField()
    refunds = RefundLineSerializer(many=True)
    payment_status = serializers.CharField()
    order_status = serializers.CharField()
    amount_paid = serializers.CharField()
    amount_refunded = serializers.CharField()
    refundable = serializers.CharField(help_text="What is left to refund.")
    restocked = serializers.BooleanField()
    restocked_items = RestockItemSerializer(
        many=True, help_text="The units `items` gave back ([] for a full restock or none)."
    )


def refund_data(result) -> dict:
    order = result.order
    total = sum((r.amount for r in result.refunds), start=0)
    return {
        "order_id": order.pk,
        "amount": money_str(-total),
        "currency": order.currency,
        "refunds": [
            {
                "payment_id": r.payment_id,
                "amount": money_str(-r.amount),
                "gateway": r.gateway,
                "provider": r.provider,
                "refund_id": r.refund_id,
                "manual": not r.provider,
            }
            for r in result.refunds
        ],
        "payment_status": order.payment_status,
        "order_status": order.status,
        "amount_paid": money_str(order.amount_paid),
        "amount_refunded": money_str(order.amount_refunded),
        "refundable": money_str(order.amount_paid - order.amount_refunded),
        "restocked": result.restocked,
        "restocked_items": result.restocked_items,
    }


# --- Online payments ---------------------------------------------------------------------------


class ReturnUrlField(serializers.URLField):
    def __init__(self, **kwargs):
        super().__init__(
            max_length=500,
            required=False,
            allow_blank=True,
            help_text="Where the provider sends the shopper back.",
            **kwargs,
        )


class IntentWriteSerializer(serializers.Serializer):
    order_id = IntegerField(column="BigAutoField", min_value=1)
    order_key = _key()


class WalletOrderWriteSerializer(IntentWriteSerializer):
    return_url = ReturnUrlField()


class CaptureWriteSerializer(serializers.Serializer):
    order_key = _key()


class RedirectWriteSerializer(serializers.Serializer):
    order_key = _key()
    return_url = ReturnUrlField()


class StartedSerializer(serializers.Serializer):
    order_id = IntegerField()
    gateway = serializers.CharField()
    provider = serializers.CharField()
    id = serializers.CharField(help_text="The provider's intent, order or redirect id.")
    status = serializers.CharField()
    amount = serializers.CharField()
    currency = serializers.CharField()
    client_secret = serializers.CharField(allow_blank=True, help_text="Card intents.")
    publishable_key = serializers.CharField(allow_blank=True, help_text="Stripe's, if set.")
    redirect_url = serializers.CharField(allow_blank=True, help_text="Wallet and bank.")
    instructions = serializers.CharField(allow_blank=True)


def started_data(started, *, instructions: str = "") -> dict:
    attempt = started.attempt
    return {
        "order_id": attempt.order_id,
        "gateway": attempt.gateway,
        "provider": attempt.provider,
        "id": attempt.external_id,
        "status": attempt.status,
        "amount": money_str(attempt.amount),
        "currency": attempt.currency,
        "client_secret": started.client_secret,
        "publishable_key": started.publishable_key,
        "redirect_url": started.redirect_url,
        "instructions": instructions,
    }


class CapturedSerializer(serializers.Serializer):
    order_id = IntegerField()
    id = serializers.CharField()
    status = serializers.CharField()
    transaction_id = serializers.CharField()
    amount = serializers.CharField()
    currency = serializers.CharField()
    payment_status = serializers.CharField()


class EventAnswerSerializer(serializers.Serializer):
    received = serializers.BooleanField()
    event_id = serializers.CharField()
    outcome = serializers.CharField(
        help_text="recorded, already_recorded, failed, ignored (a type not acted on), "
        "unknown_payment (not started here), currency_mismatch, replayed (seen before)."
    )
