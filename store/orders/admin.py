"""Orders admin: the order with its items, payments, shipments and history inline.

Everything that has a rule goes through store.orders.services: the form's changes through
order_update (totals recalculated), status moves through actions calling order_status_set
(with their stock effects; each move is in the order's History: common.admin.ActionsInHistory),
deletion through order_delete (stock given back first). Orders are created by the API and the
checkout (order_create), not here. The addresses are real fields cleaned by the store's
address rule; the order and payment pages show their history (common.audit); the list exports
to CSV.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from common.admin import (
    ActionsInHistory,
    AuditTrailInline,
    RefusalsAsMessages,
    add_refusal,
    csv_export_action,
    for_each,
)
from common.csv_export import Column, column
from common.errors import ServiceError
from store.common.addresses import ADDRESS_FIELDS, address_form_fields, address_from_form
from store.orders import services
from store.orders.choices import OrderSource, OrderStatus
from store.orders.models import Order, OrderItem, OrderStatusChange, Payment, Shipment
from store.orders.services.totals import total_for

ADDRESSES = ("billing", "shipping")
FORM_FIELDS = (
    "customer",
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


def _stored_address(order: Order, kind: str) -> dict:
    stored = getattr(order, f"{kind}_address") or {}
    return {key: value for key, value in stored.items() if value not in ("", None)}


class OrderFormBase(forms.ModelForm):
    """The order's editable fields; the two addresses as real fields (see OrderForm), cleaned
    by the store's address rule; totals checked by the rule order_update applies."""

    class Meta:
        model = Order
        fields = list(FORM_FIELDS)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for kind in ADDRESSES:
            stored = getattr(self.instance, f"{kind}_address") or {}
            for name in ADDRESS_FIELDS:
                self.initial.setdefault(f"{kind}_{name}", stored.get(name, ""))

    def clean(self):
        cleaned = super().clean()
        for kind in ADDRESSES:
            cleaned[f"{kind}_address"] = address_from_form(self, kind)
        order = self.instance
        amounts = [
            cleaned.get(name) for name in ("discount_total", "shipping_total", "shipping_tax")
        ]
        if None not in amounts:
            discount, shipping, shipping_tax = amounts
            try:
                total_for(
                    subtotal=order.subtotal,
                    discount_total=discount,
                    shipping_total=shipping,
                    tax_total=order.tax_total - order.shipping_tax + shipping_tax,
                )
            except ServiceError as exc:
                add_refusal(self, exc)
        return cleaned


# The address fields are declared on the class (the admin's fieldsets name them).
OrderForm = type(
    "OrderForm",
    (OrderFormBase,),
    {
        "__module__": __name__,
        **address_form_fields("billing"),
        **address_form_fields("shipping"),
    },
)


def _billing_name(order: Order) -> str:
    address = order.billing_address or {}
    return " ".join(filter(None, [address.get("first_name"), address.get("last_name")]))


ORDER_CSV = [
    column("order_number"),
    column("created_at"),
    column("status"),
    column("payment_status"),
    column("fulfillment_status"),
    column("customer_email", "customer.email"),
    Column("billing_name", _billing_name),
    Column("billing_country", lambda order: (order.billing_address or {}).get("country", "")),
    column("currency"),
    column("subtotal"),
    column("discount_total"),
    column("shipping_total"),
    column("tax_total"),
    column("total"),
    column("amount_paid"),
    column("amount_refunded"),
    column("item_count"),
    column("payment_method"),
    column("shipping_method"),
    column("source"),
]


PAYMENT_CSV = [
    column("order_number", "order.order_number"),
    column("order_id"),
    column("kind"),
    column("status"),
    Column("amount", lambda payment: payment.signed_amount),  # a refund negative
    column("currency", "order.currency"),
    column("method"),
    column("transaction_id"),
    column("paid_at"),
    column("note"),
]


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


class SignedAmount:
    """A payment's amount signed as in every list: a refund is negative."""

    @admin.display(description="Amount", ordering="amount")
    def signed_amount(self, payment: Payment):
        return payment.signed_amount


class PaymentInline(SignedAmount, ReadOnlyInline):
    model = Payment
    fields = ["kind", "status", "signed_amount", "method", "transaction_id", "paid_at", "note"]
    readonly_fields = fields
    show_change_link = True  # the payment's page shows its history


class ShipmentInline(ReadOnlyInline):
    model = Shipment
    fields = ["status", "units", "carrier", "tracking_number", "shipped_at", "delivered_at"]
    readonly_fields = fields

    @admin.display(description="Units")
    def units(self, obj):
        return ", ".join(f"{line.quantity} x item {line.order_item_id}" for line in obj.items.all())


class HistoryInline(ReadOnlyInline):
    model = OrderStatusChange
    verbose_name_plural = "status history (shown to the customer's API)"
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
class OrderAdmin(ActionsInHistory, RefusalsAsMessages, admin.ModelAdmin):
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
        ("Billing address", {"fields": [f"billing_{name}" for name in ADDRESS_FIELDS]}),
        ("Shipping address", {"fields": [f"shipping_{name}" for name in ADDRESS_FIELDS]}),
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
    inlines = [ItemInline, PaymentInline, ShipmentInline, HistoryInline, AuditTrailInline]
    actions = [
        *(_status_action(value, label.lower()) for value, label in OrderStatus.choices),
        csv_export_action(ORDER_CSV, name="orders", select_related=["customer"]),
    ]
    list_per_page = 50

    def has_add_permission(self, request):
        return False

    def save_model(self, request, obj, form, change):
        fields = {
            name: form.cleaned_data[name] for name in FORM_FIELDS if name in form.changed_data
        }
        for kind in ADDRESSES:
            address = form.cleaned_data[f"{kind}_address"]
            if address != _stored_address(obj, kind):
                fields[f"{kind}_address"] = address
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
        for_each(
            self,
            request,
            queryset.values_list("pk", flat=True),
            lambda pk: services.order_delete(order_id=pk, actor=request.user),
            label="Order",
        )


@admin.register(Payment)
class PaymentAdmin(ActionsInHistory, SignedAmount, RefusalsAsMessages, admin.ModelAdmin):
    """Payments and refunds (recorded through the API and the checkout), with their history;
    deleting one goes through payment_delete (the order's amounts follow)."""

    list_display = [
        "__str__",
        "order",
        "kind",
        "status",
        "signed_amount",
        "method",
        "transaction_id",
        "paid_at",
    ]
    list_filter = ["kind", "status", "method"]
    search_fields = ["transaction_id", "order__order_number", "note"]
    list_select_related = ["order"]
    date_hierarchy = "paid_at"
    fields = [
        "order",
        "kind",
        "status",
        "signed_amount",
        "method",
        "transaction_id",
        "note",
        "paid_at",
        "created_by",
        "created_at",
        "updated_at",
    ]
    readonly_fields = fields
    inlines = [AuditTrailInline]
    actions = [csv_export_action(PAYMENT_CSV, name="payments", select_related=["order"])]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def delete_model(self, request, obj):
        services.payment_delete(payment_id=obj.pk, actor=request.user, source=OrderSource.ADMIN)

    def delete_queryset(self, request, queryset):
        for_each(
            self,
            request,
            queryset.values_list("pk", flat=True),
            lambda pk: services.payment_delete(
                payment_id=pk, actor=request.user, source=OrderSource.ADMIN
            ),
            label="Payment",
        )
