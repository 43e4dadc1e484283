"""Marketplace sync's models: each marketplace's settings, the notifications it sent, the
orders it sold (each imported once as a store order) and the calls made to its API.

Every write goes through store.marketplace.services.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from store.orders.choices import OrderStatus


class MarketplaceAccount(models.Model):
    """One marketplace's settings; a marketplace without a row has the defaults (disabled).

    The webhook secret and the API credentials are sealed (store.marketplace.secrets) and never
    answered: the settings route shows only whether each is set."""

    marketplace = models.CharField(max_length=32, unique=True)
    enabled = models.BooleanField(default=False)
    webhook_secret = models.BinaryField(default=b"", blank=True, editable=False)
    credentials = models.BinaryField(default=b"", blank=True, editable=False)
    auto_acknowledge = models.BooleanField(
        default=False, help_text="Accept an imported order at the marketplace at once."
    )
    order_status = models.CharField(
        max_length=16,
        choices=OrderStatus.choices,
        default=OrderStatus.PROCESSING,
        help_text="The status an imported order gets.",
    )
    shipping_method = models.CharField(max_length=64, blank=True, default="")
    shipping_method_title = models.CharField(max_length=100, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["marketplace"]

    def __str__(self) -> str:
        return self.marketplace


class EventStatus(models.TextChoices):
    PENDING = "pending", "Pending (waiting for the worker)"
    PROCESSED = "processed", "Processed"
    FAILED = "failed", "Failed"


class MarketplaceEvent(models.Model):
    """A verified notification, recorded once per (marketplace, event id): the same id again is
    a replay, answered with this row's outcome. Processed by the worker (`pending` until then)."""

    marketplace = models.CharField(max_length=32)
    event_id = models.CharField(max_length=200)
    type = models.CharField(max_length=40)
    order_code = models.CharField(max_length=64, blank=True, default="")
    payload = models.JSONField(help_text="The notification's body, as received (verified).")
    status = models.CharField(
        max_length=10, choices=EventStatus.choices, default=EventStatus.PENDING
    )
    outcome = models.CharField(
        max_length=40, blank=True, default="", help_text="imported, cancelled, ignored..."
    )
    error = models.CharField(max_length=500, blank=True, default="")
    attempts = models.PositiveIntegerField(default=0)
    received_at = models.DateTimeField(default=timezone.now, editable=False)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-received_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["marketplace", "event_id"], name="store_marketplace_event_once"
            )
        ]
        indexes = [
            models.Index(fields=["status", "received_at"]),
            models.Index(fields=["marketplace", "order_code"]),
        ]

    def __str__(self) -> str:
        return f"{self.marketplace} {self.event_id} ({self.status})"


class ImportStatus(models.TextChoices):
    IMPORTED = "imported", "Imported"
    FAILED = "failed", "Import failed"


class MarketplaceOrder(models.Model):
    """An order sold on a marketplace, once per (marketplace, code), and the store order it
    became (none while its import has failed: `failure_code`, `failure_message` say why)."""

    marketplace = models.CharField(max_length=32)
    code = models.CharField(max_length=64, help_text="The marketplace's order code.")
    state = models.CharField(
        max_length=32, help_text="The order's state at the marketplace (its own word)."
    )
    import_status = models.CharField(max_length=10, choices=ImportStatus.choices)
    failure_code = models.CharField(max_length=40, blank=True, default="")
    failure_message = models.CharField(max_length=1000, blank=True, default="")
    import_attempts = models.PositiveIntegerField(default=0)
    order = models.OneToOneField(
        "store_orders.Order",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="marketplace_order",
    )
    data = models.JSONField(help_text="The order as the marketplace last sent it (normalised).")
    currency = models.CharField(max_length=3)
    total = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    rejected_at = models.DateTimeField(null=True, blank=True)
    reject_reason = models.CharField(max_length=500, blank=True, default="")
    shipped_at = models.DateTimeField(null=True, blank=True)
    tracking_number = models.CharField(max_length=100, blank=True, default="")
    carrier = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["marketplace", "code"], name="store_marketplace_order_once"
            )
        ]
        indexes = [
            models.Index(fields=["marketplace", "created_at"]),
            models.Index(fields=["import_status", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.marketplace} {self.code}"


class MarketplaceCall(models.Model):
    """A call made to a marketplace's API (acknowledge, reject, ship): what the sandbox client
    answers from, and the record of what the live client sent."""

    marketplace = models.CharField(max_length=32)
    action = models.CharField(max_length=20)
    order_code = models.CharField(max_length=64)
    request = models.JSONField(default=dict)
    ok = models.BooleanField(default=True)
    response = models.CharField(max_length=1000, blank=True, default="")
    sandbox = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["marketplace", "order_code"])]

    def __str__(self) -> str:
        return f"{self.marketplace} {self.action} {self.order_code}"
