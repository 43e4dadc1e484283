"""The business events accounting posts: erp.core's (invoices, goods received) and the store
orders' payments and refunds (while the ERP runs). Each arrives after the commit of its
change (the senders use transaction.on_commit) and is posted once (services.event_post)."""

from __future__ import annotations

from erp.accounting import services
from erp.core import gate
from erp.core import signals as core_signals
from store.orders import signals as order_signals


def _invoice_issued(sender, *, event, **kwargs) -> None:
    services.invoice_issued(event)


def _goods_received(sender, *, event, **kwargs) -> None:
    services.goods_received(event)


def _payment_recorded(sender, *, event, **kwargs) -> None:
    """The store takes payments with or without the ERP: they are posted while it runs."""
    if gate.current().open:
        services.payment_recorded(event)


def connect() -> None:
    core_signals.invoice_issued.connect(_invoice_issued, dispatch_uid="erp_accounting_invoice")
    core_signals.goods_received.connect(_goods_received, dispatch_uid="erp_accounting_grn")
    order_signals.payment_recorded.connect(_payment_recorded, dispatch_uid="erp_accounting_payment")
