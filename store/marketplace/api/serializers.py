"""Bodies, queries and answers of the /marketplace routes (documented in the OpenAPI)."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IntegerField, StrictIntegerField
from store.common.formats import iso
from store.common.money import money_str
from store.common.pagination import MetaSerializer
from store.common.params import PageField, PerPageField, StrictBooleanField, StrictCharField
from store.marketplace import secrets, selectors
from store.marketplace.models import EventStatus, ImportStatus
from store.marketplace.providers import MARKETPLACE_NAMES, PROVIDERS
from store.marketplace.services import IMPORT_STATUSES


class StrictBody(serializers.Serializer):
    """Refuses fields it does not know (a typo), rather than ignoring them."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(str(name)[:64] for name in set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {name: ["This field cannot be set."] for name in unknown[:20]}
                )
        return super().to_internal_value(data)


# --- Queries and bodies ---------------------------------------------------------------------


class MarketplaceOrderListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")
    marketplace = serializers.ChoiceField(choices=MARKETPLACE_NAMES, required=False)
    state = serializers.CharField(
        required=False, max_length=32, help_text="The marketplace's state (open, accepted...)."
    )
    import_status = serializers.ChoiceField(choices=ImportStatus.choices, required=False)
    date_from = serializers.DateField(
        required=False, help_text="ISO date; received on or after (UTC)."
    )
    date_to = serializers.DateField(
        required=False, help_text="ISO date; received on or before (UTC)."
    )
    search = serializers.CharField(
        required=False,
        max_length=64,
        help_text="Part of the marketplace's order code, or the store order number.",
    )

    def validate(self, attrs):
        low, high = attrs.get("date_from"), attrs.get("date_to")
        if low and high and low > high:
            raise serializers.ValidationError({"date_to": ["date_to is before date_from."]})
        return attrs


class MarketplaceAcknowledgeSerializer(StrictBody):
    number_of_parcels = StrictIntegerField(min_value=1, max_value=50, required=False)
    pickup_location = StrictCharField(
        max_length=64, required=False, help_text="Skroutz: one of the order's accept_options."
    )
    pickup_window = StrictIntegerField(
        min_value=0, max_value=1_000_000, required=False, help_text="Skroutz: a window's id."
    )


class MarketplaceRejectSerializer(StrictBody):
    reason = StrictCharField(max_length=500, help_text="Sent to the marketplace.")


class MarketplaceShipSerializer(StrictBody):
    tracking_number = StrictCharField(max_length=100)
    carrier = StrictCharField(max_length=100)
    tracking_url = serializers.URLField(max_length=500, required=False, allow_blank=True)


class MarketplaceCredentialsField(serializers.DictField):
    def __init__(self, **kwargs):
        kwargs.setdefault("child", StrictCharField(max_length=500, allow_blank=True))
        kwargs.setdefault("required", False)
        kwargs.setdefault(
            "help_text",
            "The API credentials (skroutz: api_token; generic: api_url, api_token); only "
            'the names sent change, "" removes one. Write-only. `api_url` must be https:// '
            "and its host a public internet address, never a loopback, private, link-local or "
            "reserved one (400 naming it).",
        )
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, dict) and len(data) > 10:
            raise serializers.ValidationError("At most 10 credentials.")
        return super().to_internal_value(data)


class MarketplaceSettingsWriteSerializer(StrictBody):
    enabled = StrictBooleanField(required=False, help_text="Only with a webhook secret.")
    webhook_secret = StrictCharField(
        max_length=200,
        required=False,
        allow_blank=True,
        help_text='At least 16 characters; "" removes it. Write-only.',
    )
    credentials = MarketplaceCredentialsField()
    auto_acknowledge = StrictBooleanField(required=False)
    order_status = serializers.ChoiceField(
        choices=[str(s) for s in IMPORT_STATUSES], required=False
    )
    shipping_method = StrictCharField(max_length=64, required=False, allow_blank=True)
    shipping_method_title = StrictCharField(max_length=100, required=False, allow_blank=True)


class MarketplaceSettingsChangeSerializer(StrictBody):
    pass


for _name in MARKETPLACE_NAMES:
    MarketplaceSettingsChangeSerializer._declared_fields[_name] = (
        MarketplaceSettingsWriteSerializer(required=False)
    )


# --- Answers ------------------------------------------------------------------------------------


class MarketplaceSettingsSerializer(serializers.Serializer):
    marketplace = serializers.ChoiceField(choices=MARKETPLACE_NAMES)
    title = serializers.CharField()
    enabled = serializers.BooleanField()
    webhook_secret_set = serializers.BooleanField()
    credentials = serializers.DictField(
        child=serializers.BooleanField(), help_text="Each credential: set or not (never shown)."
    )
    configured = serializers.BooleanField(help_text="Every API credential is set.")
    auto_acknowledge = serializers.BooleanField()
    order_status = serializers.CharField()
    shipping_method = serializers.CharField(allow_blank=True)
    shipping_method_title = serializers.CharField(allow_blank=True)
    webhook_path = serializers.CharField(help_text="Where the marketplace sends its webhooks.")


class MarketplaceSettingsListSerializer(serializers.Serializer):
    marketplaces = MarketplaceSettingsSerializer(many=True)


def settings_data(account, *, prefix: str) -> dict:
    cls = PROVIDERS[account.marketplace]
    stored = secrets.unseal(account.credentials)
    return {
        "marketplace": account.marketplace,
        "title": cls.title,
        "enabled": account.enabled,
        "webhook_secret_set": bool(selectors.webhook_secret(account)),
        "credentials": {name: bool(stored.get(name)) for name in cls.credential_fields},
        "configured": all(stored.get(name) for name in cls.credential_fields),
        "auto_acknowledge": account.auto_acknowledge,
        "order_status": account.order_status,
        "shipping_method": account.shipping_method,
        "shipping_method_title": account.shipping_method_title,
        "webhook_path": f"{prefix}/marketplace/webhook/{account.marketplace}",
    }


class MarketplaceStoreOrderSerializer(serializers.Serializer):
    id = IntegerField()
    number = serializers.CharField()
    status = serializers.CharField()
    payment_status = serializers.CharField()
    fulfillment_status = serializers.CharField()
    total = serializers.CharField()


class MarketplaceFailureSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class MarketplaceEventSerializer(serializers.Serializer):
    id = IntegerField()
    event_id = serializers.CharField()
    type = serializers.CharField()
    status = serializers.ChoiceField(choices=EventStatus.choices)
    outcome = serializers.CharField(allow_blank=True)
    error = serializers.CharField(allow_blank=True)
    received_at = serializers.DateTimeField()
    processed_at = serializers.DateTimeField(allow_null=True)


class MarketplaceLineSerializer(serializers.Serializer):
    sku = serializers.CharField()
    quantity = IntegerField()
    unit_price = serializers.CharField()
    title = serializers.CharField(allow_blank=True)


class MarketplaceOrderSerializer(serializers.Serializer):
    id = IntegerField()
    marketplace = serializers.ChoiceField(choices=MARKETPLACE_NAMES)
    code = serializers.CharField()
    state = serializers.CharField()
    import_status = serializers.ChoiceField(choices=ImportStatus.choices)
    failure = MarketplaceFailureSerializer(allow_null=True)
    import_attempts = IntegerField()
    order = MarketplaceStoreOrderSerializer(allow_null=True)
    currency = serializers.CharField()
    total = serializers.CharField()
    lines = MarketplaceLineSerializer(many=True)
    acknowledged_at = serializers.DateTimeField(allow_null=True)
    rejected_at = serializers.DateTimeField(allow_null=True)
    reject_reason = serializers.CharField(allow_blank=True)
    shipped_at = serializers.DateTimeField(allow_null=True)
    tracking_number = serializers.CharField(allow_blank=True)
    carrier = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class MarketplaceOrderDetailSerializer(MarketplaceOrderSerializer):
    billing_address = serializers.DictField()
    shipping_address = serializers.DictField()
    note = serializers.CharField(allow_blank=True)
    events = MarketplaceEventSerializer(many=True)


class MarketplaceOrderPageSerializer(MetaSerializer):
    orders = MarketplaceOrderSerializer(many=True)


class MarketplaceWebhookAnswerSerializer(serializers.Serializer):
    received = serializers.BooleanField()
    replayed = serializers.BooleanField(help_text="The same event id was received before.")
    marketplace = serializers.CharField()
    event_id = serializers.CharField()
    type = serializers.CharField()
    order_code = serializers.CharField(allow_blank=True)
    status = serializers.ChoiceField(choices=EventStatus.choices)
    outcome = serializers.CharField(
        allow_blank=True,
        help_text="Once processed: imported, import_failed, duplicate, updated, cancelled, "
        "cancel_refused or ignored.",
    )


def event_data(row) -> dict:
    return {
        "id": row.pk,
        "event_id": row.event_id,
        "type": row.type,
        "status": row.status,
        "outcome": row.outcome,
        "error": row.error,
        "received_at": iso(row.received_at),
        "processed_at": iso(row.processed_at),
    }


def order_data(row, *, events: list | None = None) -> dict:
    data = row.data or {}
    order = row.order
    body = {
        "id": row.pk,
        "marketplace": row.marketplace,
        "code": row.code,
        "state": row.state,
        "import_status": row.import_status,
        "failure": (
            {"code": row.failure_code, "message": row.failure_message}
            if row.import_status == ImportStatus.FAILED
            else None
        ),
        "import_attempts": row.import_attempts,
        "order": (
            {
                "id": order.pk,
                "number": order.order_number,
                "status": order.status,
                "payment_status": order.payment_status,
                "fulfillment_status": order.fulfillment_status,
                "total": money_str(order.total),
            }
            if order is not None
            else None
        ),
        "currency": row.currency,
        "total": money_str(row.total),
        "lines": [
            {
                "sku": line.get("sku", ""),
                "quantity": line.get("quantity", 0),
                "unit_price": line.get("unit_price", "0"),
                "title": line.get("title", ""),
            }
            for line in data.get("lines", [])
        ],
        "acknowledged_at": iso(row.acknowledged_at),
        "rejected_at": iso(row.rejected_at),
        "reject_reason": row.reject_reason,
        "shipped_at": iso(row.shipped_at),
        "tracking_number": row.tracking_number,
        "carrier": row.carrier,
        "created_at": iso(row.created_at),
        "updated_at": iso(row.updated_at),
    }
    if events is not None:
        body.update(
            billing_address=data.get("billing_address") or {},
            shipping_address=data.get("shipping_address") or {},
            note=data.get("note", ""),
            events=[event_data(event) for event in events],
        )
    return body
