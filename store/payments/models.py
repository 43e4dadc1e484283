"""What the local sandbox card provider keeps: its charges, like a provider's dashboard.

No card number is stored: only the brand, the last four digits and the expiry.
"""

from __future__ import annotations

from dataclasses import dataclass

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


# --- Online gateways: their provider credentials, the payments started, events, refunds ------


class Provider(models.TextChoices):
    SANDBOX = "sandbox", "Local sandbox"
    STRIPE = "stripe", "Stripe"
    PAYPAL = "paypal", "PayPal"


class Mode(models.TextChoices):
    TEST = "test", "Test"
    LIVE = "live", "Live"


@dataclass(frozen=True)
class SaveCheck:
    """The provider's credentials check a save ran (services' config_create, config_update),
    and whether it kept the config from being active (`held_inactive`). Not stored: the saved
    row carries it as `save_check` to the answer of the save (selectors.config_saved_data);
    what is kept of it are the row's `last_check_*` fields."""

    ok: bool
    message: str
    account: str = ""
    held_inactive: bool = False


class GatewayConfig(models.Model):
    """A gateway's provider account: which provider, test or live, its credentials (Fernet-
    encrypted, store.payments.crypto; never answered in full). One active config per gateway."""

    gateway = models.CharField(max_length=40, help_text="A gateway id (stripe, paypal, ...).")
    provider = models.CharField(max_length=10, choices=Provider.choices)
    title = models.CharField(max_length=100, blank=True)
    mode = models.CharField(max_length=4, choices=Mode.choices, default=Mode.TEST)
    active = models.BooleanField(default=True)
    credentials_encrypted = models.BinaryField(editable=False)
    last_checked_at = models.DateTimeField(null=True, blank=True)
    last_check_ok = models.BooleanField(null=True, blank=True)
    last_check_message = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    # Not a field: the check the save that answers this row ran (None: it ran none); set by
    # the services' config_create and config_update only.
    save_check: SaveCheck | None

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["gateway"],
                condition=Q(active=True),
                name="store_payments_one_active_config_per_gateway",
            )
        ]

    def __str__(self) -> str:
        return f"{self.gateway}: {self.provider} ({self.mode})"


class AttemptStatus(models.TextChoices):
    CREATED = "created", "Created"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class PaymentAttempt(models.Model):
    """A payment started at a provider for an order (a card intent, a wallet order, a bank
    redirect): what an inbound event or a capture is matched with (never the event's own
    metadata)."""

    order = models.ForeignKey("store_orders.Order", on_delete=models.CASCADE, related_name="+")
    gateway = models.CharField(max_length=40)
    provider = models.CharField(max_length=10, choices=Provider.choices)
    kind = models.CharField(max_length=10)  # card | wallet | redirect
    external_id = models.CharField(max_length=100)
    amount = MoneyModelField()
    currency = models.CharField(max_length=3)
    status = models.CharField(
        max_length=10, choices=AttemptStatus.choices, default=AttemptStatus.CREATED
    )
    transaction_id = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "external_id"], name="store_payments_attempt_external_id"
            )
        ]

    def __str__(self) -> str:
        return f"{self.gateway} {self.external_id} ({self.status})"


class ProcessedEvent(models.Model):
    """An inbound event handled once: the same (gateway, event id) again is a replay."""

    gateway = models.CharField(max_length=40)
    event_id = models.CharField(max_length=255)
    type = models.CharField(max_length=100)
    outcome = models.CharField(max_length=40, help_text="recorded, ignored, unknown_payment...")
    received_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-received_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["gateway", "event_id"], name="store_payments_event_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.gateway} {self.event_id} ({self.outcome})"


class GatewayRefund(models.Model):
    """A refund made through a provider: the order's refund payment and the charge it gave
    back (so a charge is never refunded beyond its amount).

    Written `pending` (no payment yet) before the provider is called, outside the order's
    lock, so that a concurrent refund counts it; `done` with its payment once the provider has
    answered. A pending row older than a few minutes was abandoned (its process died during
    the call) and no longer counts (store.payments.services.refund_create)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DONE = "done", "Done"

    order = models.ForeignKey("store_orders.Order", on_delete=models.CASCADE, related_name="+")
    charge = models.ForeignKey("store_orders.Payment", on_delete=models.CASCADE, related_name="+")
    payment = models.ForeignKey(
        "store_orders.Payment", on_delete=models.CASCADE, related_name="+", null=True, blank=True
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DONE)
    idempotency_key = models.CharField(
        max_length=200, blank=True, help_text="Sent to the provider with the refund"
    )
    gateway = models.CharField(max_length=40)
    provider = models.CharField(max_length=10, blank=True)
    refund_id = models.CharField(max_length=100, blank=True)
    amount = MoneyModelField()
    currency = models.CharField(max_length=3)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.refund_id or 'manual'} {self.amount} {self.currency}"
