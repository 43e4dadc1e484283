"""Bodies and answers of the purchasing routes. Money and costs are decimal strings; times
UTC ISO 8601."""

from __future__ import annotations

from decimal import Decimal

from rest_framework import serializers

from common.api.fields import IdField, IntegerField, RowListSerializer
from erp.core.api.base import ListQuery, currency_field, optional_text, page_serializer
from erp.purchasing.choices import OrderStatus
from erp.purchasing.models import COST_DIGITS, COST_PLACES
from erp.purchasing.services import SUPPLIER_FIELDS
from store.common.addresses import CountryField
from store.common.formats import decimal_str, iso
from store.common.money import MoneyField, money_str
from store.common.pagination import named_page as named_page  # the views' s.named_page
from store.common.params import (
    ChoiceListField,
    StrictBooleanField,
    StrictCharField,
    StrictDecimalField,
)

MAX_QUANTITY = 1_000_000


def _days(help_text: str, **kwargs):
    return IntegerField(min_value=0, max_value=365, required=False, help_text=help_text, **kwargs)


def _cost(**kwargs):
    return StrictDecimalField(
        max_digits=COST_DIGITS, decimal_places=COST_PLACES, coerce_to_string=True, **kwargs
    )


def _quantity(**kwargs):
    return IntegerField(min_value=1, max_value=MAX_QUANTITY, **kwargs)


# --- Suppliers ----------------------------------------------------------------------------------


class SupplierWriteSerializer(serializers.Serializer):
    name = StrictCharField(max_length=200)
    code = serializers.SlugField(
        max_length=64, required=False, allow_blank=True, help_text="Unique; empty: from the name."
    )
    vat_number = optional_text(
        32,
        help_text="Checked with python-stdnum: an EU number with its country prefix "
        "(DE136695976), or the national format of `country`.",
    )
    email = serializers.EmailField(
        max_length=254, required=False, allow_blank=True, help_text="Purchase orders go here."
    )
    phone = optional_text(40)
    contact_name = optional_text(200)
    website = serializers.URLField(max_length=255, required=False, allow_blank=True)
    address_1 = optional_text(255)
    address_2 = optional_text(255)
    city = optional_text(100)
    postcode = optional_text(20)
    country = CountryField(required=False, allow_blank=True)
    currency = currency_field(help_text="ISO 4217; default: the store's currency.")
    payment_terms_days = _days("Days to pay its invoices (default 30).")
    lead_time_days = _days("Days from order to delivery (default 7).")
    notes = optional_text(2000)
    active = StrictBooleanField(required=False, help_text="Inactive suppliers get no new orders.")

    def validate(self, attrs):
        if "active" in attrs:
            attrs["is_active"] = attrs.pop("active")
        return attrs


class SupplierListQuerySerializer(ListQuery):
    search = serializers.CharField(
        required=False,
        max_length=200,
        help_text="Words, each in the name, code, e-mail, VAT number or contact.",
    )
    active = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="true or false; absent: all."
    )
    country = CountryField(required=False)


class SupplierSerializer(serializers.Serializer):
    id = IntegerField()
    name = serializers.CharField()
    code = serializers.CharField()
    vat_number = serializers.CharField()
    email = serializers.CharField()
    phone = serializers.CharField()
    contact_name = serializers.CharField()
    website = serializers.CharField()
    address_1 = serializers.CharField()
    address_2 = serializers.CharField()
    city = serializers.CharField()
    postcode = serializers.CharField()
    country = serializers.CharField()
    currency = serializers.CharField()
    payment_terms_days = IntegerField()
    lead_time_days = IntegerField()
    notes = serializers.CharField()
    active = serializers.BooleanField()
    price_count = IntegerField(help_text="Its prices (GET /suppliers/{id}/prices).")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


SUPPLIER_TEXT = [name for name in SUPPLIER_FIELDS if name != "is_active"]


def supplier_data(supplier) -> dict:
    return {
        "id": supplier.pk,
        **{name: getattr(supplier, name) for name in SUPPLIER_TEXT},
        "active": supplier.is_active,
        "price_count": getattr(supplier, "price_count", 0),
        "created_at": iso(supplier.created_at),
        "updated_at": iso(supplier.updated_at),
    }


SupplierPageSerializer = page_serializer("SupplierPageSerializer", "suppliers", SupplierSerializer)


# --- Prices -------------------------------------------------------------------------------------


class SupplierPriceUpdateSerializer(serializers.Serializer):
    supplier_sku = optional_text(64, help_text="The supplier's own code of the item.")
    unit_price = _cost(help_text="One unit's price (up to 4 places).")
    currency = currency_field(help_text="ISO 4217; default: the supplier's currency.")
    min_quantity = _quantity(required=False, help_text="From this many units (default 1).")
    lead_time_days = _days("Days to deliver (null: the supplier's).", allow_null=True)


class SupplierPriceCreateSerializer(SupplierPriceUpdateSerializer):
    product_id = IdField()
    variant_id = IdField(
        required=False, allow_null=True, help_text="A variant; empty: the product (all variants)."
    )


class SupplierPriceFilterSerializer(ListQuery):
    supplier_id = IdField(required=False)
    product_id = IdField(required=False)
    variant_id = IdField(required=False)
    currency = currency_field()


class SupplierPriceListQuerySerializer(ListQuery):
    product_id = IdField(required=False)
    variant_id = IdField(required=False)
    currency = currency_field()


class PurchasingSupplierRefSerializer(serializers.Serializer):
    id = IntegerField()
    name = serializers.CharField()
    code = serializers.CharField()


class SupplierPriceSerializer(serializers.Serializer):
    id = IntegerField()
    supplier = PurchasingSupplierRefSerializer()
    product_id = IntegerField()
    variant_id = IntegerField(allow_null=True)
    sku = serializers.CharField(help_text="The store's SKU of the item.")
    product_name = serializers.CharField()
    supplier_sku = serializers.CharField()
    unit_price = serializers.CharField()
    currency = serializers.CharField()
    min_quantity = IntegerField()
    lead_time_days = IntegerField(allow_null=True, help_text="null: the supplier's.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def supplier_ref(supplier) -> dict:
    return {"id": supplier.pk, "name": supplier.name, "code": supplier.code}


def price_data(price) -> dict:
    item = price.variant or price.product
    return {
        "id": price.pk,
        "supplier": supplier_ref(price.supplier),
        "product_id": price.product_id,
        "variant_id": price.variant_id,
        "sku": item.sku or "",
        "product_name": price.product.title,
        "supplier_sku": price.supplier_sku,
        "unit_price": decimal_str(price.unit_price),
        "currency": price.currency,
        "min_quantity": price.min_quantity,
        "lead_time_days": price.lead_time_days,
        "created_at": iso(price.created_at),
        "updated_at": iso(price.updated_at),
    }


SupplierPricePageSerializer = page_serializer(
    "SupplierPricePageSerializer", "prices", SupplierPriceSerializer
)


# --- Purchase orders ----------------------------------------------------------------------------


class PurchaseOrderLineInSerializer(serializers.Serializer):
    product_id = IdField()
    variant_id = IdField(required=False, allow_null=True)
    quantity = _quantity()
    unit_cost = _cost(
        required=False,
        allow_null=True,
        help_text="In the order's currency; default: the supplier's price for this quantity.",
    )

    class Meta:
        list_serializer_class = RowListSerializer


class PurchaseOrderUpdateSerializer(serializers.Serializer):
    supplier_id = IdField(required=False, help_text="An active supplier.")
    currency = currency_field(help_text="ISO 4217; default: the supplier's.")
    exchange_rate = StrictDecimalField(
        max_digits=16,
        decimal_places=6,
        min_value=Decimal("0.000001"),
        required=False,
        coerce_to_string=True,
        help_text="Units of the store's currency per unit of the order's (1 in the store's "
        "currency): receipts post stock at unit cost x rate.",
    )
    warehouse_id = IdField(
        required=False, allow_null=True, help_text="Where the goods go; empty: the default."
    )
    order_date = serializers.DateField(required=False, help_text="Default: today.")
    expected_date = serializers.DateField(
        required=False,
        allow_null=True,
        help_text="Default: the order date plus the supplier's lead time.",
    )
    supplier_reference = optional_text(64)
    notes = optional_text(2000, help_text="Printed on the PDF.")
    lines = PurchaseOrderLineInSerializer(
        many=True,
        required=False,
        max_length=200,
        help_text="At most 200; on PATCH they replace all the lines.",
    )


class PurchaseOrderCreateSerializer(PurchaseOrderUpdateSerializer):
    supplier_id = IdField(help_text="An active supplier.")


class PurchaseOrderListQuerySerializer(ListQuery):
    status = ChoiceListField(choices=OrderStatus.values)
    supplier_id = IdField(required=False)
    warehouse_id = IdField(required=False)
    date_from = serializers.DateField(required=False, help_text="Order date on or after.")
    date_to = serializers.DateField(required=False, help_text="Order date on or before.")
    search = serializers.CharField(
        required=False, max_length=200, help_text="In the number or the supplier's reference."
    )
    origin = serializers.ChoiceField(choices=["auto-reorder"], required=False)


class PurchaseOrderSendSerializer(serializers.Serializer):
    email = StrictBooleanField(
        required=False,
        default=True,
        help_text="E-mail the PDF to the supplier (default); false: only mark the order sent.",
    )
    message = optional_text(2000, help_text="Added to the e-mail's text.")


class PurchaseOrderReceiveLineSerializer(serializers.Serializer):
    line_id = IdField(help_text="A line of this order.")
    quantity = _quantity()

    class Meta:
        list_serializer_class = RowListSerializer


class PurchaseOrderReceiveSerializer(serializers.Serializer):
    lines = PurchaseOrderReceiveLineSerializer(
        many=True,
        required=False,
        allow_empty=False,
        max_length=200,
        help_text="What arrived; absent: everything still outstanding.",
    )
    warehouse_id = IdField(
        required=False, help_text="Default: the order's warehouse, else the default one."
    )
    supplier_reference = optional_text(64, help_text="The supplier's delivery note.")
    note = optional_text(255)


class PurchaseOrderLineSerializer(serializers.Serializer):
    id = IntegerField()
    product_id = IntegerField(allow_null=True, help_text="null: the product was deleted.")
    variant_id = IntegerField(allow_null=True)
    sku = serializers.CharField()
    name = serializers.CharField()
    supplier_sku = serializers.CharField()
    quantity = IntegerField()
    quantity_received = IntegerField()
    quantity_outstanding = IntegerField()
    unit_cost = serializers.CharField()
    total = serializers.CharField()


class PurchasingWarehouseRefSerializer(serializers.Serializer):
    id = IntegerField()
    name = serializers.CharField()


class PurchaseOrderSummarySerializer(serializers.Serializer):
    id = IntegerField()
    number = serializers.CharField()
    status = serializers.CharField(help_text=f"One of {', '.join(OrderStatus.values)}.")
    supplier = PurchasingSupplierRefSerializer()
    currency = serializers.CharField()
    exchange_rate = serializers.CharField()
    warehouse = PurchasingWarehouseRefSerializer(
        allow_null=True, help_text="null: the default one."
    )
    order_date = serializers.DateField()
    expected_date = serializers.DateField(allow_null=True)
    supplier_reference = serializers.CharField()
    origin = serializers.CharField()
    total = MoneyField()
    line_count = IntegerField()
    sent_at = serializers.DateTimeField(allow_null=True)
    received_at = serializers.DateTimeField(allow_null=True)
    cancelled_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class GoodsReceivedRefSerializer(serializers.Serializer):
    id = IntegerField()
    number = serializers.CharField()
    received_at = serializers.DateTimeField()


class PurchaseOrderEmailSerializer(serializers.Serializer):
    id = IntegerField()
    recipient = serializers.CharField()
    status = serializers.CharField(help_text="queued, sent or failed.")
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    sent_at = serializers.DateTimeField(allow_null=True)


class PurchaseOrderSerializer(PurchaseOrderSummarySerializer):
    notes = serializers.CharField()
    lines = PurchaseOrderLineSerializer(many=True)
    receipts = GoodsReceivedRefSerializer(many=True, help_text="Its goods-received notes.")
    emails = PurchaseOrderEmailSerializer(many=True, help_text="The e-mails that sent it.")


def _warehouse_ref(warehouse) -> dict | None:
    return None if warehouse is None else {"id": warehouse.pk, "name": warehouse.name}


def order_summary(order) -> dict:
    return {
        "id": order.pk,
        "number": order.number,
        "status": order.status,
        "supplier": supplier_ref(order.supplier),
        "currency": order.currency,
        "exchange_rate": decimal_str(order.exchange_rate),
        "warehouse": _warehouse_ref(order.warehouse),
        "order_date": order.order_date.isoformat(),
        "expected_date": order.expected_date.isoformat() if order.expected_date else None,
        "supplier_reference": order.supplier_reference,
        "origin": order.origin,
        "total": money_str(order.total),
        "line_count": getattr(order, "line_count", 0),
        "sent_at": iso(order.sent_at),
        "received_at": iso(order.received_at),
        "cancelled_at": iso(order.cancelled_at),
        "created_at": iso(order.created_at),
        "updated_at": iso(order.updated_at),
    }


def line_data(line) -> dict:
    return {
        "id": line.pk,
        "product_id": line.product_id,
        "variant_id": line.variant_id,
        "sku": line.sku,
        "name": line.name,
        "supplier_sku": line.supplier_sku,
        "quantity": line.quantity,
        "quantity_received": line.quantity_received,
        "quantity_outstanding": line.quantity_outstanding,
        "unit_cost": decimal_str(line.unit_cost),
        "total": money_str(line.quantity * line.unit_cost),
    }


def order_data(order) -> dict:
    return {
        **order_summary(order),
        "notes": order.notes,
        "lines": [line_data(line) for line in order.lines.all()],
        "receipts": [
            {"id": note.pk, "number": note.number, "received_at": iso(note.received_at)}
            for note in order.receipts.all()
        ],
        "emails": [
            {
                "id": email.pk,
                "recipient": email.recipient,
                "status": email.status,
                "error": email.error,
                "created_at": iso(email.created_at),
                "sent_at": iso(email.sent_at),
            }
            for email in order.emails.all()
        ],
    }


PurchaseOrderPageSerializer = page_serializer(
    "PurchaseOrderPageSerializer", "purchase_orders", PurchaseOrderSummarySerializer
)


class AutoReorderSkippedSerializer(serializers.Serializer):
    product_id = IntegerField()
    variant_id = IntegerField(allow_null=True)
    warehouse_id = IntegerField()
    sku = serializers.CharField()
    quantity = IntegerField(help_text="In stock now.")
    reorder_point = IntegerField()
    reason = serializers.CharField(
        help_text="on_order (an open order brings it) or no_supplier_price."
    )
    message = serializers.CharField()


class AutoReorderSerializer(serializers.Serializer):
    created = PurchaseOrderSerializer(many=True, help_text="The draft orders made now.")
    skipped = AutoReorderSkippedSerializer(many=True)


# --- Goods received -----------------------------------------------------------------------------


class GoodsReceivedListQuerySerializer(ListQuery):
    supplier_id = IdField(required=False)
    purchase_order_id = IdField(required=False)
    warehouse_id = IdField(required=False)
    date_from = serializers.DateField(required=False, help_text="Received on or after (UTC).")
    date_to = serializers.DateField(required=False, help_text="Received on or before (UTC).")


class GoodsReceivedLineSerializer(serializers.Serializer):
    id = IntegerField()
    order_line_id = IntegerField()
    product_id = IntegerField(allow_null=True)
    variant_id = IntegerField(allow_null=True)
    sku = serializers.CharField()
    quantity = IntegerField()
    unit_cost = serializers.CharField(help_text="In the order's currency.")
    stock_unit_cost = serializers.CharField(help_text="In the store's currency (the ledger's).")
    movement_id = IntegerField(allow_null=True, help_text="Its stock movement.")


class PurchasingOrderRefSerializer(serializers.Serializer):
    id = IntegerField()
    number = serializers.CharField()


class GoodsReceivedNoteSerializer(serializers.Serializer):
    id = IntegerField()
    number = serializers.CharField()
    purchase_order = PurchasingOrderRefSerializer()
    supplier = PurchasingSupplierRefSerializer()
    warehouse = PurchasingWarehouseRefSerializer()
    supplier_reference = serializers.CharField()
    note = serializers.CharField()
    received_at = serializers.DateTimeField()
    lines = GoodsReceivedLineSerializer(many=True)


def note_data(note) -> dict:
    return {
        "id": note.pk,
        "number": note.number,
        "purchase_order": {"id": note.purchase_order_id, "number": note.purchase_order.number},
        "supplier": supplier_ref(note.supplier),
        "warehouse": _warehouse_ref(note.warehouse),
        "supplier_reference": note.supplier_reference,
        "note": note.note,
        "received_at": iso(note.received_at),
        "lines": [
            {
                "id": line.pk,
                "order_line_id": line.order_line_id,
                "product_id": line.product_id,
                "variant_id": line.variant_id,
                "sku": line.sku,
                "quantity": line.quantity,
                "unit_cost": decimal_str(line.unit_cost),
                "stock_unit_cost": decimal_str(line.stock_unit_cost),
                "movement_id": line.movement_id,
            }
            for line in note.lines.all()
        ],
    }


GoodsReceivedPageSerializer = page_serializer(
    "GoodsReceivedPageSerializer", "goods_received", GoodsReceivedNoteSerializer
)
