"""Purchasing: suppliers, their prices, purchase orders with their lines, goods-received notes
(GRNs) with theirs, and the e-mails that sent an order to its supplier.

Rows are written by erp.purchasing.services only. Unit prices and costs keep four decimal
places (as the stock ledger's costs); totals are money (two places). A received quantity is
the sum of the GRN lines of its order line, kept on the line (`quantity_received`) in the
transaction that writes the GRN.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from erp.purchasing.choices import EmailStatus, OrderStatus
from store.common.money import MoneyModelField

COST_DIGITS = 14
COST_PLACES = 4


def CostField(**kwargs) -> models.DecimalField:
    return models.DecimalField(max_digits=COST_DIGITS, decimal_places=COST_PLACES, **kwargs)


class Supplier(models.Model):
    """A vendor the store buys from (Odoo: a partner with a supplier rank)."""

    name = models.CharField(max_length=200)
    code = models.SlugField(
        max_length=64, unique=True, help_text="Short reference; made from the name when empty."
    )
    vat_number = models.CharField("VAT number", max_length=32, blank=True)
    email = models.EmailField(max_length=254, blank=True, help_text="Purchase orders go here.")
    phone = models.CharField(max_length=40, blank=True)
    contact_name = models.CharField(max_length=200, blank=True)
    website = models.URLField(max_length=255, blank=True)
    address_1 = models.CharField(max_length=255, blank=True)
    address_2 = models.CharField(max_length=255, blank=True)
    city = models.CharField(max_length=100, blank=True)
    postcode = models.CharField(max_length=20, blank=True)
    country = models.CharField(max_length=2, blank=True, help_text="ISO 3166-1 alpha-2")
    currency = models.CharField(max_length=3, help_text="ISO 4217: its orders' currency.")
    payment_terms_days = models.PositiveSmallIntegerField(
        default=30, help_text="Days after the invoice the supplier is paid."
    )
    lead_time_days = models.PositiveSmallIntegerField(
        default=7, help_text="Days from order to delivery (a price may say otherwise)."
    )
    notes = models.TextField(max_length=2000, blank=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class SupplierPrice(models.Model):
    """What a supplier charges for a product or one variant of it (Odoo: a vendor pricelist
    line) from `min_quantity` units up. A product's price (variant empty) also serves its
    variants that have none of their own."""

    supplier = models.ForeignKey(Supplier, on_delete=models.CASCADE, related_name="prices")
    product = models.ForeignKey("store_catalog.Product", on_delete=models.CASCADE, related_name="+")
    variant = models.ForeignKey(
        "store_catalog.Variant", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    supplier_sku = models.CharField("supplier SKU", max_length=64, blank=True)
    unit_price = CostField()
    currency = models.CharField(max_length=3, help_text="ISO 4217")
    min_quantity = models.PositiveIntegerField(default=1)
    lead_time_days = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Empty: the supplier's."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["product_id", "variant_id", "unit_price", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["supplier", "product", "currency", "min_quantity"],
                condition=Q(variant__isnull=True),
                name="erp_purchasing_price_product_unique",
            ),
            models.UniqueConstraint(
                fields=["supplier", "variant", "currency", "min_quantity"],
                condition=Q(variant__isnull=False),
                name="erp_purchasing_price_variant_unique",
            ),
            models.CheckConstraint(
                condition=Q(min_quantity__gte=1), name="erp_purchasing_price_min_quantity"
            ),
            models.CheckConstraint(
                condition=Q(unit_price__gte=0), name="erp_purchasing_price_not_negative"
            ),
        ]
        indexes = [models.Index(fields=["product", "variant"])]

    def __str__(self) -> str:
        return f"{self.supplier_id}: {self.unit_price} {self.currency} from {self.min_quantity}"


class PurchaseOrder(models.Model):
    number = models.CharField(max_length=32, unique=True, blank=True)
    supplier = models.ForeignKey(Supplier, on_delete=models.PROTECT, related_name="orders")
    status = models.CharField(
        max_length=20, choices=OrderStatus.choices, default=OrderStatus.DRAFT, db_index=True
    )
    currency = models.CharField(max_length=3)
    exchange_rate = models.DecimalField(
        max_digits=16,
        decimal_places=6,
        default=1,
        help_text="Units of the store's currency per unit of the order's (stock costs).",
    )
    warehouse = models.ForeignKey(
        "store_inventory.Warehouse",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Where the goods go (empty: the default warehouse).",
    )
    order_date = models.DateField(default=timezone.localdate, db_index=True)
    expected_date = models.DateField(null=True, blank=True)
    supplier_reference = models.CharField(max_length=64, blank=True)
    notes = models.TextField(max_length=2000, blank=True)
    origin = models.CharField(max_length=32, blank=True, help_text="auto-reorder, or empty.")
    total = MoneyModelField(default=0, help_text="Sum of the lines (quantity x unit cost).")
    sent_at = models.DateTimeField(null=True, blank=True)
    received_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["supplier", "-order_date"])]

    def __str__(self) -> str:
        return self.number or f"PO {self.pk}"


class PurchaseOrderLine(models.Model):
    order = models.ForeignKey(PurchaseOrder, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey(
        "store_catalog.Product", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    variant = models.ForeignKey(
        "store_catalog.Variant", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    sku = models.CharField("SKU", max_length=64, blank=True, help_text="At the time.")
    name = models.CharField(max_length=255, help_text="At the time.")
    supplier_sku = models.CharField("supplier SKU", max_length=64, blank=True)
    quantity = models.PositiveIntegerField()
    quantity_received = models.PositiveIntegerField(default=0)
    unit_cost = CostField(help_text="In the order's currency.")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order_id", "position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(quantity__gte=1), name="erp_purchasing_line_quantity"
            ),
            models.CheckConstraint(
                condition=Q(quantity_received__lte=F("quantity")),
                name="erp_purchasing_line_not_over_received",
            ),
        ]
        indexes = [models.Index(fields=["product", "variant"])]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.sku or self.name}"

    @property
    def quantity_outstanding(self) -> int:
        return self.quantity - self.quantity_received


class GoodsReceivedNote(models.Model):
    """One delivery of (part of) a purchase order into one warehouse; its lines were posted
    to the stock ledger (reason purchase_received) at their cost."""

    number = models.CharField(max_length=32, unique=True, blank=True)
    purchase_order = models.ForeignKey(
        PurchaseOrder, on_delete=models.PROTECT, related_name="receipts"
    )
    supplier = models.ForeignKey(Supplier, on_delete=models.PROTECT, related_name="receipts")
    warehouse = models.ForeignKey(
        "store_inventory.Warehouse", on_delete=models.PROTECT, related_name="+"
    )
    supplier_reference = models.CharField(
        max_length=64, blank=True, help_text="The supplier's delivery note."
    )
    note = models.CharField(max_length=255, blank=True)
    received_at = models.DateTimeField(default=timezone.now, db_index=True)
    received_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-id"]
        verbose_name = "goods-received note"

    def __str__(self) -> str:
        return self.number or f"GRN {self.pk}"


class GoodsReceivedLine(models.Model):
    note = models.ForeignKey(GoodsReceivedNote, on_delete=models.CASCADE, related_name="lines")
    order_line = models.ForeignKey(
        PurchaseOrderLine, on_delete=models.PROTECT, related_name="receipt_lines"
    )
    product = models.ForeignKey(
        "store_catalog.Product", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    variant = models.ForeignKey(
        "store_catalog.Variant", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    sku = models.CharField("SKU", max_length=64, blank=True)
    quantity = models.PositiveIntegerField()
    unit_cost = CostField(help_text="In the order's currency.")
    stock_unit_cost = CostField(help_text="In the store's currency: the ledger's cost.")
    movement = models.ForeignKey(
        "store_inventory.StockMovement",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["note_id", "id"]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.sku}"


class PurchaseOrderEmail(models.Model):
    """A purchase order e-mailed to its supplier (the PDF attached): queued in the transaction
    that sends the order; the task marks it sent or failed."""

    order = models.ForeignKey(PurchaseOrder, on_delete=models.CASCADE, related_name="emails")
    recipient = models.EmailField(max_length=254)
    subject = models.CharField(max_length=255)
    message = models.TextField(max_length=5000, blank=True)
    status = models.CharField(
        max_length=8, choices=EmailStatus.choices, default=EmailStatus.QUEUED, db_index=True
    )
    error = models.CharField(max_length=500, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    sent_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = "purchase order e-mail"

    def __str__(self) -> str:
        return f"{self.order_id} to {self.recipient} ({self.status})"
