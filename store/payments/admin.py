"""Payments admin: gateway configs (credentials masked, written through the services), and
read-only views of the sandbox's charges, payments started, events received and refunds.

The gateways' own settings (enabled, title, order, limits) are the store settings'
`payments` section, edited in the store settings admin or PATCH /payment/gateways/{id}."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from common.admin import ReadOnlyAdmin, ServiceAdmin, ServiceForm
from store.payments import selectors, services
from store.payments.models import (
    GatewayConfig,
    GatewayRefund,
    PaymentAttempt,
    ProcessedEvent,
    SandboxCharge,
)

SECRET_FIELDS = sorted({name for fields in selectors.CREDENTIALS.values() for name in fields})


@admin.register(SandboxCharge)
class SandboxChargeAdmin(ReadOnlyAdmin):
    list_display = [
        "transaction_id",
        "reference",
        "amount",
        "currency",
        "status",
        "decline_code",
        "brand",
        "last4",
        "amount_refunded",
        "created_at",
    ]
    list_filter = ["status", "decline_code", "brand"]
    search_fields = ["transaction_id", "reference", "idempotency_key"]
    date_hierarchy = "created_at"
    readonly_fields = [field.name for field in SandboxCharge._meta.fields]


class GatewayConfigForm(ServiceForm):
    """The credentials as password fields: left empty, or given the masked value shown, the
    stored value stays (the service's rule)."""

    params = {f"credentials.{name}": name for name in SECRET_FIELDS}

    class Meta:
        model = GatewayConfig
        fields = ["gateway", "provider", "title", "mode", "active"]

    def service_fields(self) -> dict:
        fields = super().service_fields()
        sent = {name: self.cleaned_data.get(name) for name in SECRET_FIELDS}
        sent = {name: value for name, value in sent.items() if value}
        if sent:
            fields["credentials"] = sent
        return fields

    def check(self, fields: dict) -> None:
        services.config_check(fields=fields, instance=self.instance if self.instance.pk else None)

    def _get_validation_exclusions(self):
        # One active config per gateway is the service's to keep: it makes the others
        # inactive when this one passes its check, so the model's constraint must not refuse
        # the form first.
        return {*super()._get_validation_exclusions(), "active"}


# Declared on the class, not added per form: the admin builds its form from the fields it
# lists, and refuses one that the form class does not declare.
for _name in SECRET_FIELDS:
    GatewayConfigForm.base_fields[_name] = GatewayConfigForm.declared_fields[_name] = (
        forms.CharField(
            required=False,
            max_length=255,
            widget=forms.PasswordInput(render_value=False),
            help_text="Empty (or the masked value shown): unchanged.",
        )
    )


@admin.register(GatewayConfig)
class GatewayConfigAdmin(ServiceAdmin):
    form = GatewayConfigForm
    list_display = ["id", "gateway", "provider", "mode", "active", "title", "last_check_ok"]
    list_filter = ["gateway", "provider", "mode", "active"]
    readonly_fields = [
        "masked_credentials",
        "last_checked_at",
        "last_check_ok",
        "last_check_message",
    ]

    def get_fields(self, request, obj=None):
        return [*GatewayConfigForm.Meta.fields, *SECRET_FIELDS, *self.readonly_fields]

    @admin.display(description="Stored credentials")
    def masked_credentials(self, obj) -> str:
        if obj is None or obj.pk is None:
            return "-"
        shown = selectors.masked_credentials(obj)
        return ", ".join(f"{k}: {v}" for k, v in shown.items() if v) or "-"

    def _tell_check(self, request, row):
        check = row.save_check
        if check is not None and check.held_inactive:
            self.message_user(
                request,
                f"Saved inactive: the provider's check failed ({check.message}).",
                messages.WARNING,
            )
        return row

    def create(self, request, fields: dict):
        return self._tell_check(request, services.config_create(fields=fields))

    def update(self, request, obj, fields: dict):
        return self._tell_check(request, services.config_update(config_id=obj.pk, fields=fields))

    def remove(self, request, obj) -> None:
        services.config_delete(config_id=obj.pk)


@admin.register(PaymentAttempt)
class PaymentAttemptAdmin(ReadOnlyAdmin):
    list_display = ["external_id", "order", "gateway", "provider", "kind", "amount", "status"]
    list_filter = ["gateway", "provider", "status"]
    search_fields = ["external_id", "transaction_id"]
    list_select_related = ["order"]


@admin.register(ProcessedEvent)
class ProcessedEventAdmin(ReadOnlyAdmin):
    list_display = ["event_id", "gateway", "type", "outcome", "received_at"]
    list_filter = ["gateway", "outcome"]
    search_fields = ["event_id"]


@admin.register(GatewayRefund)
class GatewayRefundAdmin(ReadOnlyAdmin):
    list_display = ["refund_id", "order", "gateway", "provider", "amount", "currency"]
    list_filter = ["gateway", "provider"]
    list_select_related = ["order"]
