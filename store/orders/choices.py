"""Order, payment and fulfilment statuses, and which order-status moves are allowed.

Order statuses hold stock except the terminal ones (cancelled, refunded, failed): moving into
a terminal status gives the order's stock back, leaving one takes it again (spec: States).
"""

from __future__ import annotations

from django.db import models


class OrderStatus(models.TextChoices):
    PENDING = "pending", "Pending payment"
    ON_HOLD = "on_hold", "On hold"
    PROCESSING = "processing", "Processing"
    SHIPPED = "shipped", "Shipped"
    COMPLETED = "completed", "Completed"
    CANCELLED = "cancelled", "Cancelled"
    REFUNDED = "refunded", "Refunded"
    FAILED = "failed", "Failed"


S = OrderStatus
TERMINAL = frozenset({S.CANCELLED, S.REFUNDED, S.FAILED})
# Items may be added, changed and removed only while the order is being prepared.
EDITABLE = frozenset({S.PENDING, S.ON_HOLD, S.PROCESSING})
# Orders that count as sales in the stats.
SALES = frozenset({S.PROCESSING, S.SHIPPED, S.COMPLETED})

TRANSITIONS: dict[str, frozenset[str]] = {
    S.PENDING: frozenset(
        {S.ON_HOLD, S.PROCESSING, S.SHIPPED, S.COMPLETED, S.CANCELLED, S.REFUNDED, S.FAILED}
    ),
    S.ON_HOLD: frozenset(
        {S.PENDING, S.PROCESSING, S.SHIPPED, S.COMPLETED, S.CANCELLED, S.REFUNDED, S.FAILED}
    ),
    S.PROCESSING: frozenset({S.ON_HOLD, S.SHIPPED, S.COMPLETED, S.CANCELLED, S.REFUNDED, S.FAILED}),
    S.SHIPPED: frozenset({S.PROCESSING, S.COMPLETED, S.CANCELLED, S.REFUNDED, S.FAILED}),
    S.COMPLETED: frozenset({S.PROCESSING, S.CANCELLED, S.REFUNDED}),
    S.CANCELLED: frozenset({S.PENDING, S.ON_HOLD, S.PROCESSING, S.REFUNDED}),
    S.REFUNDED: frozenset({S.PENDING, S.ON_HOLD, S.PROCESSING}),
    S.FAILED: frozenset({S.PENDING, S.ON_HOLD, S.PROCESSING, S.CANCELLED}),
}


def holds_stock(status: str) -> bool:
    return status not in TERMINAL


class PaymentStatus(models.TextChoices):
    """Follows the amounts paid (services.totals.payment_status_for)."""

    UNPAID = "unpaid", "Unpaid"
    PARTIALLY_PAID = "partially_paid", "Partially paid"
    PAID = "paid", "Paid"
    PARTIALLY_REFUNDED = "partially_refunded", "Partially refunded"
    REFUNDED = "refunded", "Refunded"


class FulfillmentStatus(models.TextChoices):
    """Follows what shipped (services.shipments.fulfillment_status_for)."""

    UNFULFILLED = "unfulfilled", "Unfulfilled"
    PARTIALLY_FULFILLED = "partially_fulfilled", "Partially fulfilled"
    FULFILLED = "fulfilled", "Fulfilled"
    RETURNED = "returned", "Returned"


class PaymentKind(models.TextChoices):
    PAYMENT = "payment", "Payment"
    REFUND = "refund", "Refund"


class PaymentRecordStatus(models.TextChoices):
    """Only completed payments and refunds count towards the amounts paid."""

    PENDING = "pending", "Pending"
    COMPLETED = "completed", "Completed"
    FAILED = "failed", "Failed"


class ShipmentStatus(models.TextChoices):
    PENDING = "pending", "Being prepared"
    SHIPPED = "shipped", "Shipped"
    DELIVERED = "delivered", "Delivered"
    RETURNED = "returned", "Returned"
    CANCELLED = "cancelled", "Cancelled"


# Shipments whose units count as shipped, and those that still claim their units.
SHIPPED_OUT = frozenset({ShipmentStatus.SHIPPED, ShipmentStatus.DELIVERED})
CLAIMING = frozenset({ShipmentStatus.PENDING, ShipmentStatus.SHIPPED, ShipmentStatus.DELIVERED})


class HistoryField(models.TextChoices):
    STATUS = "status", "Status"
    PAYMENT_STATUS = "payment_status", "Payment status"
    FULFILLMENT_STATUS = "fulfillment_status", "Fulfilment status"
    STOCK = "stock", "Stock (units restocked)"


class OrderSource(models.TextChoices):
    API = "api", "API"
    ADMIN = "admin", "Admin"
    CHECKOUT = "checkout", "Checkout"
    SYSTEM = "system", "System"
    MARKETPLACE = "marketplace", "Marketplace"
