"""What the local sandbox card provider keeps: its charges, like a provider's dashboard.

No card number is stored: only the brand, the last four digits and the expiry.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from store.common.money import MoneyModelField


class SandboxChargeStatus(models.TextChoices):
    APPROVED = "approved", "Approved"
    DECLINED = "declined", "Declined"


class SandboxCharge(models.Model):
    transaction_id = models.CharField(max_length=64, unique=True)
    idempotency_key = models.CharField(
        max_length=200, unique=True, help_text="The same key answers the same charge."
    )
    reference = models.CharField(max_length=64, help_text="The order number.")
    description = models.CharField(max_length=255, blank=True)
    amount = MoneyModelField()
    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=10, choices=SandboxChargeStatus.choices)
    decline_code = models.CharField(max_length=40, blank=True)
    brand = models.CharField(max_length=20, blank=True)
    last4 = models.CharField(max_length=4, blank=True)
    exp_month = models.PositiveSmallIntegerField()
    exp_year = models.PositiveSmallIntegerField()
    amount_refunded = MoneyModelField(default=0)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_refunded__lte=models.F("amount")) & Q(amount_refunded__gte=0),
                name="store_payments_sandbox_refund_within_amount",
            )
        ]
        indexes = [models.Index(fields=["reference"])]

    def __str__(self) -> str:
        return f"{self.transaction_id} {self.amount} {self.currency} ({self.status})"
