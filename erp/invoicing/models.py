"""Invoices, their lines and series, the transmission to the tax authority, the settings.

Every write goes through erp.invoicing.services: a draft is edited freely; issuing gives it
the next number of its series (gapless: the series row is locked) and freezes it; a credit
note, never a deletion, cancels an issued document.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

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
from store.common.money import MoneyModelField


def _money(**kwargs):
    return MoneyModelField(default=0, **kwargs)


class InvoiceSeries(models.Model):
    """A numbering series: its documents are numbered 1, 2, 3... without gaps, in the order
    they are issued."""

    code = models.CharField(max_length=20, unique=True, help_text="The authority's series.")
    name = models.CharField(max_length=100, blank=True)
    document_type = models.CharField(max_length=5, choices=DocumentType.choices)
    prefix = models.CharField(max_length=20, blank=True, help_text="Printed before the number.")
    next_number = models.PositiveIntegerField(default=1)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["code"]
        verbose_name_plural = "invoice series"
        constraints = [
            models.CheckConstraint(
                condition=Q(next_number__gte=1), name="erp_invoicing_series_next_positive"
            )
        ]

    def __str__(self) -> str:
        return f"{self.code} ({self.get_document_type_display()})"


class Invoice(models.Model):
    series = models.ForeignKey(InvoiceSeries, on_delete=models.PROTECT, related_name="invoices")
    document_type = models.CharField(max_length=5, choices=DocumentType.choices)
    status = models.CharField(
        max_length=10, choices=InvoiceStatus.choices, default=InvoiceStatus.DRAFT
    )
    number = models.PositiveIntegerField(null=True, blank=True, editable=False)
    full_number = models.CharField(max_length=40, blank=True, editable=False, db_index=True)
    issue_date = models.DateField(null=True, blank=True)
    issued_at = models.DateTimeField(null=True, blank=True, editable=False)
    currency = models.CharField(max_length=3, default="EUR")
    customer = models.ForeignKey(
        "store_customers.Customer",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    counterpart_name = models.CharField(max_length=200, blank=True)
    counterpart_vat_number = models.CharField(max_length=32, blank=True)
    counterpart_country = models.CharField(max_length=2, blank=True)
    billing_address = models.JSONField(default=dict, blank=True)
    payment_method = models.PositiveSmallIntegerField(
        choices=PaymentMethod.choices, default=PaymentMethod.DOMESTIC_ACCOUNT
    )
    notes = models.TextField(blank=True)
    order = models.ForeignKey(
        "store_orders.Order",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    corrects = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="credit_notes",
        help_text="The document a credit note cancels.",
    )
    # The store's refund payment a credit note gives back (kept when the payment is deleted: the
    # note stays, see erp.invoicing.services.refund_recorded); one note per refund payment.
    refund_payment_id = models.PositiveBigIntegerField(null=True, blank=True, editable=False)
    net_total = _money()
    vat_total = _money()
    gross_total = _money()
    cancelled_at = models.DateTimeField(null=True, blank=True)
    auto_issue_error = models.CharField(
        max_length=500,
        blank=True,
        editable=False,
        help_text="Why the last automatic issue was refused: this draft's (auto-invoice) or "
        "the credit note of a refund on this invoice; empty once one succeeds.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["series", "number"],
                condition=Q(number__isnull=False),
                name="erp_invoicing_number_unique",
            ),
            # One invoice per order (its credit notes reference the invoice, not the order).
            models.UniqueConstraint(
                fields=["order"],
                condition=Q(order__isnull=False),
                name="erp_invoicing_one_per_order",
            ),
            models.CheckConstraint(
                condition=Q(status=InvoiceStatus.DRAFT) | Q(number__isnull=False),
                name="erp_invoicing_issued_numbered",
            ),
            models.UniqueConstraint(
                fields=["refund_payment_id"],
                condition=Q(refund_payment_id__isnull=False),
                name="erp_invoicing_one_note_per_refund",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["issue_date", "id"]),
        ]

    def __str__(self) -> str:
        return self.full_number or f"Draft {self.pk}"


# A line's values, as a credit note copies them and the admin shows them.
LINE_VALUES = (
    "description",
    "sku",
    "quantity",
    "unit_price",
    "discount",
    "net_amount",
    "vat_category",
    "vat_exemption",
    "vat_amount",
    "gross_amount",
)


class InvoiceLine(models.Model):
    invoice = models.ForeignKey(Invoice, on_delete=models.CASCADE, related_name="lines")
    position = models.PositiveSmallIntegerField()
    description = models.CharField(max_length=255)
    sku = models.CharField("SKU", max_length=64, blank=True)
    quantity = models.DecimalField(max_digits=12, decimal_places=3)
    unit_price = MoneyModelField()
    discount = _money()
    net_amount = MoneyModelField()
    vat_category = models.PositiveSmallIntegerField(choices=VatCategory.choices)
    vat_exemption = models.PositiveSmallIntegerField(
        choices=VatExemption.choices, null=True, blank=True
    )
    vat_amount = MoneyModelField()
    gross_amount = MoneyModelField()

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.description}"


class Transmission(models.Model):
    """The document at the tax authority: its state, mark and errors (one per document)."""

    invoice = models.OneToOneField(Invoice, on_delete=models.CASCADE, related_name="transmission")
    provider = models.CharField(max_length=10, choices=Provider.choices)
    status = models.CharField(max_length=10, choices=TransmissionStatus.choices)
    mark = models.CharField(max_length=40, blank=True)
    uid = models.CharField(max_length=64, blank=True)
    qr_url = models.URLField(max_length=500, blank=True)
    cancellation_mark = models.CharField(max_length=40, blank=True)
    errors = models.JSONField(default=list, blank=True, help_text="[{code, message}]")
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)
    requested_at = models.DateTimeField(default=timezone.now)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "mark"],
                condition=~Q(mark=""),
                name="erp_invoicing_mark_unique",
            )
        ]

    def __str__(self) -> str:
        return f"{self.invoice} at {self.provider}: {self.status}"


class InvoicingSettings(models.Model):
    """The issuer and how documents are numbered and transmitted: one row (pk 1)."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    issuer_name = models.CharField(max_length=200, blank=True)
    issuer_vat_number = models.CharField(max_length=32, blank=True)
    issuer_tax_office = models.CharField(max_length=100, blank=True)
    issuer_branch = models.PositiveIntegerField(default=0)
    issuer_address = models.JSONField(default=dict, blank=True)
    issuer_email = models.EmailField(blank=True)
    issuer_phone = models.CharField(max_length=40, blank=True)
    default_series = models.ForeignKey(
        InvoiceSeries, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    order_series = models.ForeignKey(
        InvoiceSeries,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Invoices made from orders (empty: the default series).",
    )
    zero_vat_exemption = models.PositiveSmallIntegerField(
        choices=VatExemption.choices,
        null=True,
        blank=True,
        help_text="The exemption category of untaxed order lines.",
    )
    provider = models.CharField(max_length=10, choices=Provider.choices, default=Provider.SANDBOX)
    mydata_environment = models.CharField(
        max_length=4, choices=MydataEnvironment.choices, default=MydataEnvironment.DEV
    )
    credentials = models.BinaryField(blank=True, default=b"", editable=False)
    auto_invoice = models.BooleanField(
        default=False, help_text="An order that is completed gets its invoice, issued."
    )
    auto_transmit = models.BooleanField(
        default=False, help_text="Issued documents are sent to the authority at once."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "invoicing settings"
        verbose_name_plural = "invoicing settings"

    def __str__(self) -> str:
        return "Invoicing settings"
