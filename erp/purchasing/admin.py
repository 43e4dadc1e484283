"""Purchasing admin: suppliers and their prices through the services (the forms check by the
same rules); purchase orders viewed with their lines, sent (e-mailed or only marked) and
cancelled by actions that call the services; goods-received notes read-only (they are written
by receiving, with their stock movements)."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from common.admin import ReadOnlyAdmin, ServiceAdmin, ServiceForm, for_each
from erp.purchasing import services
from erp.purchasing.models import (
    GoodsReceivedLine,
    GoodsReceivedNote,
    PurchaseOrder,
    PurchaseOrderEmail,
    PurchaseOrderLine,
    Supplier,
    SupplierPrice,
)

SUPPLIER_FIELDS = list(services.SUPPLIER_FIELDS)


class SupplierForm(ServiceForm):
    generated = ("code",)
    website = forms.URLField(max_length=255, required=False, assume_scheme="https")

    class Meta:
        model = Supplier
        fields = SUPPLIER_FIELDS

    def check(self, fields: dict) -> None:
        services.supplier_check(fields=fields, supplier_id=self.instance.pk)


@admin.register(Supplier)
class SupplierAdmin(ServiceAdmin):
    form = SupplierForm
    list_display = ["name", "code", "email", "country", "currency", "is_active"]
    list_filter = ["is_active", "currency", "country"]
    search_fields = ["name", "code", "email", "vat_number"]
    readonly_fields = ["created_at", "updated_at"]

    def create(self, request, fields):
        return services.supplier_create(fields=fields)

    def update(self, request, obj, fields):
        return services.supplier_update(supplier_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.supplier_delete(supplier_id=obj.pk)


class SupplierPriceForm(ServiceForm):
    ids = {"supplier": "supplier_id", "product": "product_id", "variant": "variant_id"}

    class Meta:
        model = SupplierPrice
        fields = [
            "supplier",
            "product",
            "variant",
            "supplier_sku",
            "unit_price",
            "currency",
            "min_quantity",
            "lead_time_days",
        ]

    def check(self, fields: dict) -> None:
        services.supplier_price_check(fields=fields, price_id=self.instance.pk)


@admin.register(SupplierPrice)
class SupplierPriceAdmin(ServiceAdmin):
    form = SupplierPriceForm
    list_display = ["supplier", "product", "variant", "unit_price", "currency", "min_quantity"]
    list_filter = ["currency"]
    list_select_related = ["supplier", "product", "variant"]
    raw_id_fields = ["supplier", "product", "variant"]
    search_fields = ["supplier__name", "supplier_sku", "product__title", "product__sku"]

    def get_readonly_fields(self, request, obj=None):
        return ["supplier", "product", "variant"] if obj is not None else []

    def create(self, request, fields):
        supplier_id = fields.pop("supplier_id")
        return services.supplier_price_create(supplier_id=supplier_id, fields=fields)

    def update(self, request, obj, fields):
        return services.supplier_price_update(price_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.supplier_price_delete(price_id=obj.pk)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class OrderLineInline(ReadOnlyInline):
    model = PurchaseOrderLine
    fields = ["sku", "name", "supplier_sku", "quantity", "quantity_received", "unit_cost"]
    readonly_fields = fields


class OrderEmailInline(ReadOnlyInline):
    model = PurchaseOrderEmail
    fields = ["recipient", "status", "error", "created_at", "sent_at"]
    readonly_fields = fields


@admin.register(PurchaseOrder)
class PurchaseOrderAdmin(ReadOnlyAdmin):
    """Orders are written by the API (lines, receipts); here they are viewed, sent and
    cancelled."""

    list_display = ["number", "supplier", "status", "order_date", "total", "currency", "origin"]
    list_filter = ["status", "origin", "currency"]
    list_select_related = ["supplier"]
    search_fields = ["number", "supplier__name", "supplier_reference"]
    date_hierarchy = "order_date"
    inlines = [OrderLineInline, OrderEmailInline]
    actions = ["send_by_email", "mark_sent", "cancel"]

    def _each(self, request, queryset, call, done: str) -> None:
        ids = queryset.values_list("pk", flat=True)
        count = for_each(self, request, ids, call, label="Purchase order")
        self.message_user(request, f"{count} purchase order(s) {done}.")

    @admin.action(description="Send by e-mail (PDF attached)")
    def send_by_email(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda pk: services.purchase_order_send(order_id=pk, user=request.user),
            "sent",
        )

    @admin.action(description="Mark sent (no e-mail)")
    def mark_sent(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda pk: services.purchase_order_send(order_id=pk, email=False, user=request.user),
            "marked sent",
        )

    @admin.action(description="Cancel")
    def cancel(self, request, queryset):
        self._each(
            request, queryset, lambda pk: services.purchase_order_cancel(order_id=pk), "cancelled"
        )


class NoteLineInline(ReadOnlyInline):
    model = GoodsReceivedLine
    fields = ["sku", "quantity", "unit_cost", "stock_unit_cost", "movement"]
    readonly_fields = fields


@admin.register(GoodsReceivedNote)
class GoodsReceivedNoteAdmin(ReadOnlyAdmin):
    list_display = ["number", "purchase_order", "supplier", "warehouse", "received_at"]
    list_select_related = ["purchase_order", "supplier", "warehouse"]
    list_filter = ["warehouse"]
    search_fields = ["number", "purchase_order__number", "supplier__name", "supplier_reference"]
    inlines = [NoteLineInline]
