from django.db import models


class MovementReason(models.TextChoices):
    """Why the stock of one level changed (every change is a movement)."""

    INITIAL_STOCK = "initial_stock", "Initial stock"
    MANUAL_ADJUSTMENT = "manual_adjustment", "Manual adjustment"
    ITEM_DELETED = "item_deleted", "Product or variant deleted"
    ORDER_PLACED = "order_placed", "Order placed"
    ORDER_EDITED = "order_edited", "Order items changed"
    ORDER_REOPENED = "order_reopened", "Order reopened"
    ORDER_CANCELLED = "order_cancelled", "Order cancelled"
    ORDER_REFUNDED = "order_refunded", "Order refunded"
    ORDER_FAILED = "order_failed", "Order failed"
    ORDER_DELETED = "order_deleted", "Order deleted"
    # Checkout: stock held for an open checkout, and given back.
    CHECKOUT_HOLD = "checkout_hold", "Held for a checkout"
    CHECKOUT_HOLD_RELEASED = "checkout_hold_released", "Checkout hold released"
    # ERP inventory and purchasing: the warehouse's own moves.
    TRANSFER_OUT = "transfer_out", "Transferred out"
    TRANSFER_IN = "transfer_in", "Transferred in"
    STOCKTAKE = "stocktake", "Stocktake difference"
    PURCHASE_RECEIVED = "purchase_received", "Purchase received"


class AdjustmentReason(models.TextChoices):
    """Why stock was adjusted by hand (the ERP's POST /stock/adjust; required there).

    Not a field's choices: the movement's `reason` is manual_adjustment and this is its
    `reference_id` (reference_type "adjustment"), so no migration follows a new one.
    """

    DAMAGED = "damaged", "Damaged"
    LOST = "lost", "Lost"
    FOUND = "found", "Found"
    THEFT = "theft", "Theft"
    EXPIRED = "expired", "Expired"
    RETURNED = "returned", "Returned to stock"
    CORRECTION = "correction", "Count correction"
    OTHER = "other", "Other"


#: The orders' movements: what orders took and gave back (placed, edited, reopened, cancelled,
#: refunded, failed, deleted). Their net over a period, negated, is the units sold (the ERP's
#: turnover; StockDayRollup.sales_quantity).
SALE_REASONS = (
    MovementReason.ORDER_PLACED,
    MovementReason.ORDER_EDITED,
    MovementReason.ORDER_REOPENED,
    MovementReason.ORDER_CANCELLED,
    MovementReason.ORDER_REFUNDED,
    MovementReason.ORDER_FAILED,
    MovementReason.ORDER_DELETED,
)
