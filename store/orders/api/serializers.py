"""Order bodies: input serializers (validate only) and the output shapes.

Outputs are plain functions (`order_summary`, `order_detail`, ...) so a page of 100 orders is
rendered without DRF's per-field machinery; the serializer classes beside them declare the
same shapes for the OpenAPI description.
"""

from __future__ import annotations

from decimal import Decimal

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.addresses import AddressSerializer, address_data
from store.common.formats import iso
from store.common.money import MoneyField, money_str
from store.common.params import (
    AliasedSerializer,
    CaseInsensitiveChoiceField,
    ChoiceListField,
    PageField,
    PerPageField,
)
from store.orders import selectors
from store.orders.choices import (
    FulfillmentStatus,
    HistoryField,
    OrderSource,
    OrderStatus,
    PaymentKind,
    PaymentRecordStatus,
    PaymentStatus,
    ShipmentStatus,
)
from store.orders.shapes import (  # noqa: F401 - the lists' shapes, used by this api's views
    CustomerRefSerializer,
    OrderPageSerializer,
    OrderSummarySerializer,
    order_summary,
    order_summary_row,
    page_body,
    page_response,
)
from store.settings.sections import CURRENCY_CODES

# --- Output -------------------------------------------------------------------------------------


def balance_due(order) -> Decimal:
    return max(order.total - (order.amount_paid - order.amount_refunded), Decimal(0))


def order_totals(order) -> dict:
    """What a change of lines, payments or shipments changes on its order."""
    return {
        "id": order.pk,
        "order_number": order.order_number,
        "status": order.status,
        "payment_status": order.payment_status,
        "fulfillment_status": order.fulfillment_status,
        "currency": order.currency,
        "subtotal": money_str(order.subtotal),
        "discount_total": money_str(order.discount_total),
        "shipping_total": money_str(order.shipping_total),
        "shipping_tax": money_str(order.shipping_tax),
        "tax_total": money_str(order.tax_total),
        "total": money_str(order.total),
        "amount_paid": money_str(order.amount_paid),
        "amount_refunded": money_str(order.amount_refunded),
        "balance_due": money_str(balance_due(order)),
        "item_count": order.item_count,
    }


def item_data(item, *, order=None) -> dict:
    data = {
        "id": item.pk,
        "order_id": item.order_id,
        "product_id": item.product_id,
        "variant_id": item.variant_id,
        "title": item.title,
        "sku": item.sku,
        "attributes": item.attributes,
        "options": item.options,
        "quantity": item.quantity,
        "price": money_str(item.unit_price),
        "subtotal": money_str(item.subtotal),
        "tax": money_str(item.tax),
        "total": money_str(item.total),
        "restocked": item.restocked,
    }
    if order is not None:
        data["order"] = order_totals(order)
    return data


def payment_data(payment, *, order=None) -> dict:
    data = {
        "id": payment.pk,
        "order_id": payment.order_id,
        "kind": payment.kind,
        "status": payment.status,
        "amount": money_str(payment.signed_amount),
        "method": payment.method,
        "transaction_id": payment.transaction_id,
        "note": payment.note,
        "paid_at": iso(payment.paid_at),
        "created_at": iso(payment.created_at),
        "updated_at": iso(payment.updated_at),
    }
    if order is not None:
        data["currency"] = order.currency
        data["order"] = order_totals(order)
    return data


def shipment_data(shipment, *, order=None) -> dict:
    data = {
        "id": shipment.pk,
        "order_id": shipment.order_id,
        "status": shipment.status,
        "carrier": shipment.carrier,
        "service": shipment.service,
        "tracking_number": shipment.tracking_number,
        "tracking_url": shipment.tracking_url,
        "note": shipment.note,
        "items": [
            {"order_item_id": line.order_item_id, "quantity": line.quantity}
            for line in shipment.items.all()
        ],
        "shipped_at": iso(shipment.shipped_at),
        "delivered_at": iso(shipment.delivered_at),
        "created_at": iso(shipment.created_at),
        "updated_at": iso(shipment.updated_at),
    }
    if order is not None:
        data["order"] = order_totals(order)
    return data


def history_data(change: dict) -> dict:
    """One row of selectors.history_rows."""
    return {
        "id": change["id"],
        "field": change["field"],
        "from": change["from_value"] or None,
        "to": change["to_value"],
        "note": change["note"],
        "source": change["source"],
        "actor": change["actor__email"],
        "created_at": iso(change["created_at"]),
    }


def coupon_lines_data(order) -> list[dict]:
    return [
        {
            "code": str(line.get("code", "")),
            "discount": money_str(line.get("discount") or 0),
            "discount_tax": money_str(line.get("discount_tax") or 0),
        }
        for line in order.coupon_lines or []
    ]


def status_history(order) -> list[dict]:
    """The latest changes, oldest first: what order_get read, or read now."""
    recent = getattr(order, "recent_history", None)
    return recent if recent is not None else selectors.history_rows(order.pk)


def order_detail(order, *, staff: bool = True) -> dict:
    """The full order. Customers (their account, the confirmation page) do not see the staff
    note, the payment records, the history or the order key."""
    data = order_summary(order)
    data.update(order_totals(order))
    data.update(
        {
            "billing_address": address_data(order.billing_address),
            "shipping_address": address_data(order.shipping_address),
            "payment_method": order.payment_method,
            "payment_method_title": order.payment_method_title,
            "shipping_method": order.shipping_method,
            "shipping_method_title": order.shipping_method_title,
            "customer_note": order.customer_note,
            "vat_number": order.vat_number,
            "reverse_charge": order.reverse_charge,
            "coupons": coupon_lines_data(order),
            "items": [item_data(item) for item in order.items.all()],
            "shipments": [shipment_data(s) for s in order.shipments.all()],
            "paid_at": iso(order.paid_at),
            "completed_at": iso(order.completed_at),
        }
    )
    if staff:
        data.update(
            {
                "admin_note": order.admin_note,
                "order_key": order.order_key,
                "source": order.source,
                "payments": [payment_data(p) for p in order.payments.all()],
                "status_history": [history_data(h) for h in status_history(order)],
            }
        )
    return data


# --- Output shapes (OpenAPI) --------------------------------------------------------------------


class OrderTotalsSerializer(serializers.Serializer):
    id = IdField()
    order_number = serializers.CharField()
    status = serializers.ChoiceField(choices=OrderStatus.choices)
    payment_status = serializers.ChoiceField(choices=PaymentStatus.choices)
    fulfillment_status = serializers.ChoiceField(choices=FulfillmentStatus.choices)
    currency = serializers.CharField()
    subtotal = serializers.CharField()
    discount_total = serializers.CharField()
    shipping_total = serializers.CharField()
    shipping_tax = serializers.CharField()
    tax_total = serializers.CharField(help_text="Line taxes plus shipping tax.")
    total = serializers.CharField(help_text="subtotal - discount + shipping + tax.")
    amount_paid = serializers.CharField(help_text="Completed payments.")
    amount_refunded = serializers.CharField(help_text="Completed refunds.")
    balance_due = serializers.CharField()
    item_count = IntegerField()


class ItemAttributeSerializer(serializers.Serializer):
    attribute = serializers.CharField()
    value = serializers.CharField()


class OrderItemSerializer(serializers.Serializer):
    id = IdField()
    order_id = IdField()
    product_id = IdField(allow_null=True, help_text="Null once deleted.")
    variant_id = IdField(allow_null=True)
    title = serializers.CharField(help_text="At the time of the order.")
    sku = serializers.CharField()
    attributes = ItemAttributeSerializer(many=True)
    options = serializers.DictField()
    quantity = IntegerField()
    price = serializers.CharField(help_text="Unit price at the time of the order.")
    subtotal = serializers.CharField(help_text="price x quantity.")
    tax = serializers.CharField()
    total = serializers.CharField(help_text="subtotal + tax.")
    restocked = IntegerField(
        help_text="Units given back to stock (a refund's restock): the line holds that many fewer."
    )


class OrderItemWithTotalsSerializer(OrderItemSerializer):
    order = OrderTotalsSerializer(help_text="The order's recalculated totals.")


class OrderItemsSerializer(serializers.Serializer):
    items = OrderItemSerializer(many=True)


class PaymentSerializer(serializers.Serializer):
    id = IdField()
    order_id = IdField()
    kind = serializers.ChoiceField(choices=PaymentKind.choices)
    status = serializers.ChoiceField(choices=PaymentRecordStatus.choices)
    amount = serializers.CharField(
        help_text="Signed: a refund (money going back) is negative, so an order's payments "
        "sum to what the shop kept."
    )
    method = serializers.CharField()
    transaction_id = serializers.CharField()
    note = serializers.CharField()
    paid_at = serializers.DateTimeField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class PaymentWithOrderSerializer(PaymentSerializer):
    currency = serializers.CharField()
    order = OrderTotalsSerializer(help_text="The order's amounts and payment status now.")


class PaymentsSerializer(serializers.Serializer):
    payments = PaymentSerializer(many=True)


class ShipmentLineSerializer(serializers.Serializer):
    order_item_id = IntegerField(min_value=1)
    quantity = IntegerField(min_value=1, max_value=1_000_000)


class ShipmentSerializer(serializers.Serializer):
    id = IdField()
    order_id = IdField()
    status = serializers.ChoiceField(choices=ShipmentStatus.choices)
    carrier = serializers.CharField()
    service = serializers.CharField()
    tracking_number = serializers.CharField()
    tracking_url = serializers.CharField()
    note = serializers.CharField()
    items = ShipmentLineSerializer(many=True)
    shipped_at = serializers.DateTimeField(allow_null=True)
    delivered_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class ShipmentWithOrderSerializer(ShipmentSerializer):
    order = OrderTotalsSerializer(help_text="The order's fulfilment status now.")


class ShipmentsSerializer(serializers.Serializer):
    shipments = ShipmentSerializer(many=True)


class HistorySerializer(serializers.Serializer):
    id = IdField()
    field = serializers.ChoiceField(choices=HistoryField.choices)
    # "from" is a Python keyword: declared through the fields mapping below.
    to = serializers.CharField()
    note = serializers.CharField()
    source = serializers.ChoiceField(choices=OrderSource.choices)
    actor = serializers.EmailField(allow_null=True)
    created_at = serializers.DateTimeField()

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = serializers.CharField(allow_null=True)
        return fields


class OrderCouponSerializer(serializers.Serializer):
    code = serializers.CharField()
    discount = serializers.CharField(help_text="Taken off, without tax.")
    discount_tax = serializers.CharField(help_text="Tax taken off with it.")


class CustomerOrderSerializer(OrderSummarySerializer, OrderTotalsSerializer):
    """The full order as its customer sees it."""

    billing_address = AddressSerializer()
    shipping_address = AddressSerializer()
    payment_method = serializers.CharField()
    payment_method_title = serializers.CharField()
    shipping_method = serializers.CharField()
    shipping_method_title = serializers.CharField()
    customer_note = serializers.CharField()
    vat_number = serializers.CharField(help_text="The customer's EU VAT number ('' for none).")
    reverse_charge = serializers.BooleanField(
        help_text="The EU B2B reverse charge applied (store.tax): no tax on the order."
    )
    coupons = OrderCouponSerializer(many=True, help_text="The coupons behind discount_total.")
    items = OrderItemSerializer(many=True)
    shipments = ShipmentSerializer(many=True)
    paid_at = serializers.DateTimeField(allow_null=True)
    completed_at = serializers.DateTimeField(allow_null=True)


class OrderSerializer(CustomerOrderSerializer):
    """The full order, for staff."""

    admin_note = serializers.CharField()
    order_key = serializers.CharField(help_text="The secret of /order-received/{id}?key=.")
    source = serializers.ChoiceField(choices=OrderSource.choices)
    payments = PaymentSerializer(many=True)
    status_history = HistorySerializer(many=True)


class BulkFailureSerializer(serializers.Serializer):
    id = IdField()
    code = serializers.CharField()
    message = serializers.CharField()


class OrderBulkResultSerializer(serializers.Serializer):
    success = IntegerField(help_text="How many orders took the action.")
    failed = IntegerField(help_text="How many did not.")
    succeeded = serializers.ListField(child=IntegerField())
    errors = BulkFailureSerializer(many=True, help_text="Each failed order and why.")


class StatusInfoSerializer(serializers.Serializer):
    value = serializers.CharField()
    label = serializers.CharField()


class OrderStatusInfoSerializer(StatusInfoSerializer):
    terminal = serializers.BooleanField(help_text="Cancelled, refunded, failed: holds no stock.")
    editable = serializers.BooleanField(help_text="Items may change.")
    transitions = serializers.ListField(
        child=serializers.CharField(), help_text="The statuses it may move to."
    )


class StatusesSerializer(serializers.Serializer):
    statuses = OrderStatusInfoSerializer(many=True)
    payment_statuses = StatusInfoSerializer(many=True)
    fulfillment_statuses = StatusInfoSerializer(many=True)


class SalesSerializer(serializers.Serializer):
    currency = serializers.CharField()
    orders = IntegerField()
    total_sales = serializers.CharField()
    average_order_value = serializers.CharField()
    net_paid = serializers.CharField()
    items_sold = IntegerField()


class StatsSerializer(serializers.Serializer):
    total_orders = IntegerField()
    by_status = serializers.DictField(child=IntegerField())
    by_payment_status = serializers.DictField(child=IntegerField())
    by_fulfillment_status = serializers.DictField(child=IntegerField())
    sales = SalesSerializer(
        many=True, help_text="Orders in processing, shipped or completed, per currency."
    )


# --- Input --------------------------------------------------------------------------------------


class OrderListQuerySerializer(serializers.Serializer):
    pure_query = True  # store.common.params.validate_query remembers it per distinct query

    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")
    status = ChoiceListField(choices=OrderStatus.values)
    payment_status = ChoiceListField(choices=PaymentStatus.values)
    fulfillment_status = ChoiceListField(choices=FulfillmentStatus.values)
    customer_id = IdField(required=False, min_value=1)
    date_from = serializers.DateField(
        required=False, help_text="ISO date; orders created on or after (UTC)."
    )
    date_to = serializers.DateField(
        required=False, help_text="ISO date; orders created on or before (UTC)."
    )
    search = serializers.CharField(
        required=False,
        max_length=200,
        help_text="Order number or id, customer or billing e-mail, name or phone, item SKU "
        "or title.",
    )
    orderby = CaseInsensitiveChoiceField(
        choices=["date", "id", "total", "order_number", "status", "modified"],
        required=False,
        default="date",
    )
    order = CaseInsensitiveChoiceField(choices=["ASC", "DESC"], required=False, default="DESC")

    def validate(self, attrs):
        low, high = attrs.get("date_from"), attrs.get("date_to")
        if low and high and low > high:
            raise serializers.ValidationError({"date_to": ["date_to is before date_from."]})
        return attrs


class StatsQuerySerializer(serializers.Serializer):
    pure_query = True

    status = ChoiceListField(choices=OrderStatus.values)
    payment_status = ChoiceListField(choices=PaymentStatus.values)
    fulfillment_status = ChoiceListField(choices=FulfillmentStatus.values)
    customer_id = IdField(required=False, min_value=1)
    date_from = serializers.DateField(required=False)
    date_to = serializers.DateField(required=False)
    search = serializers.CharField(required=False, max_length=200)

    validate = OrderListQuerySerializer.validate


class AccountOrdersQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")
    status = ChoiceListField(choices=OrderStatus.values)


class OrderReceivedQuerySerializer(serializers.Serializer):
    key = serializers.CharField(
        required=False, allow_blank=True, max_length=200, help_text="The order key."
    )


class OrderItemInSerializer(AliasedSerializer):
    aliases = {"unit_price": "price"}  # the same as price

    product_id = IntegerField(min_value=1)
    variant_id = IntegerField(min_value=1, required=False, allow_null=True)
    quantity = IntegerField(min_value=1, max_value=1_000_000, required=False, default=1)
    price = MoneyField(
        required=False,
        allow_null=True,
        help_text="Unit price; default the product's (or variant's) price now.",
    )
    tax = MoneyField(required=False, allow_null=True, help_text="Tax of the whole line.")
    title = serializers.CharField(max_length=255, required=False, allow_blank=True)
    sku = serializers.CharField(max_length=64, required=False, allow_blank=True)
    options = serializers.DictField(required=False)


class OrderItemUpdateSerializer(serializers.Serializer):
    quantity = IntegerField(min_value=1, max_value=1_000_000, required=False)
    price = MoneyField(required=False, help_text="Unit price.")
    tax = MoneyField(required=False)
    title = serializers.CharField(max_length=255, required=False)
    sku = serializers.CharField(max_length=64, required=False, allow_blank=True)
    options = serializers.DictField(required=False)


class OrderFieldsSerializer(AliasedSerializer):
    aliases = {"billing": "billing_address", "shipping": "shipping_address"}

    customer_id = IntegerField(min_value=1, required=False, allow_null=True)
    currency = CaseInsensitiveChoiceField(
        choices=CURRENCY_CODES, required=False, help_text="ISO 4217; default the store's."
    )
    payment_method = serializers.CharField(max_length=100, required=False, allow_blank=True)
    payment_method_title = serializers.CharField(max_length=200, required=False, allow_blank=True)
    shipping_method = serializers.CharField(max_length=100, required=False, allow_blank=True)
    shipping_method_title = serializers.CharField(max_length=200, required=False, allow_blank=True)
    customer_note = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    admin_note = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    billing_address = AddressSerializer(
        required=False, allow_null=True, help_text="Also accepted as `billing`."
    )
    shipping_address = AddressSerializer(
        required=False, allow_null=True, help_text="Also accepted as `shipping`."
    )
    shipping_total = MoneyField(required=False)
    shipping_tax = MoneyField(required=False)
    discount_total = MoneyField(required=False)


class OrderCreateSerializer(OrderFieldsSerializer):
    status = CaseInsensitiveChoiceField(
        choices=OrderStatus.choices, required=False, default=OrderStatus.PENDING
    )
    vat_number = serializers.CharField(
        max_length=32,
        required=False,
        allow_blank=True,
        help_text="The customer's EU VAT number with its country prefix (python-stdnum: 400 "
        "`invalid_vat_number`). Where the EU B2B reverse charge applies to it (setting "
        "tax.eu_reverse_charge, a member state other than the store's), the order carries no "
        "tax: line taxes and shipping_tax are 0.",
    )
    items = serializers.ListField(
        child=OrderItemInSerializer(), required=False, default=list, max_length=200
    )


class OrderUpdateSerializer(OrderFieldsSerializer):
    status = CaseInsensitiveChoiceField(
        choices=OrderStatus.choices, required=False, help_text="Moves like PUT /status."
    )
    payment_status = CaseInsensitiveChoiceField(choices=PaymentStatus.choices, required=False)
    fulfillment_status = CaseInsensitiveChoiceField(
        choices=FulfillmentStatus.choices, required=False
    )
    note = serializers.CharField(
        max_length=255, required=False, allow_blank=True, help_text="Goes into the history."
    )


class StatusBodySerializer(serializers.Serializer):
    status = CaseInsensitiveChoiceField(choices=OrderStatus.choices)
    note = serializers.CharField(max_length=255, required=False, allow_blank=True)


class PaymentStatusBodySerializer(serializers.Serializer):
    payment_status = CaseInsensitiveChoiceField(choices=PaymentStatus.choices)
    note = serializers.CharField(max_length=255, required=False, allow_blank=True)


class FulfillmentStatusBodySerializer(serializers.Serializer):
    fulfillment_status = CaseInsensitiveChoiceField(choices=FulfillmentStatus.choices)
    note = serializers.CharField(max_length=255, required=False, allow_blank=True)


class BulkSerializer(serializers.Serializer):
    ids = serializers.ListField(
        child=IntegerField(min_value=1), allow_empty=False, help_text="At most 100."
    )
    action = serializers.CharField(
        max_length=32, help_text="delete, or the status every order moves to."
    )
    note = serializers.CharField(max_length=255, required=False, allow_blank=True)


class PaymentCreateSerializer(serializers.Serializer):
    amount = MoneyField(
        min_value=None,
        help_text="A refund may be sent negative, as the lists show it (its kind is then "
        "refund), or positive with kind refund; a payment is positive. Not 0.",
    )
    kind = serializers.ChoiceField(
        choices=PaymentKind.choices,
        required=False,
        help_text="Default payment, or refund for a negative amount.",
    )
    status = serializers.ChoiceField(
        choices=PaymentRecordStatus.choices,
        default=PaymentRecordStatus.COMPLETED,
        help_text="Only completed payments count towards the amount paid.",
    )
    method = serializers.CharField(
        max_length=100, required=False, allow_blank=True, help_text="Default the order's."
    )
    transaction_id = serializers.CharField(max_length=200, required=False, allow_blank=True)
    note = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    paid_at = serializers.DateTimeField(required=False)


class PaymentUpdateSerializer(serializers.Serializer):
    amount = MoneyField(
        min_value=None,
        required=False,
        help_text="A refund may be sent negative, as the lists show it (its kind is then "
        "refund), or positive with kind refund; a payment is positive. Not 0.",
    )
    kind = serializers.ChoiceField(choices=PaymentKind.choices, required=False)
    status = serializers.ChoiceField(choices=PaymentRecordStatus.choices, required=False)
    method = serializers.CharField(max_length=100, required=False, allow_blank=True)
    transaction_id = serializers.CharField(max_length=200, required=False, allow_blank=True)
    note = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    paid_at = serializers.DateTimeField(required=False)


class ShipmentCreateSerializer(serializers.Serializer):
    items = ShipmentLineSerializer(
        many=True,
        required=False,
        help_text="Units shipped; left out: every unit not yet in a shipment.",
    )
    status = serializers.ChoiceField(choices=ShipmentStatus.choices, default=ShipmentStatus.SHIPPED)
    carrier = serializers.CharField(max_length=100, required=False, allow_blank=True)
    service = serializers.CharField(max_length=100, required=False, allow_blank=True)
    tracking_number = serializers.CharField(max_length=100, required=False, allow_blank=True)
    tracking_url = serializers.URLField(max_length=500, required=False, allow_blank=True)
    note = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    shipped_at = serializers.DateTimeField(required=False)
    delivered_at = serializers.DateTimeField(required=False)


class ShipmentUpdateSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=ShipmentStatus.choices, required=False)
    carrier = serializers.CharField(max_length=100, required=False, allow_blank=True)
    service = serializers.CharField(max_length=100, required=False, allow_blank=True)
    tracking_number = serializers.CharField(max_length=100, required=False, allow_blank=True)
    tracking_url = serializers.URLField(max_length=500, required=False, allow_blank=True)
    note = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    shipped_at = serializers.DateTimeField(required=False, allow_null=True)
    delivered_at = serializers.DateTimeField(required=False, allow_null=True)
