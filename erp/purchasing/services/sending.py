"""Sending a purchase order (its PDF e-mailed to the supplier through the outbox, once) and
cancelling one.
"""

from __future__ import annotations

import logging
import smtplib

from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from common import markers, outbox
from erp.purchasing import documents, selectors
from erp.purchasing.choices import CANCELLABLE, SENDABLE, EmailStatus, OrderStatus
from erp.purchasing.models import PurchaseOrder, PurchaseOrderEmail
from erp.purchasing.services._shared import _order_for_update
from store.common.accounts import logged_in
from store.common.errors import rule_broken

logger = logging.getLogger(__name__)

SEND_TASK = "erp_purchasing.send_order_email"


@transaction.atomic
def purchase_order_send(
    *, order_id: int, email: bool = True, message: str = "", user=None
) -> PurchaseOrder:
    """Send a draft (or send an order again): with `email` the PDF goes to the supplier's
    e-mail address (409 `supplier_has_no_email` without one), after the commit through the
    outbox; without it the order is only marked sent (ordered by phone, on the supplier's
    portal). A draft becomes sent, `sent_at` is now."""
    order = _order_for_update(order_id)
    if order.status not in SENDABLE:
        raise rule_broken(
            f"Purchase order {order.number} is {order.status}; it cannot be sent.",
            code="purchase_order_not_sendable",
            status=409,
        )
    if not order.lines.exists():
        raise rule_broken(
            f"Purchase order {order.number} has no lines.", code="purchase_order_empty", status=409
        )
    supplier = order.supplier
    if email and not supplier.email:
        raise rule_broken(
            f"Supplier {supplier.name!r} has no e-mail address; add one or send with "
            '{"email": false}.',
            code="supplier_has_no_email",
            status=409,
        )
    now = timezone.now()
    if order.status == OrderStatus.DRAFT:
        order.status = OrderStatus.SENT
    order.sent_at = now
    order.save(update_fields=["status", "sent_at", "updated_at"])
    if email:
        row = PurchaseOrderEmail.objects.create(
            order=order,
            recipient=supplier.email,
            subject=f"Purchase order {order.number} from {documents.store_name()}"[:255],
            message=message,
            sent_by=logged_in(user),
        )
        outbox.enqueue(SEND_TASK, kwargs={"email_id": row.pk})
    return order


TRANSIENT = (smtplib.SMTPException, OSError)


def purchase_order_email_deliver(*, email_id: int) -> bool:
    """The task's work: send one recorded e-mail with the order's PDF attached, once (a
    redelivered task finds the marker and sends nothing); answers whether it sent now. A
    failure marks the row failed and is raised again (the task retries transient ones)."""
    row = PurchaseOrderEmail.objects.filter(pk=email_id).first()
    if row is None or row.status == EmailStatus.SENT:
        return False
    marker = f"erp-po-email:{email_id}"
    if not markers.mark_done(marker):
        logger.info("purchase order e-mail %s already sent; skipping redelivery", email_id)
        return False
    order = selectors.order_get(row.order_id)
    message = EmailMessage(
        subject=row.subject,
        body=documents.email_text(order, row.message),
        from_email=documents.sender(),
        to=[row.recipient],
    )
    message.attach(f"{order.number}.pdf", documents.order_pdf(order), "application/pdf")
    try:
        message.send()
    except Exception as exc:
        markers.unmark(marker)
        PurchaseOrderEmail.objects.filter(pk=email_id).exclude(status=EmailStatus.SENT).update(
            status=EmailStatus.FAILED,
            error=f"{exc.__class__.__name__}: {exc}"[:500],
            attempts=F("attempts") + 1,
            failed_at=timezone.now(),
        )
        raise
    PurchaseOrderEmail.objects.filter(pk=email_id).update(
        status=EmailStatus.SENT, error="", attempts=F("attempts") + 1, sent_at=timezone.now()
    )
    return True


@transaction.atomic
def purchase_order_cancel(*, order_id: int) -> PurchaseOrder:
    """Cancel a draft or a sent order; once anything was received it cannot be (409)."""
    order = _order_for_update(order_id)
    if order.status not in CANCELLABLE:
        raise rule_broken(
            f"Purchase order {order.number} is {order.status}; only a draft or a sent order "
            "with nothing received can be cancelled.",
            code="purchase_order_not_cancellable",
            status=409,
        )
    order.status = OrderStatus.CANCELLED
    order.cancelled_at = timezone.now()
    order.save(update_fields=["status", "cancelled_at", "updated_at"])
    return order
