"""Issuing a draft (numbered, frozen, announced, sent when the settings say so; the credit
notes of refunds already made on its order come with it) and cancelling an issued document by
a credit note.
"""

from __future__ import annotations

from django.db import transaction

from erp.invoicing import selectors
from erp.invoicing.choices import InvoiceStatus, credit_type_for
from erp.invoicing.models import LINE_VALUES, Invoice, InvoiceLine, InvoiceSeries
from erp.invoicing.services._documents import (
    _amount_lines,
    _credit_note,
    _credit_refunds,
    _credited,
    _issue,
)
from erp.invoicing.services._shared import (
    ALREADY_CANCELLED,
    INCOMPLETE,
    IS_DRAFT,
    NOT_CANCELLABLE,
    NOT_DRAFT,
    _conflict,
    _invoice_for_update,
    _transmission_start,
)


@transaction.atomic
def invoice_issue(*, invoice_id: int) -> Invoice:
    """Number a draft and freeze it. 409 `invoice_not_draft` when it is issued already,
    `invoice_incomplete` without lines or in an inactive series, or the code of the tax
    authority's first rule it breaks (issue_problems); nothing changes then. An order's
    invoice issued after refunds on the order gets their credit notes too (refund_recorded)."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status != InvoiceStatus.DRAFT:
        raise _conflict(f"{invoice} is issued already.", NOT_DRAFT)
    reasons = []
    if not InvoiceLine.objects.filter(invoice=invoice).exists():
        reasons.append("it has no lines")
    if not InvoiceSeries.objects.filter(pk=invoice.series_id, active=True).exists():
        reasons.append("its series is not active")
    if reasons:
        raise _conflict(f"The draft cannot be issued: {'; '.join(reasons)}.", INCOMPLETE)
    _issue(invoice)
    if selectors.settings_row().auto_transmit:
        _transmission_start(invoice)
    _credit_refunds(invoice)
    return invoice


def _copied_lines(invoice: Invoice) -> list[dict]:
    return [
        {name: getattr(line, name) for name in LINE_VALUES}
        for line in InvoiceLine.objects.filter(invoice=invoice).order_by("position", "id")
    ]


@transaction.atomic
def invoice_cancel(*, invoice_id: int, reason: str = "", user=None) -> Invoice:
    """Cancel an issued document by a credit note: a new issued document of the credit type
    (5.1, or 11.4 for a retail receipt) in its own series, referencing the original
    (`corrects`), with the original's lines, or, when refunds were credited already, with
    what is left of each VAT category (_amount_lines); the original is marked
    cancelled. Answers the credit note. 409: a draft (`invoice_is_draft`: delete it), a
    cancelled document (`invoice_cancelled`), a credit note (`invoice_not_cancellable`), or
    the code of the authority's rule the credit note would break (nothing changes then)."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status == InvoiceStatus.DRAFT:
        raise _conflict(f"{invoice} is a draft: delete it instead.", IS_DRAFT)
    if invoice.status == InvoiceStatus.CANCELLED:
        raise _conflict(f"{invoice} is cancelled already.", ALREADY_CANCELLED)
    if credit_type_for(invoice.document_type) is None:
        raise _conflict(f"{invoice} is a credit note: it cannot be cancelled.", NOT_CANCELLABLE)
    credited = _credited(invoice)
    if credited:
        lines = _amount_lines(invoice, invoice.gross_total - credited, f"Rest of {invoice}")
    else:
        lines = _copied_lines(invoice)
    note = f"Cancels {invoice.full_number}." + (f" {reason}" if reason else "")
    return _credit_note(invoice, lines, notes=note, user=user)
