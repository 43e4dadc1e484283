"""The orders' status signal: a completed order gets its invoice (when the settings ask)."""

from __future__ import annotations

from erp.invoicing import services
from store.orders.choices import OrderStatus
from store.orders.models import Order
from store.orders.signals import order_status_changed


def _status_changed(sender, *, order, old, new, **kwargs) -> None:
    if new == OrderStatus.COMPLETED and old != new:
        services.auto_invoice_requested(order)


def connect() -> None:
    order_status_changed.connect(
        _status_changed, sender=Order, dispatch_uid="erp_invoicing_auto_invoice"
    )
