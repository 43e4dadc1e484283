"""HR's background work, enqueued through common.outbox: the labor registry's filings."""

from __future__ import annotations

from celery import shared_task

from erp.core import filing
from erp.hr import labor

MAX_RETRIES = 8


@shared_task(name=labor.RECORD_TASK, acks_late=True, time_limit=60, ignore_result=True)
def labor_record(
    *, kind: str, employee_id: int, event_key: str, employee: dict, extra: dict
) -> int | None:
    """An HR event's submission, made once (unique event key) and its filing enqueued."""
    return labor.submission_record(
        kind=kind, employee_id=employee_id, event_key=event_key, employee=employee, extra=extra
    )


@shared_task(
    bind=True,
    name=labor.SUBMIT_TASK,
    acks_late=True,
    max_retries=MAX_RETRIES,
    time_limit=120,
    ignore_result=True,
)
def labor_submit(self, *, submission_id: int) -> str:
    """File a pending submission (idempotent: only a pending one is filed). A transient
    failure retries with backoff (30 s doubling, up to 30 min, with jitter); after the last
    retry it is `failed`. Run eagerly (no broker) nothing could wait for the retry, so it is
    `failed` at once (POST .../retry sends it again)."""
    outcome, detail = labor.submission_run(submission_id=submission_id)
    return filing.task_end(
        self,
        outcome,
        detail,
        countdown=filing.backoff(self.request.retries, jitter=True),
        give_up=lambda error: labor.submission_gave_up(submission_id=submission_id, error=error),
    )
