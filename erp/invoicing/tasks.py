"""Invoicing's background work, enqueued through common.outbox."""

from __future__ import annotations

from celery import shared_task

from erp.invoicing import services

MAX_RETRIES = 8


class RetryLater(Exception):
    pass


@shared_task(
    bind=True,
    name="erp_invoicing.transmit",
    acks_late=True,
    max_retries=MAX_RETRIES,
    time_limit=120,
    ignore_result=True,
)
def transmit(self, *, invoice_id: int) -> str:
    """Send a pending document to the authority (idempotent: only a pending transmission is
    sent). A transient failure retries with backoff (30 s doubling, up to 30 min); after the
    last retry the transmission is `failed`. Run eagerly (no broker: development) nothing could
    wait for the retry, so it is `failed` at once (POST /transmit sends it again)."""
    outcome, detail = services.transmission_run(invoice_id=invoice_id)
    if outcome != "retry":
        return outcome
    if self.request.is_eager or self.request.retries >= self.max_retries:
        services.transmission_gave_up(invoice_id=invoice_id, error=detail)
        return "failed"
    countdown = min(30 * 2**self.request.retries, 1800)
    raise self.retry(exc=RetryLater(detail), countdown=countdown)


@shared_task(
    name="erp_invoicing.invoice_for_order",
    acks_late=True,
    time_limit=60,
    ignore_result=True,
)
def invoice_for_order(*, order_id: int) -> int | None:
    """The invoice of a completed order, made and issued once (idempotent: one per order)."""
    return services.invoice_for_order(order_id=order_id)
