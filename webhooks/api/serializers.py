import json

from rest_framework import serializers

from common.api.fields import IntegerField
from webhooks.models import Delivery, DeliveryAttempt, Event, Webhook
from webhooks.selectors import DELIVERY_LOG_DEFAULT_LIMIT, DELIVERY_LOG_MAX_LIMIT


class StrictInputSerializer(serializers.Serializer):
    """Refuses fields it does not know, so a typo (or `secret`) is not silently ignored."""

    def validate(self, attrs):
        if isinstance(self.initial_data, dict):
            unknown = sorted(set(self.initial_data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {name: ["This field cannot be set."] for name in unknown}
                )
        return attrs


class WebhookCreateInputSerializer(StrictInputSerializer):
    url = serializers.CharField(max_length=2048, trim_whitespace=True)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=Event.values),
        allow_empty=False,
        max_length=20,
        help_text="A non-empty subset of: " + ", ".join(Event.values) + ".",
    )
    description = serializers.CharField(
        max_length=255, required=False, allow_blank=True, allow_null=True
    )


class WebhookUpdateInputSerializer(StrictInputSerializer):
    url = serializers.CharField(max_length=2048, required=False)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=Event.values),
        allow_empty=False,
        max_length=20,
        required=False,
    )
    is_active = serializers.BooleanField(required=False)
    description = serializers.CharField(
        max_length=255, required=False, allow_blank=True, allow_null=True
    )


class WebhookSerializer(serializers.ModelSerializer):
    events = serializers.ListField(child=serializers.CharField())
    disabled_reason = serializers.SerializerMethodField(
        help_text="Why the webhook is inactive (for example the receiver answered 410, or "
        "every delivery failed for 5 days); null while it is active."
    )

    class Meta:
        model = Webhook
        fields = [
            "id",
            "url",
            "events",
            "is_active",
            "description",
            "created_at",
            "disabled_reason",
            "disabled_at",
        ]
        read_only_fields = fields

    def get_disabled_reason(self, webhook: Webhook) -> str | None:
        return None if webhook.is_active else (webhook.disabled_reason or None)


class WebhookWithSecretSerializer(WebhookSerializer):
    secret = serializers.CharField(
        help_text="64 hexadecimal characters: the HMAC-SHA256 key of X-Hub-Signature-256. "
        "Shown only in this answer; store it now."
    )

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]
        read_only_fields = fields


class DeliveryLogSerializer(serializers.ModelSerializer):
    delivery_id = serializers.UUIDField(
        source="delivery.uuid",
        help_text="The X-Hub-Delivery header: the same on every retry and redelivery.",
    )
    payload = serializers.SerializerMethodField(help_text="The full JSON body that was sent.")
    error = serializers.SerializerMethodField(help_text="Why the attempt failed; null if not.")

    class Meta:
        model = DeliveryAttempt
        fields = [
            "id",
            "delivery_id",
            "event",
            "payload",
            "status_code",
            "success",
            "outcome",
            "error",
            "attempt",
            "duration_ms",
            "created_at",
        ]
        read_only_fields = fields

    def get_payload(self, entry: DeliveryAttempt) -> dict:
        return json.loads(entry.delivery.body)

    def get_error(self, entry: DeliveryAttempt) -> str | None:
        return entry.error or None


class DeliverySerializer(serializers.ModelSerializer):
    delivery_id = serializers.UUIDField(source="uuid")

    class Meta:
        model = Delivery
        fields = ["delivery_id", "event", "status", "attempts", "next_attempt_at", "created_at"]
        read_only_fields = fields


class TestResultSerializer(serializers.Serializer):
    success = serializers.BooleanField(help_text="True when the receiver answered 2xx.")
    status_code = IntegerField(
        allow_null=True, help_text="The receiver's HTTP status; null if it never answered."
    )
    error = serializers.CharField(allow_null=True, help_text="Why it failed; null on success.")
    duration_ms = IntegerField(allow_null=True)
    delivery_id = serializers.UUIDField(
        allow_null=True, help_text="The X-Hub-Delivery header of the ping."
    )


class DeliveryLogQuerySerializer(serializers.Serializer):
    limit = IntegerField(
        min_value=1,
        required=False,
        default=DELIVERY_LOG_DEFAULT_LIMIT,
        help_text=f"How many entries, newest first (default {DELIVERY_LOG_DEFAULT_LIMIT}; "
        f"values above {DELIVERY_LOG_MAX_LIMIT} give {DELIVERY_LOG_MAX_LIMIT}).",
    )
