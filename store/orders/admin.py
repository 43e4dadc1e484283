"""Orders admin: the order with its items, payments, shipments and history inline.

Everything that has a rule goes through store.orders.services: the form's changes through
order_update (totals recalculated), status moves through actions calling order_status_set
(with their stock effects), deletion through order_delete (stock given back first). Orders
are created by the API and the checkout (order_create), not here.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from common.errors import ServiceError
from store.orders import services
from store.orders.api.serializers import AddressSerializer
from store.orders.choices import OrderSource, OrderStatus
from store.orders.models import Order, OrderItem, OrderStatusChange, Payment, Shipment

FORM_FIELDS = (
    "customer",
    "billing_address",
    "shipping_address",
    "payment_method",
    "payment_method_title",
    "shipping_method",
    "shipping_method_title",
    "customer_note",
    "admin_note",
    "shipping_total",
    "shipping_tax",
    "discount_total",
)


class OrderForm(forms.ModelForm):
    class Meta:
        model = Order
        fields = list(FORM_FIELDS)

    def _address(self, name):
        value = self.cleaned_data.get(name) or {}
        if not isinstance(value, dict):
            raise forms.ValidationError("An address is a JSON object.")
        serializer = AddressSerializer(data=value)
        if not serializer.is_valid():
            raise forms.ValidationError(
                "; ".join(
                    f"{key}: {' '.join(map(str, errs))}" for key, errs in serializer.errors.items()
                )
            )
        return dict(serializer.validated_data)

    def clean_billing_address(self):
        return self._address("billing_address")

    def clean_shipping_address(self):
        return self._address("shipping_address")

    def clean(self):
        cleaned = super().clean()
        order = self.instance
        discount = cleaned.get("discount_total")
        shipping = cleaned.get("shipping_total")
        shipping_tax = cleaned.get("shipping_tax")
        if None not in (discount, shipping, shipping_tax):
            line_tax = order.tax_total - order.shipping_tax
            if order.subtotal + shipping + shipping_tax + line_tax - discount < 0:
                self.add_error("discount_total", "The discount is larger than the order.")
        return cleaned


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ItemInline(ReadOnlyInline):
    model = OrderItem
    fields = ["title", "sku", "product", "variant", "quantity", "unit_price", "tax", "total"]
    readonly_fields = fields


class PaymentInline(ReadOnlyInline):
    model = Payment
    fields = ["kind", "status", "amount", "method", "transaction_id", "paid_at", "note"]
    readonly_fields = fields


class ShipmentInline(ReadOnlyInline):
    model = Shipment
    fields = ["status", "units", "carrier", "tracking_number", "shipped_at", "delivered_at"]
    readonly_fields = fields

    @admin.display(description="Units")
    def units(self, obj):
        return ", ".join(f"{line.quantity} x item {line.order_item_id}" for line in obj.items.all())


class HistoryInline(ReadOnlyInline):
    model = OrderStatusChange
    fields = ["created_at", "field", "from_value", "to_value", "note", "source", "actor"]
    readonly_fields = fields


def _status_action(status: str, label: str):
    def action(modeladmin, request, queryset):
        ids = list(queryset.values_list("pk", flat=True))
        moved = 0
        for start in range(0, len(ids), services.BULK_LIMIT):
            result = services.orders_bulk(
                ids=ids[start : start + services.BULK_LIMIT],
                action=status,
                actor=request.user,
                source=OrderSource.ADMIN,
            )
            moved += len(result.succeeded)
            for failure in result.failed:
                modeladmin.message_user(
                    request, f"Order {failure['id']}: {failure['message']}", messages.ERROR
                )
        if moved:
            modeladmin.message_user(request, f"{moved} order(s) {label}.")

    action.__name__ = f"mark_{status}"
    return admin.action(description=f"Mark as {label} (with its stock effect)")(action)


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    form = OrderForm
    list_display = [
        "order_number",
        "status",
        "payment_status",
        "fulfillment_status",
        "customer",
        "total",
        "currency",
        "item_count",
        "created_at",
    ]
    list_filter = ["status", "payment_status", "fulfillment_status", "currency", "source"]
    search_fields = [
        "order_number",
        "customer__email",
        "customer__first_name",
        "customer__last_name",
        "items__sku",
    ]
    list_select_related = ["customer"]
    raw_id_fields = ["customer"]
    date_hierarchy = "created_at"
    readonly_fields = [
        "order_number",
        "order_key",
        "status",
        "payment_status",
        "fulfillment_status",
        "currency",
        "subtotal",
        "tax_total",
        "total",
        "amount_paid",
        "amount_refunded",
        "item_count",
        "source",
        "created_by",
        "stock_release_pending",
        "created_at",
        "updated_at",
        "paid_at",
        "completed_at",
    ]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "order_number",
                    "status",
                    "payment_status",
                    "fulfillment_status",
                    "customer",
                    "source",
                    "created_by",
                ]
            },
        ),
        ("Addresses", {"fields": ["billing_address", "shipping_address"]}),
        (
            "Methods and notes",
            {
                "fields": [
                    "payment_method",
                    "payment_method_title",
                    "shipping_method",
                    "shipping_method_title",
                    "customer_note",
                    "admin_note",
                ]
            },
        ),
        (
            "Totals",
            {
                "fields": [
                    "currency",
                    "subtotal",
                    "discount_total",
                    "shipping_total",
                    "shipping_tax",
                    "tax_total",
                    "total",
                    "amount_paid",
                    "amount_refunded",
                    "item_count",
                ]
            },
        ),
        (
            "Record",
            {
                "fields": [
                    "order_key",
                    "stock_release_pending",
                    "created_at",
                    "updated_at",
                    "paid_at",
                    "completed_at",
                ]
            },
        ),
    ]
    inlines = [ItemInline, PaymentInline, ShipmentInline, HistoryInline]
    actions = [_status_action(value, label.lower()) for value, label in OrderStatus.choices]
    list_per_page = 50

    def has_add_permission(self, request):
        return False

    def save_model(self, request, obj, form, change):
        fields = {
            name: form.cleaned_data[name] for name in FORM_FIELDS if name in form.changed_data
        }
        if "customer" in fields:
            customer = fields.pop("customer")
            fields["customer_id"] = customer.pk if customer else None
        services.order_update(
            order_id=obj.pk, fields=fields, actor=request.user, source=OrderSource.ADMIN
        )
        obj.refresh_from_db()

    def delete_model(self, request, obj):
        services.order_delete(order_id=obj.pk, actor=request.user)

    def delete_queryset(self, request, queryset):
        for order_id in queryset.values_list("pk", flat=True):
            try:
                services.order_delete(order_id=order_id, actor=request.user)
            except ServiceError as exc:
                self.message_user(request, f"Order {order_id}: {exc.detail}", messages.ERROR)
