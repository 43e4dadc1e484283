"""Invoicing's background work, enqueued through common.outbox."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from erp.core import filing
from erp.invoicing import services

MAX_RETRIES = 8
# A busy database (SQLite "database is locked" past its busy timeout; PostgreSQL's serialization
# failure, deadlock or lock timeout) rolled the attempt back whole, and it goes through once the
# other writer is done: a shorter back-off than the authority's.
DATABASE_BACKOFF_SECONDS = 5


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
    sent). A transient failure retries with backoff (30 s doubling, up to 30 min), a busy
    database too (5 s doubling, up to 5 min); after the last retry the transmission is `failed`.
    Run eagerly (no broker: development) nothing could wait for the retry, so it is `failed` at
    once (POST /transmit sends it again): never left `pending` with no task to send it."""
    retries = self.request.retries
    try:
        outcome, detail = services.transmission_run(invoice_id=invoice_id)
        countdown = filing.backoff(retries)
    except OperationalError as exc:
        outcome, detail = filing.RETRY, f"The database answered: {exc}"
        countdown = filing.backoff(retries, base=DATABASE_BACKOFF_SECONDS, cap=300)
    return filing.task_end(
        self,
        outcome,
        detail,
        countdown=countdown,
        give_up=lambda error: services.transmission_gave_up(invoice_id=invoice_id, error=error),
    )


@shared_task(
    name="erp_invoicing.invoice_for_order",
    acks_late=True,
    time_limit=60,
    ignore_result=True,
)
def invoice_for_order(*, order_id: int) -> int | None:
    """The invoice of a completed order, made and issued once (idempotent: one per order)."""
    return services.invoice_for_order(order_id=order_id)
