from __future__ import annotations

from rest_framework import serializers

from store.common.params import StrictCharField


class ActivateSerializer(serializers.Serializer):
    license_key = StrictCharField(
        max_length=64,
        required=False,
        allow_blank=True,
        help_text="The store's Business-tier licence key (default: the one configured).",
    )


class LicenceStateSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="Masked: its last group only.")
    tier = serializers.CharField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    status = serializers.CharField(
        help_text="ok, no_license, license_not_found, revoked, expired or not_business."
    )


class StatusSerializer(serializers.Serializer):
    active = serializers.BooleanField(help_text="The ERP is turned on.")
    licensed = serializers.BooleanField(help_text="The store's licence can run the ERP.")
    available = serializers.BooleanField(help_text="Both: the ERP routes answer.")
    reason = serializers.CharField(
        help_text="ok, not_active, no_license, license_not_found, revoked, expired, not_business."
    )
    message = serializers.CharField()
    license = LicenceStateSerializer()
    activated_at = serializers.DateTimeField(allow_null=True)
    activated_by = serializers.EmailField(allow_null=True)
    deactivated_at = serializers.DateTimeField(allow_null=True)
