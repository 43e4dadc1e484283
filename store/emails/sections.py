"""The `emails` section of the store settings: the sender and the types switched off."""

from __future__ import annotations

from rest_framework import serializers

from store.common.params import StrictCharField
from store.emails import types
from store.settings.registry import Section, register


class _TypeChoice(serializers.ChoiceField):
    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class EmailSettings(serializers.Serializer):
    sender_name = StrictCharField(
        max_length=200,
        default="",
        allow_blank=True,
        help_text="The From name. Empty: the store's name.",
    )
    sender_address = serializers.EmailField(
        default="",
        allow_blank=True,
        help_text="The From address. Empty: the server's DEFAULT_FROM_EMAIL address.",
    )
    disabled_types = serializers.ListField(
        child=_TypeChoice(choices=[t.slug for t in types.TYPES.values() if t.can_disable]),
        default=list,
        max_length=len(types.TYPES),
        help_text="The e-mail types the store does not send (account e-mails cannot be "
        "switched off).",
    )

    def validate_disabled_types(self, value: list[str]) -> list[str]:
        return sorted(set(value))


EMAILS = register(Section("emails", "E-mails", EmailSettings))
