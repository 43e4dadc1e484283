"""Orders, their line items, payments, shipments and status history.

Every write goes through store.orders.services (one rule, one place): totals, the payment and
fulfilment statuses, the status history and the stock the order holds follow from them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Upper
from django.utils import timezone

from store.common.money import MoneyModelField
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


def _money(**kwargs):
    return MoneyModelField(default=0, **kwargs)


class Order(models.Model):
    # Set from the id right after the insert, in the creating transaction (so never seen empty).
    order_number = models.CharField(max_length=32, unique=True, null=True, editable=False)  # noqa: DJ001
    order_key = models.CharField(
        max_length=64, unique=True, editable=False, help_text="Secret of the confirmation page."
    )
    status = models.CharField(
        max_length=16, choices=OrderStatus.choices, default=OrderStatus.PENDING
    )
    payment_status = models.CharField(
        max_length=20, choices=PaymentStatus.choices, default=PaymentStatus.UNPAID
    )
    fulfillment_status = models.CharField(
        max_length=20, choices=FulfillmentStatus.choices, default=FulfillmentStatus.UNFULFILLED
    )
    currency = models.CharField(max_length=3)
    customer = models.ForeignKey(
        "store_customers.Customer",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="orders",
    )
    billing_address = models.JSONField(default=dict, blank=True)
    shipping_address = models.JSONField(default=dict, blank=True)
    payment_method = models.CharField(max_length=100, blank=True)
    payment_method_title = models.CharField(max_length=200, blank=True)
    shipping_method = models.CharField(max_length=100, blank=True)
    shipping_method_title = models.CharField(max_length=200, blank=True)
    customer_note = models.TextField(blank=True)
    admin_note = models.TextField(blank=True)
    vat_number = models.CharField(
        max_length=32,
        blank=True,
        help_text="The customer's EU VAT number (compact, checked with python-stdnum).",
    )
    reverse_charge = models.BooleanField(
        default=False,
        help_text="The EU B2B reverse charge applied (store.tax): the order carries no tax.",
    )

    subtotal = _money(help_text="Sum of the line subtotals.")
    discount_total = _money()
    shipping_total = _money()
    shipping_tax = _money()
    tax_total = _money(help_text="Line taxes plus shipping tax.")
    total = _money(help_text="subtotal - discount + shipping + tax.")
    amount_paid = _money(help_text="Completed payments.")
    amount_refunded = _money(help_text="Completed refunds.")
    item_count = models.PositiveIntegerField(default=0)
    coupon_lines = models.JSONField(
        default=list,
        blank=True,
        help_text="The coupons behind discount_total: [{code, discount, discount_tax}].",
    )

    stock_revision = models.PositiveIntegerField(
        default=0, help_text="Counts the order's stock changes (part of their idempotency keys)."
    )
    stock_release_pending = models.BooleanField(
        default=False, help_text="Stock is to be given back by the worker."
    )
    source = models.CharField(max_length=16, choices=OrderSource.choices, default=OrderSource.API)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(total__gte=0), name="store_order_total_positive"),
            models.CheckConstraint(
                condition=Q(discount_total__gte=0)
                & Q(shipping_total__gte=0)
                & Q(shipping_tax__gte=0),
                name="store_order_amounts_positive",
            ),
        ]
        indexes = [
            models.Index(fields=["created_at", "id"]),
            models.Index(fields=["status", "created_at"]),
            # the list's other orderings (orderby total, modified, status; id is the pk)
            models.Index(fields=["total", "id"], name="store_order_total_id"),
            models.Index(fields=["updated_at", "id"], name="store_order_updated_id"),
            models.Index(fields=["status", "id"], name="store_order_status_id"),
            models.Index(fields=["payment_status"]),
            models.Index(fields=["fulfillment_status"]),
            models.Index(fields=["customer", "created_at"]),
            models.Index(
                fields=["updated_at"],
                condition=Q(stock_release_pending=True),
                name="store_order_release_due",
            ),
        ]

    def __str__(self) -> str:
        return self.order_number or f"Order {self.pk}"

    @property
    def placed_by_checkout(self) -> bool:
        """Whether a checkout placed the order: only the checkout places orders with its
        source, so an order of another source has no checkout to look up."""
        return self.source == OrderSource.CHECKOUT


class OrderItem(models.Model):
    """A line: what was bought, with snapshots of title, SKU and price at the time."""

    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="items")
    product = models.ForeignKey(
        "store_catalog.Product",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="order_items",
    )
    variant = models.ForeignKey(
        "store_catalog.Variant",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="order_items",
    )
    title = models.CharField(max_length=255)
    sku = models.CharField("SKU", max_length=64, blank=True)
    attributes = models.JSONField(
        default=list, blank=True, help_text="The variant's attributes at the time."
    )
    options = models.JSONField(default=dict, blank=True)
    quantity = models.PositiveIntegerField()
    unit_price = MoneyModelField()
    subtotal = MoneyModelField()
    tax = _money()
    total = MoneyModelField()
    restocked = models.PositiveIntegerField(
        default=0,
        help_text="Units given back to stock (a return, a refund's restock): the line holds "
        "that many fewer (OrderRestock keeps each restock).",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(quantity__gte=1), name="store_order_item_qty"),
            models.CheckConstraint(
                condition=Q(unit_price__gte=0) & Q(tax__gte=0), name="store_order_item_amounts"
            ),
        ]
        # the order search's `sku__iexact` (UPPER(sku) = UPPER(term))
        indexes = [models.Index(Upper("sku"), name="store_order_item_sku_upper")]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.title}"


class Payment(models.Model):
    """A payment or a refund recorded against an order."""

    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="payments")
    kind = models.CharField(max_length=10, choices=PaymentKind.choices, default=PaymentKind.PAYMENT)
    status = models.CharField(
        max_length=10, choices=PaymentRecordStatus.choices, default=PaymentRecordStatus.COMPLETED
    )
    amount = MoneyModelField()
    method = models.CharField(max_length=100, blank=True)
    transaction_id = models.CharField(max_length=200, blank=True)
    note = models.TextField(blank=True)
    paid_at = models.DateTimeField(default=timezone.now)
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
        ordering = ["paid_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="store_payment_amount_positive")
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.signed_amount} ({self.status})"

    @property
    def signed_amount(self):
        """The amount as every list and export shows it: money going back (a refund) is
        negative, so an order's payments sum to what the shop kept. Stored as a magnitude
        with its `kind`."""
        return -self.amount if self.kind == PaymentKind.REFUND else self.amount


class Shipment(models.Model):
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="shipments")
    status = models.CharField(
        max_length=12, choices=ShipmentStatus.choices, default=ShipmentStatus.SHIPPED
    )
    carrier = models.CharField(max_length=100, blank=True)
    service = models.CharField(max_length=100, blank=True)
    tracking_number = models.CharField(max_length=100, blank=True)
    tracking_url = models.URLField(max_length=500, blank=True)
    note = models.TextField(blank=True)
    shipped_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"Shipment {self.pk} ({self.status})"


class ShipmentItem(models.Model):
    shipment = models.ForeignKey(Shipment, on_delete=models.CASCADE, related_name="items")
    # RESTRICT: an item in a shipment is not removed alone, but goes with its order.
    order_item = models.ForeignKey(
        OrderItem, on_delete=models.RESTRICT, related_name="shipment_items"
    )
    quantity = models.PositiveIntegerField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(quantity__gte=1), name="store_shipment_item_qty"),
            models.UniqueConstraint(
                fields=["shipment", "order_item"], name="store_shipment_item_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} x item {self.order_item_id}"


class OrderStatusChange(models.Model):
    """The status history: every change of status, payment status or fulfilment status."""

    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="history")
    field = models.CharField(max_length=20, choices=HistoryField.choices)
    from_value = models.CharField(max_length=20, blank=True)
    to_value = models.CharField(max_length=20)
    note = models.CharField(max_length=255, blank=True)
    source = models.CharField(max_length=16, choices=OrderSource.choices, default=OrderSource.API)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name_plural = "order status changes"

    def __str__(self) -> str:
        return f"{self.field}: {self.from_value or '-'} -> {self.to_value}"


class OrderRestock(models.Model):
    """Units of one line given back to stock (services.restock.order_items_restock); `key`
    makes a retry of the same restock answer it again instead of restocking twice."""

    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="restocks")
    order_item = models.ForeignKey(OrderItem, on_delete=models.CASCADE, related_name="restocks")
    quantity = models.PositiveIntegerField()
    key = models.CharField(max_length=200, blank=True, help_text="The caller's idempotency key.")
    note = models.CharField(max_length=255, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(quantity__gte=1), name="store_order_restock_qty"),
            models.UniqueConstraint(
                fields=["order_item", "key"],
                condition=~Q(key=""),
                name="store_order_restock_key",
            ),
        ]
        indexes = [models.Index(fields=["order", "key"])]

    def __str__(self) -> str:
        return f"{self.quantity} x item {self.order_item_id} restocked"
