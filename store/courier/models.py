"""Courier vouchers (one per parcel group handed to a courier) and each courier's settings.

A voucher belongs to a provider (store.courier.providers) and, when made for an order, to the
order and the shipment it tracks; its status and tracking events follow the provider's.
Every write goes through store.courier.services.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from store.common.money import MoneyModelField


class VoucherStatus(models.TextChoices):
    CREATED = "created", "Created (awaiting pickup)"
    IN_TRANSIT = "in_transit", "In transit"
    DELIVERED = "delivered", "Delivered"
    RETURNED = "returned", "Returned to sender"
    CANCELLED = "cancelled", "Cancelled"


# Vouchers whose tracking can still change (refreshed by the tracking task).
OPEN_STATUSES = frozenset({VoucherStatus.CREATED, VoucherStatus.IN_TRANSIT})


class CourierAccount(models.Model):
    """One courier's settings: enabled, the sender printed on its labels, the default weight,
    and its credentials, encrypted (store.courier.secrets); a provider without a row has the
    defaults."""

    provider = models.CharField(max_length=32, unique=True)
    enabled = models.BooleanField(default=False)
    sender = models.JSONField(default=dict, blank=True, help_text="The sender's address.")
    default_weight = models.DecimalField(max_digits=8, decimal_places=3, default=1)
    credentials = models.BinaryField(default=b"", blank=True, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["provider"]

    def __str__(self) -> str:
        return self.provider


class Voucher(models.Model):
    provider = models.CharField(max_length=32)
    number = models.CharField(max_length=40)
    status = models.CharField(
        max_length=12, choices=VoucherStatus.choices, default=VoucherStatus.CREATED
    )
    order = models.ForeignKey(
        "store_orders.Order",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="courier_vouchers",
    )
    shipment = models.ForeignKey(
        "store_orders.Shipment",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="courier_vouchers",
    )
    recipient = models.JSONField(default=dict, blank=True)
    sender = models.JSONField(default=dict, blank=True)
    weight = models.DecimalField(max_digits=8, decimal_places=3)
    parcels = models.PositiveSmallIntegerField(default=1)
    cod_amount = MoneyModelField(default=0, help_text="Cash to collect on delivery (0: none).")
    currency = models.CharField(max_length=3, blank=True)
    reference = models.CharField(max_length=64, blank=True)
    note = models.CharField(max_length=255, blank=True)
    pickup_date = models.DateField(help_text="The day the courier collects it (pickup list).")
    label = models.BinaryField(
        default=b"", blank=True, editable=False, help_text="The provider's PDF (empty: drawn)."
    )
    events = models.JSONField(default=list, blank=True, help_text="Tracking events, oldest first.")
    tracked_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["provider", "number"], name="store_voucher_number"),
            models.CheckConstraint(
                condition=Q(parcels__gte=1) & Q(weight__gt=0) & Q(cod_amount__gte=0),
                name="store_voucher_amounts",
            ),
        ]
        indexes = [
            models.Index(fields=["provider", "pickup_date", "id"], name="store_voucher_pickup"),
            models.Index(
                fields=["tracked_at"],
                condition=Q(status__in=["created", "in_transit"]),
                name="store_voucher_open",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.number}"
