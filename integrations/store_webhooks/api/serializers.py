"""Bodies, queries and answers of the store's webhook routes (documented in the OpenAPI)."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IntegerField
from store.common.formats import iso
from store.common.params import PageField, PerPageField, StrictBody, StrictBooleanField
from webhooks.models import Delivery, DeliveryAttempt, StoreEvent, Webhook

EVENT_NAMES = ", ".join(StoreEvent.values)


class EventListField(serializers.ListField):
    def __init__(self, **kwargs):
        kwargs.setdefault("child", serializers.CharField(max_length=64))
        kwargs.setdefault("allow_empty", False)
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("help_text", f"A non-empty subset of: {EVENT_NAMES}.")
        super().__init__(**kwargs)


class WebhookCreateSerializer(StrictBody):
    url = serializers.CharField(
        max_length=2048, help_text="https:// only; its host must resolve to public addresses."
    )
    events = EventListField()
    description = serializers.CharField(
        max_length=255, required=False, allow_blank=True, allow_null=True
    )
    is_active = StrictBooleanField(required=False, default=True)


class WebhookUpdateSerializer(StrictBody):
    url = serializers.CharField(max_length=2048, required=False)
    events = EventListField(required=False)
    description = serializers.CharField(
        max_length=255, required=False, allow_blank=True, allow_null=True
    )
    is_active = StrictBooleanField(
        required=False,
        help_text="false gives up the pending deliveries; true re-enables a disabled webhook.",
    )


class WebhookListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")
    active = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="true or false; absent: all."
    )


class DeliveryListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")
    status = serializers.ChoiceField(choices=Delivery.Status.values, required=False)
    event = serializers.ChoiceField(choices=[*StoreEvent.values, "ping"], required=False)


class WebhookSerializer(serializers.Serializer):
    id = IntegerField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.CharField())
    is_active = serializers.BooleanField()
    description = serializers.CharField()
    disabled_reason = serializers.CharField(
        allow_null=True,
        help_text="Why the webhook is inactive (the receiver answered 410, every delivery "
        "failed for 5 days, staff turned it off); null while it is active.",
    )
    disabled_at = serializers.DateTimeField(allow_null=True)
    failing_since = serializers.DateTimeField(
        allow_null=True, help_text="First failed attempt since the last success."
    )
    created_by = IntegerField(
        allow_null=True, help_text="The account that registered it; null once it is gone."
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class WebhookWithSecretSerializer(WebhookSerializer):
    secret = serializers.CharField(
        help_text="64 hexadecimal characters: the HMAC-SHA256 key of X-Hub-Signature-256. "
        "Shown only in this answer; store it now."
    )


class WebhookPageSerializer(serializers.Serializer):
    webhooks = WebhookSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


class AttemptSerializer(serializers.Serializer):
    attempt = IntegerField()
    outcome = serializers.ChoiceField(choices=DeliveryAttempt.Outcome.values)
    success = serializers.BooleanField()
    status_code = IntegerField(allow_null=True)
    error = serializers.CharField(allow_null=True)
    duration_ms = IntegerField(allow_null=True)
    created_at = serializers.DateTimeField(help_text="When the attempt started.")


class DeliverySerializer(serializers.Serializer):
    id = IntegerField(help_text="The delivery's id (for redeliver).")
    delivery_id = serializers.UUIDField(help_text="The X-Hub-Delivery header, on every attempt.")
    event = serializers.CharField()
    payload = serializers.JSONField(help_text="The exact body sent: {event, timestamp, data}.")
    status = serializers.ChoiceField(choices=Delivery.Status.values)
    attempts = IntegerField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    succeeded_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    log = AttemptSerializer(many=True, help_text="Its attempts, oldest first.")


class DeliveryPageSerializer(serializers.Serializer):
    deliveries = DeliverySerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


class TestResultSerializer(serializers.Serializer):
    success = serializers.BooleanField(help_text="The receiver answered 2xx.")
    status_code = IntegerField(allow_null=True)
    error = serializers.CharField(allow_null=True)
    duration_ms = IntegerField(allow_null=True)
    delivery_id = serializers.UUIDField(allow_null=True)


# --- Answers, as plain dicts ----------------------------------------------------------------


def webhook_data(webhook: Webhook, *, secret: bool = False) -> dict:
    data = {
        "id": webhook.pk,
        "url": webhook.url,
        "events": list(webhook.events or []),
        "is_active": webhook.is_active,
        "description": webhook.description,
        "disabled_reason": None if webhook.is_active else (webhook.disabled_reason or None),
        "disabled_at": iso(webhook.disabled_at),
        "failing_since": iso(webhook.failing_since),
        "created_by": webhook.created_by_id,
        "created_at": iso(webhook.created_at),
        "updated_at": iso(webhook.updated_at),
    }
    if secret:
        data["secret"] = webhook.secret
    return data


def attempt_data(entry: DeliveryAttempt) -> dict:
    return {
        "attempt": entry.attempt,
        "outcome": entry.outcome,
        "success": entry.success,
        "status_code": entry.status_code,
        "error": entry.error or None,
        "duration_ms": entry.duration_ms,
        "created_at": iso(entry.created_at),
    }


def delivery_data(delivery: Delivery, log: list[DeliveryAttempt]) -> dict:
    return {
        "id": delivery.pk,
        "delivery_id": str(delivery.uuid),
        "event": delivery.event,
        "payload": delivery.payload,
        "status": delivery.status,
        "attempts": delivery.attempts,
        "next_attempt_at": iso(delivery.next_attempt_at),
        "last_attempt_at": iso(delivery.last_attempt_at),
        "succeeded_at": iso(delivery.succeeded_at),
        "created_at": iso(delivery.created_at),
        "log": [attempt_data(entry) for entry in log],
    }
