"""The reference data of invoicing: myDATA's codes (AADE, Greece), which the sandbox authority
checks documents against too. GET /invoices/reference-data answers them."""

from __future__ import annotations

from decimal import Decimal

from django.db import models


class DocumentType(models.TextChoices):
    SALES_INVOICE = "1.1", "Sales invoice"
    INTRA_EU_INVOICE = "1.2", "Sales invoice: intra-community supplies"
    THIRD_COUNTRY_INVOICE = "1.3", "Sales invoice: third-country supplies"
    SERVICES_INVOICE = "2.1", "Services invoice"
    CREDIT_NOTE = "5.1", "Credit note (correlated)"
    CREDIT_NOTE_UNCORRELATED = "5.2", "Credit note (uncorrelated)"
    RETAIL_RECEIPT = "11.1", "Retail sales receipt"
    SERVICE_RECEIPT = "11.2", "Service provision receipt"
    RETAIL_CREDIT_NOTE = "11.4", "Retail credit note"


CREDIT_TYPES = frozenset({"5.1", "5.2", "11.4"})
RETAIL_TYPES = frozenset({"11.1", "11.2", "11.4"})
# Documents between businesses: the counterpart's VAT number is required.
B2B_TYPES = frozenset(t.value for t in DocumentType) - RETAIL_TYPES
# Credit notes that reference the original's mark (myDATA correlatedInvoices).
CORRELATED_TYPES = frozenset({"5.1", "11.4"})
# Supplies the VAT code exempts: to a business in another member state (1.2, article 28) and
# exports (1.3, article 24). Their lines are 0% (category 7) with the exemption category.
INTRA_EU_TYPES = frozenset({"1.2"})
THIRD_COUNTRY_TYPES = frozenset({"1.3"})
EXEMPT_SUPPLY_TYPES = INTRA_EU_TYPES | THIRD_COUNTRY_TYPES


def credit_type_for(document_type: str) -> str | None:
    """The document type of the credit note that cancels a document of `document_type`."""
    if document_type in CREDIT_TYPES:
        return None
    return (
        DocumentType.RETAIL_CREDIT_NOTE
        if document_type in RETAIL_TYPES
        else DocumentType.CREDIT_NOTE
    )


class VatCategory(models.IntegerChoices):
    VAT_24 = 1, "24%"
    VAT_13 = 2, "13%"
    VAT_6 = 3, "6%"
    VAT_17 = 4, "17%"
    VAT_9 = 5, "9%"
    VAT_4 = 6, "4%"
    VAT_0 = 7, "0% (exempt: give the exemption category)"
    NO_VAT = 8, "Entries without VAT"
    VAT_3 = 9, "3%"
    VAT_4_ISLANDS = 10, "4% (reduced islands rate)"


VAT_RATES: dict[int, Decimal] = {
    1: Decimal("24"),
    2: Decimal("13"),
    3: Decimal("6"),
    4: Decimal("17"),
    5: Decimal("9"),
    6: Decimal("4"),
    7: Decimal("0"),
    8: Decimal("0"),
    9: Decimal("3"),
    10: Decimal("4"),
}
EXEMPT_CATEGORY = 7
# "Entries without VAT" (payroll, depreciation) are records, not sales: no document of sale
# takes them.
NOT_SALES_CATEGORIES = frozenset({8})


def vat_categories_for(document_type: str) -> list[int]:
    """The VAT categories a document of `document_type` takes (issuing checks them)."""
    if document_type in EXEMPT_SUPPLY_TYPES:
        return [EXEMPT_CATEGORY]
    return [c.value for c in VatCategory if c.value not in NOT_SALES_CATEGORIES]


# myDATA's VAT exemption categories (vatExemptionCategory), the common ones named.
class VatExemption(models.IntegerChoices):
    ART_2_3 = 1, "Without VAT: article 2 and 3 of the VAT code"
    ART_5 = 2, "Without VAT: article 5 of the VAT code"
    ART_13 = 3, "VAT exempt: article 13 of the VAT code"
    ART_14 = 4, "VAT exempt: article 14 of the VAT code"
    ART_16 = 5, "VAT exempt: article 16 of the VAT code"
    ART_19 = 6, "VAT exempt: article 19 of the VAT code"
    ART_22 = 7, "VAT exempt: article 22 of the VAT code"
    ART_24 = 8, "VAT exempt: article 24 (exports) of the VAT code"
    ART_25 = 9, "VAT exempt: article 25 of the VAT code"
    ART_26 = 10, "VAT exempt: article 26 of the VAT code"
    ART_27 = 11, "VAT exempt: article 27 of the VAT code"
    ART_27_SEA = 12, "VAT exempt: article 27 (sea-going vessels) of the VAT code"
    ART_27_1C = 13, "VAT exempt: article 27.1.c (sea-going vessels) of the VAT code"
    ART_28 = 14, "VAT exempt: article 28 (intra-community supplies) of the VAT code"
    ART_39 = 15, "VAT exempt: article 39 (small businesses) of the VAT code"
    ART_39A = 16, "VAT exempt: article 39a of the VAT code"
    ART_40 = 17, "VAT exempt: article 40 of the VAT code"
    ART_41 = 18, "VAT exempt: article 41 of the VAT code"
    ART_47 = 19, "VAT exempt: article 47 of the VAT code"
    POL_1029 = 20, "VAT included: article 43 (travel agencies) of the VAT code"
    ART_44 = 21, "VAT included: article 44 (second-hand goods) of the VAT code"
    ART_45 = 22, "VAT included: article 45 (works of art) of the VAT code"
    ART_46 = 23, "VAT included: article 46 (antiques) of the VAT code"
    ART_6 = 24, "Without VAT: article 6 of the VAT code"
    POL_1167 = 25, "Without VAT: ΠΟΛ.1167/2015"
    OTHER = 26, "Without VAT: other exemptions"
    ART_24B = 27, "Without VAT: article 24.1.b (ships' supplies) of the VAT code"
    ART_47B = 28, "VAT exempt: article 47b (OSS non-union scheme) of the VAT code"
    ART_47C = 29, "VAT exempt: article 47c (OSS union scheme) of the VAT code"
    ART_47D = 30, "VAT exempt: article 47d (IOSS) of the VAT code"
    ART_47_1 = 31, "Without VAT: article 47.1 of the VAT code"


class PaymentMethod(models.IntegerChoices):
    DOMESTIC_ACCOUNT = 1, "Domestic payments account"
    FOREIGN_ACCOUNT = 2, "Foreign payments account"
    CASH = 3, "Cash"
    CHEQUE = 4, "Cheque"
    ON_CREDIT = 5, "On credit"
    WEB_BANKING = 6, "Web banking"
    POS = 7, "POS / e-POS"
    IRIS = 8, "IRIS direct payments"


# The store's payment gateways (an order's payment_method) as myDATA payment methods.
ORDER_PAYMENT_METHODS = {
    "bacs": PaymentMethod.DOMESTIC_ACCOUNT,
    "bank_transfer": PaymentMethod.DOMESTIC_ACCOUNT,
    "cod": PaymentMethod.CASH,
    "cash": PaymentMethod.CASH,
    "cheque": PaymentMethod.CHEQUE,
    "stripe": PaymentMethod.POS,
    "card": PaymentMethod.POS,
    "paypal": PaymentMethod.WEB_BANKING,
    "iris": PaymentMethod.IRIS,
}


class InvoiceStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    ISSUED = "issued", "Issued"
    CANCELLED = "cancelled", "Cancelled (by a credit note)"


class TransmissionStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    SENT = "sent", "Sent (the authority's mark assigned)"
    REJECTED = "rejected", "Rejected"
    FAILED = "failed", "Failed (the authority unreachable after every retry)"
    CANCELLED = "cancelled", "Cancelled at the authority"


class Provider(models.TextChoices):
    SANDBOX = "sandbox", "Sandbox authority (local)"
    MYDATA = "mydata", "myDATA (AADE, Greece)"


class MydataEnvironment(models.TextChoices):
    DEV = "dev", "Development (mydataapidev)"
    PROD = "prod", "Production"


def reference_data() -> dict:
    return {
        "document_types": [
            {
                "code": t.value,
                "name": t.label,
                "credit_note": t.value in CREDIT_TYPES,
                "needs_counterpart_vat_number": t.value in B2B_TYPES,
                "vat_categories": vat_categories_for(t.value),
            }
            for t in DocumentType
        ],
        "vat_categories": [
            {"code": c.value, "name": c.label, "rate": format(VAT_RATES[c.value], "f")}
            for c in VatCategory
        ],
        "vat_exemptions": [{"code": e.value, "name": e.label} for e in VatExemption],
        "payment_methods": [{"code": p.value, "name": p.label} for p in PaymentMethod],
        "providers": [{"code": p.value, "name": p.label} for p in Provider],
    }
