"""Bodies, queries and answers of the invoicing routes. The answers are rendered by these
serializers from the models (one definition documents and renders them)."""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from erp.core.api.base import optional_text, page_serializer
from erp.invoicing import crypto
from erp.invoicing.choices import (
    DocumentType,
    InvoiceStatus,
    MydataEnvironment,
    PaymentMethod,
    Provider,
    TransmissionStatus,
    VatCategory,
    VatExemption,
)
from erp.invoicing.selectors import transmission_of, vat_breakdown
from store.common.addresses import AddressSerializer, address_data
from store.common.locations import clean_country
from store.common.money import MoneyField
from store.common.pagination import Page, named_page
from store.common.params import (
    ChoiceListField,
    PageField,
    PerPageField,
    StrictBooleanField,
    StrictCharField,
    StrictDecimalField,
)

PER_PAGE_CAP = 100
CODE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


class IntChoiceField(serializers.ChoiceField):
    """One of integer codes, sent as a JSON integer."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


# --- Series ---------------------------------------------------------------------------------


class InvoiceSeriesWriteSerializer(serializers.Serializer):
    code = StrictCharField(max_length=20, help_text="Letters, digits, dot, dash, underscore.")
    name = optional_text(100)
    document_type = serializers.ChoiceField(choices=DocumentType.choices)
    prefix = optional_text(20, help_text="Printed before the number, e.g. INV-2026-.")
    next_number = IntegerField(
        required=False, min_value=1, column="PositiveIntegerField", help_text="Default 1."
    )
    active = StrictBooleanField(required=False)

    def validate_code(self, value: str) -> str:
        if not re.match(CODE_PATTERN, value):
            raise serializers.ValidationError("Letters, digits, dot, dash and underscore only.")
        return value.upper()


class InvoiceSeriesSerializer(serializers.Serializer):
    id = IdField()
    code = serializers.CharField()
    name = serializers.CharField()
    document_type = serializers.CharField()
    document_type_name = serializers.CharField(source="get_document_type_display")
    prefix = serializers.CharField()
    next_number = IntegerField(column="PositiveIntegerField")
    active = serializers.BooleanField()
    in_use = serializers.BooleanField(
        help_text="It has issued documents: its code, type and next number are frozen."
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class InvoiceSeriesListSerializer(serializers.Serializer):
    series = InvoiceSeriesSerializer(many=True)


# --- Invoices -------------------------------------------------------------------------------


class InvoiceLineWriteSerializer(serializers.Serializer):
    description = StrictCharField(max_length=255)
    sku = optional_text(64)
    quantity = StrictDecimalField(max_digits=12, decimal_places=3, coerce_to_string=True)
    unit_price = MoneyField()
    discount = MoneyField(required=False, help_text="Off the line (quantity x unit price).")
    vat_category = IntChoiceField(
        choices=VatCategory.choices, help_text="myDATA's VAT category: 1 = 24%, 2 = 13%..."
    )
    vat_exemption = IntChoiceField(
        choices=VatExemption.choices,
        required=False,
        allow_null=True,
        help_text="The exemption category of a 0% line (category 7).",
    )

    def validate_quantity(self, value: Decimal) -> Decimal:
        if value <= 0:
            raise serializers.ValidationError("Ensure this value is greater than 0.")
        return value


class InvoiceWriteSerializer(serializers.Serializer):
    series_id = IdField(required=False, help_text="Default: the settings' default series.")
    issue_date = serializers.DateField(
        required=False, allow_null=True, help_text="Default: the day it is issued."
    )
    currency = StrictCharField(min_length=3, max_length=3, required=False)
    customer_id = IdField(required=False, allow_null=True, help_text="A store customer.")
    counterpart_name = optional_text(200)
    counterpart_vat_number = optional_text(32, help_text="Required by the authority on B2B types.")
    counterpart_country = optional_text(
        2, help_text="ISO 3166-1 alpha-2, e.g. GR (default: the billing address's)."
    )
    billing_address = AddressSerializer(required=False)
    payment_method = IntChoiceField(choices=PaymentMethod.choices, required=False)
    notes = optional_text(2000)
    lines = InvoiceLineWriteSerializer(many=True, required=False, max_length=500)

    def validate_counterpart_country(self, value: str) -> str:
        try:
            return clean_country(value)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from exc

    def validate_currency(self, value: str) -> str:
        if not value.isascii() or not value.isalpha():
            raise serializers.ValidationError("An ISO 4217 code, e.g. EUR.")
        return value.upper()


class InvoiceCancelSerializer(serializers.Serializer):
    reason = optional_text(500, help_text="Printed on the credit note.")


class InvoiceListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=PER_PAGE_CAP, default=20)
    status = ChoiceListField(choices=InvoiceStatus.values)
    series_id = IdField(required=False)
    document_type = serializers.ChoiceField(choices=DocumentType.choices, required=False)
    customer_id = IdField(required=False)
    order_id = IdField(required=False)
    transmission = ChoiceListField(choices=[*TransmissionStatus.values, "none"])
    date_from = serializers.DateField(required=False, help_text="Issued on or after.")
    date_to = serializers.DateField(required=False, help_text="Issued on or before.")
    search = StrictCharField(
        max_length=100, required=False, help_text="Number, counterpart name or VAT number."
    )
    orderby = serializers.ChoiceField(
        choices=["date", "issue_date", "number", "total", "id"], required=False
    )
    order = serializers.ChoiceField(choices=["asc", "desc"], required=False)


class InvoiceLineSerializer(serializers.Serializer):
    id = IdField()
    description = serializers.CharField()
    sku = serializers.CharField()
    quantity = serializers.DecimalField(max_digits=12, decimal_places=3)
    unit_price = MoneyField()
    discount = MoneyField()
    net_amount = MoneyField()
    vat_category = IntegerField()
    vat_exemption = IntegerField(allow_null=True)
    vat_amount = MoneyField()
    gross_amount = MoneyField()


class InvoiceVatGroupSerializer(serializers.Serializer):
    vat_category = IntegerField()
    rate = serializers.DecimalField(max_digits=5, decimal_places=2)
    net = MoneyField()
    vat = MoneyField()


class InvoiceTransmissionSerializer(serializers.Serializer):
    provider = serializers.CharField()
    status = serializers.ChoiceField(choices=TransmissionStatus.choices)
    mark = serializers.CharField(help_text="The authority's number for the document (MARK).")
    uid = serializers.CharField()
    qr_url = serializers.CharField()
    cancellation_mark = serializers.CharField()
    errors = serializers.ListField(
        child=serializers.DictField(child=serializers.CharField()),
        help_text="The authority's reasons for a rejection: [{code, message}].",
    )
    attempts = IntegerField(column="PositiveIntegerField")
    last_error = serializers.CharField()
    requested_at = serializers.DateTimeField()
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    sent_at = serializers.DateTimeField(allow_null=True)
    cancelled_at = serializers.DateTimeField(allow_null=True)


class InvoiceSummarySerializer(serializers.Serializer):
    id = IdField()
    series_id = IdField()
    series_code = serializers.CharField(source="series.code")
    document_type = serializers.CharField()
    document_type_name = serializers.CharField(source="get_document_type_display")
    status = serializers.ChoiceField(choices=InvoiceStatus.choices)
    number = IntegerField(column="PositiveIntegerField", allow_null=True)
    full_number = serializers.CharField(help_text="Prefix and number; empty for a draft.")
    issue_date = serializers.DateField(allow_null=True)
    issued_at = serializers.DateTimeField(allow_null=True)
    currency = serializers.CharField()
    customer_id = IdField(allow_null=True)
    counterpart_name = serializers.CharField()
    counterpart_vat_number = serializers.CharField()
    counterpart_country = serializers.CharField()
    order_id = IdField(allow_null=True)
    corrects_id = IdField(allow_null=True, help_text="The document a credit note cancels.")
    refund_payment_id = IdField(
        allow_null=True,
        help_text="The order's refund payment a credit note gives back (one note per refund); "
        "null otherwise. Kept when the payment is deleted.",
    )
    net_total = MoneyField()
    vat_total = MoneyField()
    gross_total = MoneyField()
    transmission = serializers.SerializerMethodField()
    auto_issue_error = serializers.CharField(
        help_text="Why the last automatic issue was refused: this draft's (auto-invoice), or "
        "the credit note of a refund on this invoice; empty otherwise."
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    cancelled_at = serializers.DateTimeField(allow_null=True)

    @extend_schema_field(InvoiceTransmissionSerializer(allow_null=True))
    def get_transmission(self, invoice):
        transmission = transmission_of(invoice)
        return (
            InvoiceTransmissionSerializer(transmission).data if transmission is not None else None
        )


class InvoiceSerializer(InvoiceSummarySerializer):
    billing_address = serializers.SerializerMethodField()
    payment_method = IntegerField()
    payment_method_name = serializers.CharField(source="get_payment_method_display")
    notes = serializers.CharField()
    credit_note_ids = serializers.SerializerMethodField()
    credited_total = serializers.SerializerMethodField(
        help_text="The gross its credit notes gave back (refunds, cancellation)."
    )
    lines = InvoiceLineSerializer(many=True, source="lines.all")
    vat_breakdown = serializers.SerializerMethodField()

    @extend_schema_field(AddressSerializer)
    def get_billing_address(self, invoice):
        return address_data(invoice.billing_address)

    def get_credit_note_ids(self, invoice) -> list[int]:
        return [note.pk for note in invoice.credit_notes.all()]

    @extend_schema_field(MoneyField())
    def get_credited_total(self, invoice):
        notes = invoice.credit_notes.all()
        return MoneyField().to_representation(sum((n.gross_total for n in notes), Decimal(0)))

    @extend_schema_field(InvoiceVatGroupSerializer(many=True))
    def get_vat_breakdown(self, invoice):
        return InvoiceVatGroupSerializer(vat_breakdown(invoice.lines.all()), many=True).data


InvoicePageSerializer = page_serializer(
    "InvoicePageSerializer", "invoices", InvoiceSummarySerializer
)


def invoice_page(page: Page) -> dict:
    rendered = list(InvoiceSummarySerializer(page.items, many=True).data)  # one serializer
    return named_page("invoices", replace(page, items=rendered))


# --- Settings -------------------------------------------------------------------------------


class InvoicingSettingsWriteSerializer(serializers.Serializer):
    issuer_name = optional_text(200)
    issuer_vat_number = optional_text(32, help_text="With its country prefix, e.g. EL094259216.")
    issuer_tax_office = optional_text(100)
    issuer_branch = IntegerField(required=False, min_value=0, column="PositiveIntegerField")
    issuer_address = AddressSerializer(required=False)
    issuer_email = serializers.EmailField(required=False, allow_blank=True, max_length=254)
    issuer_phone = optional_text(40)
    default_series_id = IdField(required=False, allow_null=True)
    order_series_id = IdField(required=False, allow_null=True)
    zero_vat_exemption = IntChoiceField(
        choices=VatExemption.choices, required=False, allow_null=True
    )
    provider = serializers.ChoiceField(choices=Provider.choices, required=False)
    mydata_environment = serializers.ChoiceField(choices=MydataEnvironment.choices, required=False)
    mydata_user_id = optional_text(100, write_only=True, help_text="Write only; empty removes it.")
    mydata_subscription_key = optional_text(
        200, write_only=True, help_text="Write only; empty removes it."
    )
    auto_invoice = StrictBooleanField(required=False)
    auto_transmit = StrictBooleanField(required=False)


class InvoicingSettingsSerializer(serializers.Serializer):
    issuer_name = serializers.CharField()
    issuer_vat_number = serializers.CharField()
    issuer_tax_office = serializers.CharField()
    issuer_branch = IntegerField(column="PositiveIntegerField")
    issuer_address = serializers.SerializerMethodField()
    issuer_email = serializers.CharField()
    issuer_phone = serializers.CharField()
    default_series_id = IdField(allow_null=True)
    order_series_id = IdField(allow_null=True)
    zero_vat_exemption = IntegerField(allow_null=True)
    provider = serializers.CharField()
    mydata_environment = serializers.CharField()
    mydata_user_id = serializers.SerializerMethodField(help_text="Masked.")
    mydata_subscription_key = serializers.SerializerMethodField(help_text="Masked.")
    credentials_set = serializers.SerializerMethodField()
    auto_invoice = serializers.BooleanField()
    auto_transmit = serializers.BooleanField()

    @extend_schema_field(AddressSerializer)
    def get_issuer_address(self, row):
        return address_data(row.issuer_address)

    def _secret(self, row, name: str) -> str:
        return crypto.mask(crypto.unseal(row.credentials).get(name, ""))

    def get_mydata_user_id(self, row) -> str:
        return self._secret(row, "user_id")

    def get_mydata_subscription_key(self, row) -> str:
        return self._secret(row, "subscription_key")

    def get_credentials_set(self, row) -> bool:
        return bool(crypto.unseal(row.credentials))


# --- Reference data and the transmission test ------------------------------------------------


class InvoicingCodeSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()


class InvoiceDocumentTypeSerializer(InvoicingCodeSerializer):
    credit_note = serializers.BooleanField()
    needs_counterpart_vat_number = serializers.BooleanField()
    vat_categories = serializers.ListField(
        child=IntegerField(), help_text="The VAT categories its lines may take."
    )


class InvoiceVatCategorySerializer(serializers.Serializer):
    code = IntegerField()
    name = serializers.CharField()
    rate = serializers.CharField()


class InvoicingIntCodeSerializer(serializers.Serializer):
    code = IntegerField()
    name = serializers.CharField()


class InvoicingReferenceDataSerializer(serializers.Serializer):
    document_types = InvoiceDocumentTypeSerializer(many=True)
    vat_categories = InvoiceVatCategorySerializer(many=True)
    vat_exemptions = InvoicingIntCodeSerializer(many=True)
    payment_methods = InvoicingIntCodeSerializer(many=True)
    providers = InvoicingCodeSerializer(many=True)


class InvoicingTransmissionTestSerializer(serializers.Serializer):
    provider = serializers.CharField()
    ok = serializers.BooleanField()
    message = serializers.CharField()
