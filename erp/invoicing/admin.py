"""Invoicing in the admin: invoices read only (issue, cancel by credit note and transmit are
actions calling the services), series and the settings through the services (credentials
write-only, shown masked)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from common.admin import ReadOnlyAdmin, ServiceAdmin, ServiceForm, for_each
from erp.invoicing import crypto, services
from erp.invoicing.models import (
    LINE_VALUES,
    Invoice,
    InvoiceLine,
    InvoiceSeries,
    InvoicingSettings,
    Transmission,
)
from store.common.errors import rule_broken


class LineInline(admin.TabularInline):
    model = InvoiceLine
    extra = 0
    can_delete = False
    fields = ("position", *LINE_VALUES)
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class TransmissionInline(admin.StackedInline):
    model = Transmission
    extra = 0
    can_delete = False
    readonly_fields = (
        "provider",
        "status",
        "mark",
        "uid",
        "qr_url",
        "cancellation_mark",
        "errors",
        "attempts",
        "last_error",
        "requested_at",
        "last_attempt_at",
        "sent_at",
        "cancelled_at",
    )
    fields = readonly_fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Invoice)
class InvoiceAdmin(ReadOnlyAdmin):
    list_display = (
        "__str__",
        "document_type",
        "status",
        "issue_date",
        "counterpart_name",
        "gross_total",
        "currency",
        "transmission_status",
    )
    list_filter = ("status", "document_type", "series")
    search_fields = ("full_number", "counterpart_name", "counterpart_vat_number")
    list_select_related = ("series", "transmission")
    inlines = (LineInline, TransmissionInline)
    actions = ("issue", "cancel_by_credit_note", "credit_refunds", "transmit")

    @admin.display(description="Transmission")
    def transmission_status(self, invoice: Invoice) -> str:
        try:
            return invoice.transmission.get_status_display()
        except Transmission.DoesNotExist:
            return "-"

    def _act(self, request, queryset, call, done: str) -> None:
        count = for_each(
            self, request, queryset.values_list("pk", flat=True), call, label="Invoice"
        )
        if count:
            self.message_user(request, f"{count} {done}.", messages.SUCCESS)

    @admin.action(description="Issue (number) the selected drafts")
    def issue(self, request, queryset):
        self._act(request, queryset, lambda pk: services.invoice_issue(invoice_id=pk), "issued")

    @admin.action(description="Cancel by a credit note")
    def cancel_by_credit_note(self, request, queryset):
        self._act(
            request,
            queryset,
            lambda pk: services.invoice_cancel(invoice_id=pk, user=request.user),
            "cancelled by credit notes",
        )

    @admin.action(description="Credit the order's refunds that have no credit note")
    def credit_refunds(self, request, queryset):
        self._act(
            request,
            queryset,
            lambda pk: services.invoice_credit_refunds(invoice_id=pk, user=request.user),
            "checked for refunds to credit",
        )

    @admin.action(description="Send to the tax authority")
    def transmit(self, request, queryset):
        self._act(
            request,
            queryset,
            lambda pk: services.transmission_request(invoice_id=pk),
            "queued for the authority",
        )


class SeriesForm(ServiceForm):
    class Meta:
        model = InvoiceSeries
        fields = ("code", "name", "document_type", "prefix", "next_number", "active")

    def check(self, fields: dict) -> None:
        services.series_check(fields, series=self.instance if self.instance.pk else None)


@admin.register(InvoiceSeries)
class InvoiceSeriesAdmin(ServiceAdmin):
    form = SeriesForm
    list_display = ("code", "name", "document_type", "prefix", "next_number", "active")
    list_filter = ("document_type", "active")

    def create(self, request, fields):
        return services.series_create(fields=fields)

    def update(self, request, obj, fields):
        return services.series_update(series_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.series_delete(series_id=obj.pk)


class SettingsForm(ServiceForm):
    mydata_user_id = forms.CharField(
        required=False, max_length=100, help_text="Write only: leave empty to keep it."
    )
    mydata_subscription_key = forms.CharField(
        required=False,
        max_length=200,
        widget=forms.PasswordInput,
        help_text="Write only: leave empty to keep it.",
    )

    class Meta:
        model = InvoicingSettings
        fields = (
            "issuer_name",
            "issuer_vat_number",
            "issuer_tax_office",
            "issuer_branch",
            "issuer_email",
            "issuer_phone",
            "default_series",
            "order_series",
            "zero_vat_exemption",
            "provider",
            "mydata_environment",
            "auto_invoice",
            "auto_transmit",
        )

    ids = {"default_series": "default_series_id", "order_series": "order_series_id"}

    def service_fields(self) -> dict:
        fields = super().service_fields()
        for name in ("mydata_user_id", "mydata_subscription_key"):
            if self.cleaned_data.get(name):
                fields[name] = self.cleaned_data[name]
        return fields

    def check(self, fields: dict) -> None:
        if fields.get("issuer_vat_number"):
            from store.tax import selectors as tax_selectors

            tax_selectors.vat_number_clean(fields["issuer_vat_number"], name="issuer_vat_number")


@admin.register(InvoicingSettings)
class InvoicingSettingsAdmin(ServiceAdmin):
    form = SettingsForm
    list_display = ("__str__", "issuer_name", "provider", "masked_credentials", "auto_invoice")
    readonly_fields = ("masked_credentials",)

    @admin.display(description="Authority credentials")
    def masked_credentials(self, row: InvoicingSettings) -> str:
        values = crypto.unseal(row.credentials)
        return ", ".join(f"{k}: {crypto.mask(v)}" for k, v in sorted(values.items())) or "-"

    def has_add_permission(self, request):
        return not InvoicingSettings.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False

    def create(self, request, fields):
        return services.settings_update(fields=fields)

    def update(self, request, obj, fields):
        return services.settings_update(fields=fields)

    def remove(self, request, obj):
        # Never offered (has_delete_permission is False); a forged POST is refused.
        raise rule_broken(
            "The invoicing settings are never deleted.", code="not_deletable", status=409
        )
