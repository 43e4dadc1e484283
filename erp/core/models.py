"""The ERP's settings: one row (pk 1), made on first use."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ErpSettings(models.Model):
    """Whether the ERP is on and the licence it runs under.

    `license_key` names a licence of this service's own licensing app (the store's licence);
    empty means the ERP_LICENSE_KEY setting's. Activation checks the licence; every ERP route
    checks it again (erp.core.gate), so a revoked or expired licence closes the ERP at once.
    """

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    active = models.BooleanField(default=False)
    license_key = models.CharField(max_length=64, blank=True, default="")
    activated_at = models.DateTimeField(null=True, blank=True)
    activated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    deactivated_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "ERP settings"
        verbose_name_plural = "ERP settings"

    def __str__(self) -> str:
        return "ERP settings"


# --- Background jobs: the data migration and the inventory backfill ------------------------------


class JobKind(models.TextChoices):
    MIGRATE_DATA = "migrate_data", "Import store data"
    INVENTORY_BACKFILL = "inventory_backfill", "Inventory cost backfill"


class JobState(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    COMPLETED = "completed", "Completed"
    CANCELLED = "cancelled", "Cancelled"
    FAILED = "failed", "Failed"


UNFINISHED = (JobState.QUEUED, JobState.RUNNING)


class ErpJob(models.Model):
    """One run of a resumable batch job (erp.core.services.jobs): phases of rows read in id
    order, `batch_size` at a time. Each batch commits its work, `last_id` and the counts with the
    outbox row of the next batch, so a crash loses nothing and repeats nothing: the job goes on
    from `last_id` of `phase`. `batch` numbers the batches; a task whose number is not the job's
    is a duplicate delivery and does nothing."""

    kind = models.CharField(max_length=32, choices=JobKind.choices)
    state = models.CharField(max_length=16, choices=JobState.choices, default=JobState.QUEUED)
    params = models.JSONField(
        default=dict, blank=True, help_text="The options it was started with."
    )
    phase = models.CharField(max_length=32, blank=True)
    last_id = models.BigIntegerField(default=0, help_text="The last row done in the phase.")
    batch = models.PositiveIntegerField(default=0, help_text="Batches done.")
    total = models.PositiveIntegerField(default=0, help_text="Rows to do, counted at the start.")
    processed = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=dict, blank=True, help_text="Per phase: done, skipped.")
    errors = models.JSONField(default=list, blank=True, help_text="The first errors met.")
    error_count = models.PositiveIntegerField(default=0)
    failures = models.PositiveSmallIntegerField(
        default=0, help_text="Batches that failed in a row (retried; the job fails at the limit)."
    )
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = "ERP job"
        constraints = [
            models.UniqueConstraint(
                fields=["kind"],
                condition=models.Q(state__in=["queued", "running"]),
                name="erp_core_one_unfinished_job_per_kind",
            )
        ]
        indexes = [models.Index(fields=["state", "updated_at"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.state})"

    @property
    def progress(self) -> int:
        """Percent done: 100 once completed; never 100 before."""
        if self.state == JobState.COMPLETED:
            return 100
        if not self.total:
            return 0
        return min(99, self.processed * 100 // self.total)


# --- What the data migration imports (read by the ERP's apps) -----------------------------------


class ErpImportedCustomer(models.Model):
    """A store customer as the ERP knows it: a contact with its sales so far (CRM, invoicing)."""

    customer = models.OneToOneField(
        "store_customers.Customer", on_delete=models.CASCADE, related_name="+"
    )
    email = models.EmailField(max_length=254)
    name = models.CharField(max_length=201, blank=True)
    company = models.CharField(max_length=200, blank=True)
    phone = models.CharField(max_length=40, blank=True)
    order_count = models.PositiveIntegerField(default=0)
    first_order_at = models.DateTimeField(null=True, blank=True)
    last_order_at = models.DateTimeField(null=True, blank=True)
    customer_since = models.DateTimeField()
    job = models.ForeignKey(
        ErpJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_at = models.DateTimeField()

    class Meta:
        ordering = ["customer_id"]
        verbose_name = "imported customer"

    def __str__(self) -> str:
        return self.email


class ErpImportedOrder(models.Model):
    """A store order as the ERP knows it: its totals when imported (invoicing's from-order,
    accounting's opening receivables read these)."""

    order = models.OneToOneField("store_orders.Order", on_delete=models.CASCADE, related_name="+")
    order_number = models.CharField(max_length=32)
    customer = models.ForeignKey(
        "store_customers.Customer",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    email = models.CharField(max_length=254, blank=True, help_text="The billing e-mail address.")
    status = models.CharField(max_length=16)
    payment_status = models.CharField(max_length=20)
    currency = models.CharField(max_length=3)
    subtotal = models.DecimalField(max_digits=12, decimal_places=2)
    discount_total = models.DecimalField(max_digits=12, decimal_places=2)
    shipping_total = models.DecimalField(max_digits=12, decimal_places=2)
    tax_total = models.DecimalField(max_digits=12, decimal_places=2)
    total = models.DecimalField(max_digits=12, decimal_places=2)
    amount_paid = models.DecimalField(max_digits=12, decimal_places=2)
    amount_refunded = models.DecimalField(max_digits=12, decimal_places=2)
    item_count = models.PositiveIntegerField(default=0)
    ordered_at = models.DateTimeField()
    paid_at = models.DateTimeField(null=True, blank=True)
    job = models.ForeignKey(
        ErpJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_at = models.DateTimeField()

    class Meta:
        ordering = ["order_id"]
        verbose_name = "imported order"
        indexes = [models.Index(fields=["customer", "ordered_at"])]

    def __str__(self) -> str:
        return self.order_number


class ErpOpeningStock(models.Model):
    """A stock level's quantity and unit cost when imported: the ERP's opening stock
    (accounting's opening inventory value)."""

    level = models.OneToOneField(
        "store_inventory.StockLevel", on_delete=models.CASCADE, related_name="+"
    )
    warehouse = models.ForeignKey(
        "store_inventory.Warehouse", on_delete=models.CASCADE, related_name="+"
    )
    product = models.ForeignKey("store_catalog.Product", on_delete=models.CASCADE, related_name="+")
    variant = models.ForeignKey(
        "store_catalog.Variant", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    sku = models.CharField("SKU", max_length=64, blank=True)
    quantity = models.IntegerField()
    unit_cost = models.DecimalField(max_digits=14, decimal_places=4, null=True, blank=True)
    value = models.DecimalField(
        max_digits=18,
        decimal_places=2,
        null=True,
        blank=True,
        help_text="quantity times unit cost.",
    )
    job = models.ForeignKey(
        ErpJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_at = models.DateTimeField()

    class Meta:
        ordering = ["level_id"]
        verbose_name = "opening stock"
        verbose_name_plural = "opening stock"

    def __str__(self) -> str:
        return f"{self.sku or self.product_id} @ {self.warehouse_id}: {self.quantity}"


# --- The customer and supplier portal ------------------------------------------------------------


class PortalDocument(models.TextChoices):
    INVOICES = "invoices", "Invoices"
    CREDIT_NOTES = "credit_notes", "Credit notes"
    ORDERS = "orders", "Orders"


class SupplierDocument(models.TextChoices):
    PURCHASE_ORDERS = "purchase_orders", "Purchase orders"
    GOODS_RECEIVED = "goods_received", "Goods-received notes"


class ErpPortalSettings(models.Model):
    """The customer and supplier portal: one row (pk 1), written by
    erp.core.services.portal_settings_update."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    enabled = models.BooleanField(default=False, help_text="Customers see their documents.")
    customer_documents = models.JSONField(
        default=list, blank=True, help_text="What customers see: invoices, credit_notes, orders."
    )
    suppliers_enabled = models.BooleanField(
        default=False, help_text="Suppliers see their documents."
    )
    supplier_documents = models.JSONField(
        default=list, blank=True, help_text="What suppliers see: purchase_orders, goods_received."
    )
    welcome_text = models.TextField(blank=True, max_length=2000)
    brand_colour = models.CharField(
        max_length=7, default="#1f6feb", help_text="#RRGGBB: the portal's accent colour."
    )
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name = "portal settings"
        verbose_name_plural = "portal settings"

    def __str__(self) -> str:
        return "Portal settings"
