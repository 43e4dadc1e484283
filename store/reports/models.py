"""The reports' rollups: running totals that the order and customer writes keep current, so
that a report reads a few rows per period whatever the number of orders (store.reports.rollups
writes them; store.reports.selectors reads them).

Days are UTC days, numbered from 1970-01-01 (day 0). A block is `2**level` days starting at a
multiple of its size (`start`); each day's figures are kept in one block of every level
0..MAX_LEVEL, so any range of days is the sum of at most two blocks per level. `block`
(start * 16 + level) names a block in one column, so that a range's blocks are one IN list.

What they count:
- Orders and customers created before the watermark's `closed_until` (the days "closed": every
  day before today, once the nightly task or `rebuild_report_rollups` ran) are counted in
  OrderRollup, ProductRollup and CustomerRollup; later ones are read from their rows.
- CustomerTotals counts every order of every customer (no watermark).
"""

from __future__ import annotations

from django.db import models

MAX_LEVEL = 12  # blocks of up to 4096 days: a ten-year period is about twenty blocks


def block_key(level: int, start: int) -> int:
    return start * 16 + level


class Blocked(models.Model):
    """A row of a block of days."""

    block = models.BigIntegerField(help_text="start * 16 + level.")
    level = models.PositiveSmallIntegerField()
    start = models.IntegerField(help_text="First day of the block (days since 1970-01-01).")

    class Meta:
        abstract = True


def _sum() -> models.DecimalField:
    """A sum of money amounts (wider than one amount)."""
    return models.DecimalField(max_digits=18, decimal_places=2, default=0)


class ReportWatermark(models.Model):
    """One row (pk 1): the first day not yet counted in the rollups by day."""

    closed_until = models.DateField(
        null=True, blank=True, help_text="Days before this one are in the rollups (UTC)."
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Rollups closed until {self.closed_until or '-'}"


class OrderRollup(Blocked):
    """Orders of a block of days by currency, status, payment and fulfilment status."""

    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=16)
    payment_status = models.CharField(max_length=20)
    fulfillment_status = models.CharField(max_length=20)
    orders = models.IntegerField(default=0)
    total = _sum()
    amount_paid = _sum()
    amount_refunded = _sum()
    items = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=[
                    "block",
                    "currency",
                    "status",
                    "payment_status",
                    "fulfillment_status",
                ],
                name="store_reports_order_rollup_key",
            )
        ]
        indexes = [models.Index(fields=["level", "start"], name="store_reports_order_level")]

    def __str__(self) -> str:
        return f"{self.level}/{self.start} {self.currency} {self.status}: {self.orders}"


class ProductRollup(Blocked):
    """What the sales orders (processing, shipped, completed) of a block of days sold, by
    currency, product and line title (the title as sold: a product's lines may carry several).
    An order counts once per product, under the greatest title of its lines of that product."""

    currency = models.CharField(max_length=3)
    product = models.ForeignKey("store_catalog.Product", on_delete=models.CASCADE, related_name="+")
    title = models.CharField(max_length=255)
    lines = models.IntegerField(default=0)
    quantity = models.BigIntegerField(default=0)
    revenue = _sum()
    orders = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["block", "currency", "product", "title"],
                name="store_reports_product_rollup_key",
            )
        ]
        indexes = [models.Index(fields=["level", "start"], name="store_reports_product_level")]

    def __str__(self) -> str:
        return f"{self.level}/{self.start} {self.currency} {self.title}: {self.quantity}"


class CustomerRollup(Blocked):
    """Customers by the block of days they were created in, registered or not, anonymised or
    not, with orders or without."""

    registered = models.BooleanField()
    anonymised = models.BooleanField()
    has_orders = models.BooleanField()
    customers = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["block", "registered", "anonymised", "has_orders"],
                name="store_reports_customer_rollup_key",
            )
        ]
        indexes = [models.Index(fields=["level", "start"], name="store_reports_customer_level")]

    def __str__(self) -> str:
        return f"{self.level}/{self.start}: {self.customers}"


class CustomerTally(models.Model):
    """How CustomerRollup counts a customer created before the watermark (its day and flags),
    so that a change moves it from one count to another exactly once. Kept by id: a deleted
    customer is taken out of the counts by it."""

    customer_id = models.BigIntegerField(primary_key=True)
    day = models.IntegerField()
    registered = models.BooleanField()
    anonymised = models.BooleanField()
    has_orders = models.BooleanField()

    def __str__(self) -> str:
        return f"Customer {self.customer_id} counted on day {self.day}"


class CustomerTotals(models.Model):
    """A customer's orders in one currency: every order, and the sales (processing, shipped,
    completed) with what they came to."""

    customer = models.ForeignKey(
        "store_customers.Customer", on_delete=models.CASCADE, related_name="report_totals"
    )
    currency = models.CharField(max_length=3)
    orders = models.IntegerField(default=0)
    sales = models.IntegerField(default=0)
    spent = _sum()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["customer", "currency"], name="store_reports_customer_totals_key"
            )
        ]

    def __str__(self) -> str:
        return f"Customer {self.customer_id} {self.currency}: {self.orders}"
