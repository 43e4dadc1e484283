"""Inventory admin: warehouses through the services; stock levels and movements read-only.

Stock changes in the admin go through the product and variant forms (their stock quantity is
set by store.inventory.services.stock_set) and through orders; the ledger itself is never
edited by hand.
"""

from __future__ import annotations

from django.contrib import admin, messages

from common.admin import ActionsInHistory, ReadOnlyAdmin, RefusalsAsMessages, for_each
from store.inventory import services
from store.inventory.models import StockLevel, StockMovement, Warehouse

WAREHOUSE_FORM_FIELDS = (
    "name",
    "code",
    "priority",
    "is_active",
    "address",
    "city",
    "postcode",
    "country",
)


@admin.register(Warehouse)
class WarehouseAdmin(ActionsInHistory, RefusalsAsMessages, admin.ModelAdmin):
    list_display = ["name", "code", "is_default", "is_active", "priority", "city", "country"]
    list_filter = ["is_active", "is_default"]
    search_fields = ["name", "code", "city"]
    fields = [*WAREHOUSE_FORM_FIELDS, "is_default", "created_at", "updated_at"]
    readonly_fields = ["is_default", "created_at", "updated_at"]
    actions = ["make_default", "activate", "deactivate"]

    def save_model(self, request, obj, form, change):
        values = {name: form.cleaned_data[name] for name in WAREHOUSE_FORM_FIELDS}
        if change:
            saved = services.warehouse_update(warehouse_id=obj.pk, fields=values)
        else:
            saved = services.warehouse_create(fields=values)
        obj.pk = saved.pk

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if obj is not None and obj.is_default and "is_active" in form.base_fields:
            form.base_fields["is_active"].disabled = True
            form.base_fields["is_active"].help_text = "The default warehouse is always active."
        return form

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.is_default:
            return False
        return super().has_delete_permission(request, obj)

    def delete_model(self, request, obj):
        services.warehouse_delete(warehouse_id=obj.pk)

    def delete_queryset(self, request, queryset):
        for_each(
            self,
            request,
            queryset.values_list("pk", flat=True),
            lambda pk: services.warehouse_delete(warehouse_id=pk),
            label="Warehouse",
        )

    def _each(self, request, queryset, call, done: str) -> None:
        ids = queryset.values_list("pk", flat=True)
        count = for_each(self, request, ids, call, label="Warehouse")
        self.message_user(request, f"{count} warehouse(s) {done}.")

    @admin.action(description="Make the default warehouse")
    def make_default(self, request, queryset):
        if queryset.count() != 1:
            self.message_user(request, "Choose exactly one warehouse.", messages.ERROR)
            return
        self._each(
            request,
            queryset,
            lambda pk: services.warehouse_set_default(warehouse_id=pk),
            "made the default",
        )

    @admin.action(description="Activate")
    def activate(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda pk: services.warehouse_set_active(warehouse_id=pk, active=True),
            "activated",
        )

    @admin.action(description="Deactivate")
    def deactivate(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda pk: services.warehouse_set_active(warehouse_id=pk, active=False),
            "deactivated",
        )


@admin.register(StockLevel)
class StockLevelAdmin(RefusalsAsMessages, admin.ModelAdmin):
    """Levels: read only but for the reorder point and quantity (stock_reorder_set). Their
    quantities change through the ledger's services (products, orders, the ERP's adjust,
    transfer and stocktake routes)."""

    list_display = [
        "__str__",
        "product",
        "variant",
        "warehouse",
        "quantity",
        "unit_cost",
        "reorder_point",
        "reorder_quantity",
        "updated_at",
    ]
    list_filter = ["warehouse"]
    search_fields = ["product__title", "product__sku", "variant__sku", "variant__title"]
    list_select_related = ["product", "variant", "warehouse"]
    fields = [
        "warehouse",
        "product",
        "variant",
        "quantity",
        "unit_cost",
        "reorder_point",
        "reorder_quantity",
        "updated_at",
    ]
    readonly_fields = ["warehouse", "product", "variant", "quantity", "unit_cost", "updated_at"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        services.stock_reorder_set(
            level_id=obj.pk,
            fields={name: form.cleaned_data[name] for name in services.REORDER_FIELDS},
        )


@admin.register(StockMovement)
class StockMovementAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at",
        "sku",
        "product",
        "variant",
        "warehouse",
        "quantity",
        "quantity_after",
        "unit_cost",
        "reason",
        "reference_type",
        "reference_id",
        "note",
        "actor",
    ]
    # The ERP's operations show here too: reasons transfer_out/in, stocktake,
    # purchase_received, and reference types adjustment, transfer, stocktake.
    list_filter = ["reason", "reference_type", "warehouse"]
    search_fields = ["sku", "reference_id", "idempotency_key", "product__title", "note"]
    list_select_related = ["product", "variant", "warehouse", "actor"]
    date_hierarchy = "created_at"
