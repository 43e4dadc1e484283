"""Sending a document to the tax authority (by a task, through erp.core.filing), cancelling
it there, and testing the stored credentials.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from erp.core import filing
from erp.invoicing import selectors
from erp.invoicing.choices import CORRELATED_TYPES, InvoiceStatus, TransmissionStatus
from erp.invoicing.models import Invoice, Transmission
from erp.invoicing.providers.base import Cancelled, NotConfigured, Outcome, Transient
from erp.invoicing.services._shared import (
    IS_DRAFT,
    NOT_CONFIGURED,
    NOT_SENT,
    REFUSED,
    UNAVAILABLE,
    _conflict,
    _invoice_for_update,
    _transmission_start,
)
from store.common.errors import rule_broken


@transaction.atomic
def transmission_request(*, invoice_id: int) -> Transmission:
    """Send an issued document (or a cancelled one: the authority must know what its credit
    note cancels) to the authority of the settings, by a task. 409 `invoice_is_draft`,
    `transmission_in_progress` while pending or once sent. Rejected, failed and cancelled
    transmissions may be sent again."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status == InvoiceStatus.DRAFT:
        raise _conflict(f"{invoice} is a draft: issue it first.", IS_DRAFT)
    return _transmission_start(invoice)


def transmission_run(*, invoice_id: int) -> tuple[str, str]:
    """One attempt (the task): ("sent" | "rejected" | "failed" | "retry" | "skipped", detail).
    The transmission row stays locked during the call, so a redelivered task waits and then
    finds it sent (idempotent). A transient failure is recorded and answered "retry"."""
    with transaction.atomic():
        transmission = (
            Transmission.objects.select_for_update()
            .filter(invoice_id=invoice_id, status=TransmissionStatus.PENDING)
            .first()
        )
        if transmission is None:
            return "skipped", ""
        invoice = Invoice.objects.select_related("series").get(pk=invoice_id)
        if invoice.corrects_id and invoice.document_type in CORRELATED_TYPES:
            original = Transmission.objects.filter(invoice_id=invoice.corrects_id).first()
            if original is not None and original.status == TransmissionStatus.PENDING:
                # issued together (an order's invoice and the notes of earlier refunds): the
                # note needs the original's mark, which comes with the original's answer
                transmission.last_error = "The original is not sent yet: its mark is needed."
                transmission.save()
                return "retry", transmission.last_error
        document = selectors.document_of(invoice)
        provider = selectors.provider_for(transmission.provider)

        def sent(outcome: Outcome) -> None:
            transmission.mark, transmission.uid = outcome.mark, outcome.uid
            transmission.qr_url = outcome.qr_url[:500]
            transmission.sent_at = timezone.now()

        return filing.attempt(transmission, lambda: provider.send(document), accepted=sent)


def transmission_gave_up(*, invoice_id: int, error: str) -> None:
    """Every retry failed: the transmission is `failed` (POST /transmit sends it again)."""
    filing.gave_up(Transmission.objects.filter(invoice_id=invoice_id), error=error)


@transaction.atomic
def transmission_cancel(*, invoice_id: int) -> Transmission:
    """Cancel a sent document at the authority (myDATA CancelInvoice by its mark), now.
    409 `transmission_not_sent`, `authority_not_configured`; 502 `authority_unavailable`,
    `authority_refused` (its reasons); nothing changes then."""
    _invoice_for_update(invoice_id)
    transmission = Transmission.objects.select_for_update().filter(invoice_id=invoice_id).first()
    if transmission is None or transmission.status != TransmissionStatus.SENT:
        raise _conflict("The document has not been sent to the authority.", NOT_SENT)
    provider = selectors.provider_for(transmission.provider)
    try:
        result = provider.cancel(transmission.mark)
    except Transient as exc:
        raise rule_broken(str(exc), code=UNAVAILABLE, status=502) from exc
    except NotConfigured as exc:
        raise _conflict(str(exc), NOT_CONFIGURED) from exc
    if not isinstance(result, Cancelled):
        reasons = "; ".join(f"{e.code}: {e.message}" for e in result.errors)
        raise rule_broken(
            f"The authority refused the cancellation: {reasons}", code=REFUSED, status=502
        )
    transmission.status = TransmissionStatus.CANCELLED
    transmission.cancellation_mark = result.cancellation_mark
    transmission.cancelled_at = timezone.now()
    transmission.save()
    return transmission


def transmission_test() -> dict:
    """A real call to the configured authority with the stored credentials:
    {provider, ok, message}; 502 `authority_unavailable` when it cannot be reached."""
    return filing.credentials_test(selectors.provider_for(), unavailable=UNAVAILABLE)
