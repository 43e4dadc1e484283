"""The store orders' signals invoicing follows: a completed order gets its invoice (when the
settings ask), and a refund on an order whose invoice is issued gets its credit note (while the
ERP runs, as the accounting posts the refund's payment only then)."""

from __future__ import annotations

from erp.core import gate
from erp.invoicing import services
from store.orders.choices import OrderStatus, PaymentKind
from store.orders.models import Order, Payment
from store.orders.signals import order_status_changed, payment_recorded


def _status_changed(sender, *, order, old, new, **kwargs) -> None:
    if new == OrderStatus.COMPLETED and old != new:
        services.auto_invoice_requested(order)


def _payment_recorded(sender, *, event, **kwargs) -> None:
    if event.get("kind") == PaymentKind.REFUND and not event.get("deleted") and gate.current().open:
        services.refund_recorded(event)


def connect() -> None:
    order_status_changed.connect(
        _status_changed, sender=Order, dispatch_uid="erp_invoicing_auto_invoice"
    )
    payment_recorded.connect(
        _payment_recorded, sender=Payment, dispatch_uid="erp_invoicing_refund_credit_note"
    )
