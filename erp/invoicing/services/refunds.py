"""The credit notes of an order's refunds: made when the store records a refund (the
listener), or by the admin's action once what refused them is fixed.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from common.errors import ServiceError
from erp.invoicing import selectors
from erp.invoicing.choices import InvoiceStatus
from erp.invoicing.models import Invoice
from erp.invoicing.services._documents import _credit_refunds, _refund_note
from erp.invoicing.services._shared import IS_DRAFT, _auto_refused, _conflict, _invoice_for_update
from store.orders.choices import PaymentKind, PaymentRecordStatus
from store.orders.models import Payment


def refund_recorded(event: dict) -> Invoice | None:
    """The store's `payment_recorded` of a refund (the listener, while the ERP runs): a refund
    on an order whose invoice is issued gets its credit note, by amount (_amount_lines),
    once per refund payment (a repeated event answers the note made). None when there
    is nothing to credit: no issued invoice (a draft's refunds are credited when it is issued),
    one credited in full, a refund that only returned an overpayment, a deleted refund (its
    note, if any, stays: a person corrects it). A rule of the authority refusing the note is
    recorded on the invoice (`auto_issue_error`), never raised."""
    if event.get("deleted") or event.get("kind") != PaymentKind.REFUND:
        return None
    try:
        payment_id, order_id = int(event["payment_id"]), int(event["order_id"])
    except (KeyError, TypeError, ValueError):
        return None
    invoice = selectors.invoice_of_order(order_id)
    if invoice is None or invoice.status != InvoiceStatus.ISSUED:
        return None
    try:
        with transaction.atomic():
            invoice = _invoice_for_update(invoice.pk)
            made = Invoice.objects.filter(refund_payment_id=payment_id).first()
            if made is not None or invoice.status != InvoiceStatus.ISSUED:
                return made
            refund = Payment.objects.filter(
                pk=payment_id,
                order_id=order_id,
                kind=PaymentKind.REFUND,
                status=PaymentRecordStatus.COMPLETED,
            ).first()
            return _refund_note(invoice, refund) if refund is not None else None
    except IntegrityError:  # a concurrent delivery made it
        return Invoice.objects.filter(refund_payment_id=payment_id).first()
    except ServiceError as exc:
        _auto_refused(invoice.pk, f"The credit note of refund {payment_id}: {exc.detail}")
        return None


@transaction.atomic
def invoice_credit_refunds(*, invoice_id: int, user=None) -> list[Invoice]:
    """Credit the order's refunds that have no credit note yet (the admin's action, after a
    refusal was fixed): the notes made, oldest refund first. 409 `invoice_is_draft`, or the
    code of the authority's rule a note would break (nothing changes then)."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status == InvoiceStatus.DRAFT:
        raise _conflict(
            f"{invoice} is a draft: its refunds are credited when it is issued.", IS_DRAFT
        )
    made = _credit_refunds(invoice, user=user) if invoice.status == InvoiceStatus.ISSUED else []
    if invoice.auto_issue_error:
        Invoice.objects.filter(pk=invoice.pk).update(auto_issue_error="")
    return made
