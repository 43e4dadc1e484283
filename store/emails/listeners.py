"""The orders app's status signal, answered with the status e-mails."""

from __future__ import annotations

from store.emails import services
from store.orders.models import Order
from store.orders.signals import order_status_changed


def _status_changed(sender, *, order, old, new, source, change=None, **kwargs) -> None:
    services.order_status_email(order=order, old=old, new=new, source=source, change=change)


def connect() -> None:
    order_status_changed.connect(
        _status_changed, sender=Order, dispatch_uid="store_emails_order_status"
    )
