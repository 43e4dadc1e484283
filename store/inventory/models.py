"""The inventory ledger: warehouses, stock levels and the movements that change them.

A stock level is the quantity of one stock item (a product, or one variant of it) in one
warehouse. Every change of a level is a StockMovement (signed quantity, reason, reference, a
unique idempotency key) written in the same transaction by store.inventory.services, which
also keeps `stock_quantity` and `stock_status` of products and variants in step. Nothing
else writes stock.

StockDayRollup and StockRollupWatermark sum the movements of closed days (store.inventory.rollups
writes them, from the movements alone), so that figures over a period read a row per warehouse
and day instead of every movement since.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from store.inventory.choices import MovementReason


class Warehouse(models.Model):
    """A place that holds stock. Exactly one is the default; it is always present and active."""

    name = models.CharField(max_length=200)
    code = models.SlugField(
        max_length=64, unique=True, blank=True, help_text="Made from the name when left empty."
    )
    is_default = models.BooleanField(default=False)
    is_active = models.BooleanField(
        default=True, help_text="Stock in inactive warehouses is not for sale."
    )
    priority = models.IntegerField(
        default=0,
        help_text="Orders take stock from the default warehouse first, then from the others "
        "by priority (lower first).",
    )
    address = models.CharField(max_length=255, blank=True)
    city = models.CharField(max_length=100, blank=True)
    postcode = models.CharField(max_length=20, blank=True)
    country = models.CharField(max_length=2, blank=True, help_text="ISO 3166-1 alpha-2")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-is_default", "priority", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_default"],
                condition=Q(is_default=True),
                name="store_inventory_one_default_warehouse",
            ),
            models.CheckConstraint(
                condition=Q(is_default=False) | Q(is_active=True),
                name="store_inventory_default_warehouse_active",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (default)" if self.is_default else self.name


class StockLevel(models.Model):
    """How many units of a product (variant None) or variant one warehouse holds.

    The quantity goes below zero only for items that allow backorders (units sold but not yet
    in stock); services.stock_take refuses everything else that would take more than there is.
    """

    warehouse = models.ForeignKey(Warehouse, on_delete=models.PROTECT, related_name="levels")
    product = models.ForeignKey(
        "store_catalog.Product", on_delete=models.CASCADE, related_name="stock_levels"
    )
    variant = models.ForeignKey(
        "store_catalog.Variant",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="stock_levels",
    )
    quantity = models.IntegerField(default=0)
    # ERP: the level's average cost (moving average of what was received), and when
    # to order more (purchasing's auto-reorder; the ERP's low-stock figures).
    unit_cost = models.DecimalField(
        max_digits=14,
        decimal_places=4,
        null=True,
        blank=True,
        help_text="Average cost of one unit (moving average of the receipts).",
    )
    reorder_point = models.PositiveIntegerField(
        null=True, blank=True, help_text="Order more when the quantity is at or below this."
    )
    reorder_quantity = models.PositiveIntegerField(
        null=True, blank=True, help_text="How many to order then (default: up to twice the point)."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["warehouse_id", "product_id", "variant_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["warehouse", "product"],
                condition=Q(variant__isnull=True),
                name="store_inventory_level_product_unique",
            ),
            models.UniqueConstraint(
                fields=["warehouse", "variant"],
                condition=Q(variant__isnull=False),
                name="store_inventory_level_variant_unique",
            ),
        ]
        indexes = [
            models.Index(fields=["product", "variant"]),
            # The ERP's stock levels list pages in this order (offset or keyset).
            models.Index(
                fields=["warehouse", "product", "variant", "id"], name="store_inventory_level_order"
            ),
        ]

    def __str__(self) -> str:
        item = f"variant {self.variant_id}" if self.variant_id else f"product {self.product_id}"
        return f"{item} @ {self.warehouse_id}: {self.quantity}"


class StockMovement(models.Model):
    """One change of one stock level: the ledger. Rows are never changed or deleted.

    `reference_type`/`reference_id` name what caused it (an order, an admin edit, ...);
    `reference_line` the line within it (an order item). What an order holds is the negated
    sum of its movements per line and level. `idempotency_key` is unique: a change posted
    twice is refused by the database.
    """

    level = models.ForeignKey(
        StockLevel, null=True, blank=True, on_delete=models.SET_NULL, related_name="movements"
    )
    warehouse = models.ForeignKey(Warehouse, on_delete=models.PROTECT, related_name="movements")
    product = models.ForeignKey(
        "store_catalog.Product",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="stock_movements",
    )
    variant = models.ForeignKey(
        "store_catalog.Variant",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="stock_movements",
    )
    sku = models.CharField("SKU", max_length=64, blank=True, help_text="At the time.")
    quantity = models.IntegerField(help_text="Signed: negative takes stock out.")
    quantity_after = models.IntegerField(help_text="The level's quantity after this movement.")
    reason = models.CharField(max_length=32, choices=MovementReason.choices)
    reference_type = models.CharField(max_length=32, blank=True)
    reference_id = models.CharField(max_length=64, blank=True)
    reference_line = models.BigIntegerField(null=True, blank=True)
    unit_cost = models.DecimalField(
        max_digits=14,
        decimal_places=4,
        null=True,
        blank=True,
        help_text="Cost of one unit moved (a receipt's purchase price; a transfer's average cost).",
    )
    note = models.CharField(max_length=255, blank=True)
    idempotency_key = models.CharField(max_length=200, unique=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(quantity=0), name="store_inventory_movement_not_zero"
            )
        ]
        indexes = [
            models.Index(fields=["reference_type", "reference_id"]),
            models.Index(fields=["product", "variant", "created_at"]),
            # Movements of a period (the ERP's stock stats) without reading the whole ledger.
            models.Index(fields=["created_at"], name="store_inventory_move_created"),
        ]

    def __str__(self) -> str:
        return f"{self.quantity:+d} {self.sku or self.product_id} ({self.reason})"


class StockRollupWatermark(models.Model):
    """One row (pk 1): the first UTC day whose movements are not in StockDayRollup yet."""

    closed_until = models.DateField(
        null=True, blank=True, help_text="Movements of the days before this one are rolled up."
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Stock rolled up until {self.closed_until or '-'}"


class StockDayRollup(models.Model):
    """The movements of one warehouse on one closed UTC day, summed: written once when the day
    is closed and never changed after (movements are never changed or deleted)."""

    warehouse = models.ForeignKey(Warehouse, on_delete=models.CASCADE, related_name="+")
    day = models.DateField(help_text="UTC day.")
    quantity = models.BigIntegerField(default=0, help_text="Net of every movement of the day.")
    sales_quantity = models.BigIntegerField(
        default=0, help_text="Net of the orders' movements of the day (choices.SALE_REASONS)."
    )
    movements = models.IntegerField(default=0)

    class Meta:
        constraints = [
            # day first: the figures of all warehouses read one range of days
            models.UniqueConstraint(fields=["day", "warehouse"], name="store_inventory_day_rollup")
        ]

    def __str__(self) -> str:
        return f"{self.day} @ {self.warehouse_id}: {self.quantity:+d}"
