"""Bodies of the /emails routes: input serializers (validated with store.common.params) and
the answers (built as dicts, documented by the output serializers)."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.formats import iso
from store.common.params import StrictBody, StrictBooleanField, StrictCharField
from store.emails import selectors, types
from store.emails.models import EmailTemplate, SentEmail
from store.emails.rendering import MAX_SOURCE

# --- Input ---------------------------------------------------------------------------------------


class TemplateField(serializers.CharField):
    """A template's source (Jinja2, sandboxed); null or "" for the default."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("max_length", MAX_SOURCE)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class TemplateWriteSerializer(StrictBody):
    subject = TemplateField(help_text="The subject's template (one line once rendered).")
    body_html = TemplateField(help_text="The HTML body's template (autoescaped).")
    body_text = TemplateField(
        help_text="The text body's template. Left default while body_html is customised: "
        "the text part is the HTML body's text."
    )
    enabled = StrictBooleanField(
        required=False, help_text="Whether the store sends this type (settings: emails)."
    )


class PreviewQuerySerializer(serializers.Serializer):
    order_id = IdField(required=False, help_text="Render with this order's data.")


class PreviewSerializer(StrictBody):
    order_id = IdField(
        required=False, allow_null=True, help_text="Render with this order's data (else sample)."
    )
    subject = TemplateField(help_text="A draft subject to render instead of the saved one.")
    body_html = TemplateField(help_text="A draft HTML body.")
    body_text = TemplateField(help_text="A draft text body.")


class _TypeChoice(serializers.ChoiceField):
    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class TestEmailSerializer(StrictBody):
    type = _TypeChoice(choices=types.EMAIL_TYPE_CHOICES, help_text="The e-mail type.")
    to = serializers.EmailField(help_text="Where to send the test.")
    order_id = IdField(
        required=False, allow_null=True, help_text="Use this order's data (else sample data)."
    )


class ResendSerializer(StrictBody):
    type = _TypeChoice(
        choices=types.ORDER_EMAIL_TYPE_CHOICES,
        required=False,
        default="order_confirmation",
        help_text="Which order e-mail (default order_confirmation).",
    )


class SettingsWriteSerializer(StrictBody):
    sender_name = StrictCharField(
        required=False, allow_blank=True, max_length=200, help_text="Empty: the store's name."
    )
    sender_address = serializers.EmailField(
        required=False, allow_blank=True, help_text="Empty: the server's default address."
    )
    enabled_types = serializers.ListField(
        child=_TypeChoice(choices=types.EMAIL_TYPE_CHOICES),
        required=False,
        max_length=len(types.SLUGS),
        help_text="Every type the store sends; the others are off. Account e-mails cannot "
        "be switched off.",
    )


# --- Output --------------------------------------------------------------------------------------


def _variables(email_type: types.EmailType) -> list[dict]:
    return [{"name": name, "description": text} for name, text in email_type.variables.items()]


def template_summary(email_type: types.EmailType, row: EmailTemplate | None, config: dict) -> dict:
    return {
        "type": email_type.slug,
        "title": email_type.title,
        "description": email_type.description,
        "recipient": email_type.recipient,
        "about_order": email_type.about_order,
        "enabled": selectors.is_enabled(email_type, config),
        "can_disable": email_type.can_disable,
        "customised": bool(row is not None and row.customised),
        "subject": selectors.sources(email_type, row)["subject"],
        "variables": _variables(email_type),
        "updated_at": iso(row.updated_at) if row is not None and row.customised else None,
    }


def template_data(email_type: types.EmailType, row: EmailTemplate | None, config: dict) -> dict:
    current = selectors.sources(email_type, row)
    return {
        **template_summary(email_type, row, config),
        "body_html": current["body_html"],
        "body_text": current["body_text"],
        "customised_parts": selectors.customised_parts(row),
        "defaults": {part: email_type.default(part) for part in types.PARTS},
    }


def sent_email_data(email: SentEmail) -> dict:
    return {
        "id": email.pk,
        "type": email.type,
        "recipient": email.recipient,
        "subject": email.subject,
        "status": email.status,
        "error": email.error,
        "note": email.note,
        "order_id": email.order_id,
        "created_at": iso(email.created_at),
        "sent_at": iso(email.sent_at),
    }


class VariableSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="A dotted path, e.g. order.number.")
    description = serializers.CharField()


class TemplateSummarySerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=types.EMAIL_TYPE_CHOICES)
    title = serializers.CharField()
    description = serializers.CharField()
    recipient = serializers.ChoiceField(choices=[types.CUSTOMER, types.STORE])
    about_order = serializers.BooleanField()
    enabled = serializers.BooleanField()
    can_disable = serializers.BooleanField()
    customised = serializers.BooleanField(help_text="Some part differs from the default.")
    subject = serializers.CharField(help_text="The subject's template in use.")
    variables = VariableSerializer(many=True, help_text="Every variable its templates may use.")
    updated_at = serializers.DateTimeField(allow_null=True)


class TemplateListSerializer(serializers.Serializer):
    templates = TemplateSummarySerializer(many=True)
    total = IntegerField()


class PartsSerializer(serializers.Serializer):
    subject = serializers.CharField()
    body_html = serializers.CharField()
    body_text = serializers.CharField()


class PartFlagsSerializer(serializers.Serializer):
    subject = serializers.BooleanField()
    body_html = serializers.BooleanField()
    body_text = serializers.BooleanField()


class TemplateSerializer(TemplateSummarySerializer):
    body_html = serializers.CharField(help_text="The HTML body's template in use.")
    body_text = serializers.CharField(help_text="The text body's template in use.")
    customised_parts = PartFlagsSerializer()
    defaults = PartsSerializer(help_text="The built-in templates.")


class PreviewAnswerSerializer(serializers.Serializer):
    type = serializers.CharField()
    subject = serializers.CharField()
    html = serializers.CharField(help_text="The whole HTML message, in the store's frame.")
    text = serializers.CharField(help_text="The text part.")
    order_id = IntegerField(allow_null=True)
    sample = serializers.BooleanField(help_text="Rendered with made-up data.")
    note = serializers.CharField(help_text="Set when a customised template failed.")


class SentEmailSerializer(serializers.Serializer):
    id = IntegerField()
    type = serializers.CharField()
    recipient = serializers.EmailField()
    subject = serializers.CharField()
    status = serializers.ChoiceField(choices=["queued", "sent", "failed"])
    error = serializers.CharField()
    note = serializers.CharField()
    order_id = IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    sent_at = serializers.DateTimeField(allow_null=True)


# Built with type(): one of its keys, "from", is a Python keyword.
SettingsSerializer = type(
    "SettingsSerializer",
    (serializers.Serializer,),
    {
        "sender_name": serializers.CharField(),
        "sender_address": serializers.CharField(),
        "from": serializers.CharField(help_text="The From header the e-mails carry."),
        "enabled_types": serializers.ListField(child=serializers.CharField()),
        "disabled_types": serializers.ListField(child=serializers.CharField()),
    },
)
