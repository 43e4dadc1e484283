from django.db import models


class OrderStatus(models.TextChoices):
    """A purchase order's states: draft -> sent -> partially_received -> received, or cancelled
    (from draft or sent only: nothing received yet)."""

    DRAFT = "draft", "Draft"
    SENT = "sent", "Sent"
    PARTIALLY_RECEIVED = "partially_received", "Partially received"
    RECEIVED = "received", "Received"
    CANCELLED = "cancelled", "Cancelled"


OPEN_STATUSES = (OrderStatus.DRAFT, OrderStatus.SENT, OrderStatus.PARTIALLY_RECEIVED)
CANCELLABLE = (OrderStatus.DRAFT, OrderStatus.SENT)
RECEIVABLE = (OrderStatus.SENT, OrderStatus.PARTIALLY_RECEIVED)
SENDABLE = (OrderStatus.DRAFT, OrderStatus.SENT, OrderStatus.PARTIALLY_RECEIVED)


class EmailStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    SENT = "sent", "Sent"
    FAILED = "failed", "Failed"
