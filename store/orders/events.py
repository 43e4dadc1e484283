"""The orders' store events, published through common.events inside the change's
transaction: the webhooks app records a delivery per subscribed store webhook in it and sends
after the commit, so a rolled-back change sends nothing.

Payloads are stable, flat and free of secrets and addresses: ids, the order number, the three
statuses, the amounts (decimal strings) and times. The customer is named by id.
"""

from __future__ import annotations

from common import events
from store.common.money import money_str
from store.orders.models import Order

ORDER_CREATED = "order.created"
ORDER_STATUS_CHANGED = "order.status_changed"
ORDER_PAID = "order.paid"
ORDER_REFUNDED = "order.refunded"

AMOUNTS = (
    "subtotal",
    "discount_total",
    "shipping_total",
    "shipping_tax",
    "tax_total",
    "total",
    "amount_paid",
    "amount_refunded",
)


def order_data(order: Order) -> dict:
    return {
        "order_id": order.pk,
        "number": order.order_number,
        "status": order.status,
        "payment_status": order.payment_status,
        "fulfillment_status": order.fulfillment_status,
        "currency": order.currency,
        **{name: money_str(getattr(order, name)) for name in AMOUNTS},
        "item_count": order.item_count,
        "customer_id": order.customer_id,
        "source": order.source,
        "created_at": order.created_at,
        "paid_at": order.paid_at,
        "completed_at": order.completed_at,
    }


def order_created(order: Order) -> None:
    events.publish_store(ORDER_CREATED, {"order": order_data(order)})


def order_status_changed(order: Order, *, old: str, new: str) -> None:
    events.publish_store(ORDER_STATUS_CHANGED, {"from": old, "to": new, "order": order_data(order)})


def order_paid(order: Order) -> None:
    events.publish_store(ORDER_PAID, {"order": order_data(order)})


def order_refunded(order: Order, *, amount, refunds: list[dict], restocked: bool) -> None:
    """A refund's amounts are negative (money going back), as the refund's answer and every
    list of payments show them; `amount` and `refunds` take their magnitudes."""
    events.publish_store(
        ORDER_REFUNDED,
        {
            "amount": money_str(-amount),
            "refunds": [{**refund, "amount": money_str(-refund["amount"])} for refund in refunds],
            "restocked": restocked,
            "order": order_data(order),
        },
    )
