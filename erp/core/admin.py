from django import forms
from django.contrib import admin, messages
from django.utils.html import format_html_join

from common.admin import ReadOnlyAdmin, ServiceAdmin, ServiceForm, for_each
from common.errors import ServiceError
from erp.core import gate, services
from erp.core.models import (
    ErpImportedCustomer,
    ErpImportedOrder,
    ErpJob,
    ErpOpeningStock,
    ErpPortalSettings,
    ErpSettings,
    PortalDocument,
    SupplierDocument,
)


@admin.register(ErpSettings)
class ErpSettingsAdmin(admin.ModelAdmin):
    """Read-only: the ERP is turned on and off through POST /erp/activate and /erp/deactivate
    (erp.core.services), which check the licence."""

    list_display = ("__str__", "active", "masked_key", "activated_at", "deactivated_at")
    readonly_fields = (
        "active",
        "masked_key",
        "activated_at",
        "activated_by",
        "deactivated_at",
        "updated_at",
    )
    exclude = ("license_key",)

    @admin.display(description="Licence key")
    def masked_key(self, row: ErpSettings) -> str:
        return gate.mask(row.license_key)

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


# --- Jobs ----------------------------------------------------------------------------------------


@admin.register(ErpJob)
class ErpJobAdmin(ReadOnlyAdmin):
    """The data imports and inventory backfills (started by POST /erp/migrate-data/start and
    /erp/inventory/backfill/start): their progress and errors. Cancelling goes through
    erp.core.services.job_cancel."""

    list_display = (
        "id",
        "kind",
        "state",
        "phase",
        "progress_percent",
        "processed",
        "total",
        "error_count",
        "started_by",
        "created_at",
        "finished_at",
    )
    list_filter = ("kind", "state")
    list_select_related = ("started_by",)
    readonly_fields = (
        "kind",
        "state",
        "phase",
        "progress_percent",
        "processed",
        "total",
        "last_id",
        "batch",
        "counts",
        "params",
        "error_count",
        "error_lines",
        "failures",
        "started_by",
        "created_at",
        "started_at",
        "finished_at",
        "updated_at",
    )
    exclude = ("errors",)
    actions = ["cancel"]

    @admin.display(description="Progress")
    def progress_percent(self, job: ErpJob) -> str:
        return f"{job.progress} %"

    @admin.display(description="Errors (the first 100)")
    def error_lines(self, job: ErpJob):
        return format_html_join(
            "",
            "<div>{} {}: {}</div>",
            ((e.get("phase", ""), e.get("id") or "", e.get("message", "")) for e in job.errors),
        )

    @admin.action(description="Cancel the selected jobs (after the batch under way)")
    def cancel(self, request, queryset):
        done = for_each(
            self,
            request,
            queryset.values_list("pk", flat=True),
            lambda pk: services.job_cancel(job_id=pk, user=request.user),
            label="Job",
        )
        if done:
            self.message_user(request, f"{done} job(s) cancelled.", messages.SUCCESS)


# --- The registers the data import writes -------------------------------------------------------


@admin.register(ErpImportedCustomer)
class ErpImportedCustomerAdmin(ReadOnlyAdmin):
    list_display = ("customer_id", "email", "name", "company", "order_count", "imported_at")
    search_fields = ("email", "name", "company")


@admin.register(ErpImportedOrder)
class ErpImportedOrderAdmin(ReadOnlyAdmin):
    list_display = ("order_number", "status", "currency", "total", "ordered_at", "imported_at")
    list_filter = ("status", "payment_status")
    search_fields = ("order_number", "email")


@admin.register(ErpOpeningStock)
class ErpOpeningStockAdmin(ReadOnlyAdmin):
    list_display = ("sku", "warehouse", "quantity", "unit_cost", "value", "imported_at")
    list_select_related = ("warehouse",)
    search_fields = ("sku",)


# --- The portal's settings ------------------------------------------------------------------------


class PortalSettingsForm(ServiceForm):
    customer_documents = forms.MultipleChoiceField(
        choices=PortalDocument.choices, required=False, widget=forms.CheckboxSelectMultiple
    )
    supplier_documents = forms.MultipleChoiceField(
        choices=SupplierDocument.choices, required=False, widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = ErpPortalSettings
        fields = [
            "enabled",
            "customer_documents",
            "suppliers_enabled",
            "supplier_documents",
            "welcome_text",
            "brand_colour",
        ]

    def check(self, fields: dict) -> None:
        services.portal_settings_check(fields=fields)


@admin.register(ErpPortalSettings)
class ErpPortalSettingsAdmin(ServiceAdmin):
    """One row, changed through erp.core.services.portal_settings_update (as PATCH
    /erp/portal-settings)."""

    form = PortalSettingsForm
    list_display = ("__str__", "enabled", "suppliers_enabled", "brand_colour", "updated_at")
    readonly_fields = ("updated_at", "updated_by")

    def create(self, request, fields: dict):
        return services.portal_settings_update(fields=fields, user=request.user)

    def update(self, request, obj, fields: dict):
        return services.portal_settings_update(fields=fields, user=request.user)

    def remove(self, request, obj) -> None:
        raise ServiceError("The portal's settings cannot be deleted.", code="not_deletable")

    def has_add_permission(self, request) -> bool:
        return not ErpPortalSettings.objects.exists() and super().has_add_permission(request)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
