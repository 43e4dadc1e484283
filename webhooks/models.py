"""Outbound webhooks: the endpoints an account registers, the events it is sent, the attempts.

- `Webhook`: a receiver URL of one account (scope `portal`: its licence events), or of the
  store (scope `store`: store-wide events, owned by no account; `created_by` remembers the
  staff member who registered it and may go), the events it wants and its signing secret.
- `Delivery`: one event for one webhook (the message). Its body is fixed when it is emitted, so
  every retry and redelivery sends the same bytes with the same `uuid` (the delivery id
  header). Its next due attempt lives here (`next_attempt_at`), not in the broker.
- `DeliveryAttempt`: the delivery log, one row per attempt; the newest 100 per webhook are kept.
"""

from __future__ import annotations

import json
import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


class Event(models.TextChoices):
    """The event names of the spec's Events table, in its order."""

    LICENSE_CREATED = "license.created", "license.created"
    LICENSE_ACTIVATED = "license.activated", "license.activated"
    LICENSE_DEACTIVATED = "license.deactivated", "license.deactivated"
    LICENSE_REVOKED = "license.revoked", "license.revoked"
    LICENSE_EXPIRED = "license.expired", "license.expired"


class StoreEvent(models.TextChoices):
    """The store's events, delivered to store webhooks."""

    ORDER_CREATED = "order.created", "order.created"
    ORDER_STATUS_CHANGED = "order.status_changed", "order.status_changed"
    ORDER_PAID = "order.paid", "order.paid"
    ORDER_REFUNDED = "order.refunded", "order.refunded"
    PRODUCT_CREATED = "product.created", "product.created"
    PRODUCT_UPDATED = "product.updated", "product.updated"
    PRODUCT_DELETED = "product.deleted", "product.deleted"
    STOCK_LOW = "stock.low", "stock.low"
    CUSTOMER_CREATED = "customer.created", "customer.created"


class Scope(models.TextChoices):
    PORTAL = "portal", "Portal (an account's licence events)"
    STORE = "store", "Store (store-wide events)"


# The test ping of POST /portal/webhooks/{id}/test; not an event a webhook subscribes to.
PING_EVENT = "ping"


class Webhook(models.Model):
    scope = models.CharField(max_length=8, choices=Scope.choices, default=Scope.PORTAL)
    # The owner of a portal webhook; none for a store webhook.
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="webhooks",
        null=True,
        blank=True,
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        related_name="+",
        null=True,
        blank=True,
        help_text="Store webhooks: who registered it (the webhook outlives the account).",
    )
    url = models.CharField(max_length=2048)
    events = models.JSONField(default=list, help_text="Event names, in the spec's order.")
    secret = models.CharField(max_length=64, help_text="HMAC-SHA256 key of the signatures.")
    description = models.CharField(max_length=255, blank=True)
    is_active = models.BooleanField(default=True)
    disabled_reason = models.CharField(max_length=255, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    failing_since = models.DateTimeField(
        null=True,
        blank=True,
        help_text="First failed attempt since the last success; 5 days of failures disable.",
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(scope="portal", account__isnull=False)
                | models.Q(scope="store", account__isnull=True),
                name="webhooks_webhook_scope_owner",
            ),
        ]
        indexes = [models.Index(fields=["scope", "is_active"], name="webhooks_scope_active")]

    def __str__(self) -> str:
        return self.url

    def subscribes_to(self, event: str) -> bool:
        return event in (self.events or [])


class Delivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    uuid = models.UUIDField(
        default=uuid.uuid4, unique=True, editable=False, help_text="The X-Hub-Delivery header."
    )
    event = models.CharField(max_length=64)
    body = models.TextField(help_text="The exact JSON text sent on every attempt.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    auto_retry = models.BooleanField(
        default=True,
        help_text="Retry on the schedule after a failure (off for pings and "
        "manual redeliveries, which are one attempt each).",
    )
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # Dispatch bookkeeping: when a task was last enqueued for the due attempt, and the lease of
    # the worker sending it (a redelivered task with the same id may take the lease over).
    dispatched_at = models.DateTimeField(null=True, blank=True)
    locked_until = models.DateTimeField(null=True, blank=True)
    claim_token = models.CharField(max_length=64, blank=True)
    claimed_by_task = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    succeeded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "deliveries"
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=models.Q(status="pending"),
                name="webhooks_delivery_due",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} {self.uuid}"

    @property
    def payload(self) -> dict:
        return json.loads(self.body)


class DeliveryAttempt(models.Model):
    """One entry of the delivery log."""

    class Outcome(models.TextChoices):
        SUCCESS = "success", "Success (2xx)"
        HTTP_ERROR = "http_error", "Answered with an error status"
        REDIRECT = "redirect", "Answered with a redirect (not followed)"
        TIMEOUT = "timeout", "Timed out"
        CONNECTION_ERROR = "connection_error", "Could not connect"
        BLOCKED = "blocked", "Blocked (address not allowed)"
        INTERRUPTED = "interrupted", "Interrupted (no result recorded)"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="delivery_logs")
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="log")
    attempt = models.PositiveIntegerField()
    event = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    success = models.BooleanField(default=False)
    outcome = models.CharField(max_length=20, choices=Outcome.choices)
    error = models.CharField(max_length=500, blank=True)
    response_body = models.TextField(blank=True, help_text="Truncated; never shown in the API.")
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["webhook", "-id"], name="webhooks_log_newest")]

    def __str__(self) -> str:
        return f"{self.event} attempt {self.attempt}: {self.outcome}"
