"""The ERP's resumable background jobs: one mechanism for the data migration
(services.migrate) and the inventory backfill (services.backfill).

A job is a row (ErpJob) and a chain of Celery tasks, one per batch (`erp_core.run_job`, sent
through common.outbox). A batch, in one transaction: locks the job, reads the next
`BATCH_SIZE` rows of its phase after `last_id`, does them, moves `last_id`, the counts and the
progress, and enqueues the next batch. So:

- a crash (a worker killed, the database gone) rolls the batch back whole; nothing is lost or
  done twice, and the job goes on from `last_id`;
- a task delivered twice (at-least-once delivery, acks_late) carries a batch number the job
  has passed, and does nothing;
- a job whose chain broke (a task lost with its worker) is picked up again by the beat
  (`erp_core.resume_stalled_jobs`) once it has not moved for `STALL_AFTER`;
- a batch that raises is retried (`MAX_FAILURES` in a row fail the job), its error kept;
- a row a batch cannot do is skipped and named in the job's errors; the job goes on.

One job of each kind runs at a time (409 `erp_job_running`); cancelling stops it after the
batch under way; what its batches did stays (a later run refreshes it).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from decimal import Decimal

from django.db import IntegrityError, OperationalError, transaction
from django.utils import timezone

from common import outbox
from common.errors import Conflict
from erp.core.models import UNFINISHED, ErpJob, JobKind, JobState
from erp.core.services import backfill, migrate
from erp.core.services.batches import BatchResult, Phase
from store.common.accounts import logged_in
from store.common.errors import not_found
from store.common.problems import Problems

logger = logging.getLogger(__name__)

TASK = "erp_core.run_job"
BATCH_SIZE = 200
STALL_AFTER = timedelta(minutes=5)
MAX_FAILURES = 3
RETRY_SECONDS = 30
ERRORS_KEPT = 100
QUANTITY_MAX = 1_000_000

PHASES: dict[str, tuple[Phase, ...]] = {
    JobKind.MIGRATE_DATA: migrate.PHASES,
    JobKind.INVENTORY_BACKFILL: backfill.PHASES,
}


def job_phases(kind: str, params: dict) -> list[Phase]:
    """The phases a job runs: those its `include` option names (default: all), in order."""
    include = params.get("include")
    return [p for p in PHASES[kind] if include is None or p.name in include]


def _enqueue(job: ErpJob, *, countdown: float | None = None) -> None:
    outbox.enqueue(
        TASK,
        args=[job.pk, job.batch],
        countdown=countdown,
        dedupe_key=f"{TASK}:{job.pk}:{job.batch}",
    )


@transaction.atomic
def job_start(*, kind: str, params: dict, user=None) -> ErpJob:
    """Queue a job of `kind` with `params` (checked by the caller's serializer and again by the
    phases). 409 `erp_job_running` while one of that kind is unfinished."""
    running = ErpJob.objects.filter(kind=kind, state__in=UNFINISHED).first()
    if running is not None:
        raise Conflict(
            f"Job {running.pk} of this kind is {running.state}: wait for it or cancel it first.",
            code="erp_job_running",
        )
    phases = job_phases(kind, params)
    total = sum(phase.rows(params).count() for phase in phases)
    try:
        with transaction.atomic():
            job = ErpJob.objects.create(
                kind=kind,
                params=params,
                phase=phases[0].name if phases else "",
                total=total,
                counts={phase.name: {} for phase in phases},
                started_by=logged_in(user),
            )
    except IntegrityError:  # a racing start won
        raise Conflict(
            "A job of this kind was started at the same time.", code="erp_job_running"
        ) from None
    _enqueue(job)
    return job


def _merge(job: ErpJob, phase: str, result: BatchResult) -> None:
    counts = dict(job.counts)
    mine = dict(counts.get(phase, {}))
    for name, n in result.counts.items():
        mine[name] = mine.get(name, 0) + n
    counts[phase] = mine
    job.counts = counts
    if result.errors:
        room = max(0, ERRORS_KEPT - len(job.errors))
        job.errors = [*job.errors, *({"phase": phase, **e} for e in result.errors[:room])]
        job.error_count += len(result.errors)


def _finish(job: ErpJob, state: str) -> None:
    job.state = state
    job.finished_at = timezone.now()


def _run_batch(job_id: int, batch: int) -> str:
    with transaction.atomic():
        job = ErpJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.state not in UNFINISHED:
            return "gone"
        if job.batch != batch:
            return "duplicate"
        if job.state == JobState.QUEUED:
            job.state = JobState.RUNNING
            job.started_at = timezone.now()
        phases = job_phases(job.kind, job.params)
        names = [p.name for p in phases]
        if job.phase not in names:  # nothing to do (no phases)
            _finish(job, JobState.COMPLETED)
            job.save()
            return job.state
        phase = phases[names.index(job.phase)]
        rows = list(phase.rows(job.params).filter(pk__gt=job.last_id).order_by("pk")[:BATCH_SIZE])
        if rows:
            _merge(job, phase.name, phase.process(job, rows, job.params))
            job.last_id = rows[-1].pk
            job.processed += len(rows)
        if len(rows) < BATCH_SIZE:  # the phase is done
            following = names.index(phase.name) + 1
            if following < len(names):
                job.phase, job.last_id = names[following], 0
            else:
                _finish(job, JobState.COMPLETED)
        job.batch += 1
        job.failures = 0
        job.save()
        if job.state in UNFINISHED:
            _enqueue(job)
        return job.state


@transaction.atomic
def _batch_failed(job_id: int, batch: int, exc: Exception) -> None:
    job = ErpJob.objects.select_for_update().filter(pk=job_id).first()
    if job is None or job.state not in UNFINISHED or job.batch != batch:
        return
    job.failures += 1
    message = f"Batch {batch} failed ({job.failures} of {MAX_FAILURES}): {type(exc).__name__}"
    _merge(job, job.phase, BatchResult(errors=[{"id": None, "message": message}]))
    if job.failures >= MAX_FAILURES:
        _finish(job, JobState.FAILED)
        job.save()
        return
    job.save()
    _enqueue(job, countdown=RETRY_SECONDS * job.failures)


def job_run_batch(*, job_id: int, batch: int) -> str:
    """Do batch `batch` of the job (the task's body). Answers the job's state, or "gone" /
    "duplicate" when there was nothing to do. The database being unreachable is raised (the
    task retries); anything else is recorded on the job and the batch retried later."""
    try:
        return _run_batch(job_id, batch)
    except OperationalError:
        raise
    except Exception as exc:
        logger.exception("ERP job %s: batch %s failed", job_id, batch)
        _batch_failed(job_id, batch, exc)
        return "failed"


def jobs_resume_stalled(*, now=None) -> int:
    """Beat: enqueue again the next batch of every unfinished job that has not moved for
    STALL_AFTER (its task was lost with a worker). A batch still running makes the extra task a
    duplicate, which does nothing. Answers how many were resumed."""
    cutoff = (now or timezone.now()) - STALL_AFTER
    resumed = 0
    for job_id in ErpJob.objects.filter(state__in=UNFINISHED, updated_at__lt=cutoff).values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            job = (
                ErpJob.objects.select_for_update(skip_locked=True)
                .filter(pk=job_id, state__in=UNFINISHED, updated_at__lt=cutoff)
                .first()
            )
            if job is None:
                continue
            job.save(update_fields=["updated_at"])
            _enqueue(job)
            resumed += 1
    return resumed


@transaction.atomic
def job_cancel(*, kind: str | None = None, job_id: int | None = None, user=None) -> ErpJob:
    """Stop the unfinished job of `kind` (or job `job_id`) after the batch under way: 409
    `erp_job_not_running` when there is none (or it has finished); 404 for no job `job_id`."""
    jobs = ErpJob.objects.select_for_update()
    if job_id is not None:
        job = jobs.filter(pk=job_id).first()
        if job is None:
            raise not_found("erp_job", job_id)
    else:
        job = jobs.filter(kind=kind, state__in=UNFINISHED).first()
    if job is None or job.state not in UNFINISHED:
        raise Conflict("No job of this kind is running.", code="erp_job_not_running")
    _finish(job, JobState.CANCELLED)
    job.save()
    return job


# --- The two jobs' options ------------------------------------------------------------------------


def migrate_data_start(*, include: list[str] | None = None, user=None) -> ErpJob:
    """Import the store's customers, orders and stock (`include`: some of them) into the ERP's
    registers (services.migrate)."""
    problems = Problems()
    if include is not None:
        unknown = [name for name in include if name not in migrate.PHASE_NAMES]
        if unknown or not include:
            problems.add("include", f"Some of: {', '.join(migrate.PHASE_NAMES)}.")
    problems.raise_if_any()
    params = {"include": [n for n in migrate.PHASE_NAMES if n in include]} if include else {}
    return job_start(kind=JobKind.MIGRATE_DATA, params=params, user=user)


def inventory_backfill_start(
    *,
    cost_ratio: Decimal | None = None,
    reorder_point: int | None = backfill.DEFAULT_REORDER_POINT,
    reorder_quantity: int | None = None,
    user=None,
) -> ErpJob:
    """Fill the stock levels' missing unit costs (list price times `cost_ratio`, above 0 and at
    most 1) and reorder points (the product's low-stock threshold, else `reorder_point`; None
    leaves them) and, given, reorder quantities (services.backfill)."""
    problems = Problems()
    ratio = Decimal(backfill.DEFAULT_COST_RATIO) if cost_ratio is None else cost_ratio
    if not (ratio.is_finite() and Decimal(0) < ratio <= 1):
        problems.add("cost_ratio", "Above 0 and at most 1 (the share of the price a unit costs).")
    for name, value, low in (
        ("reorder_point", reorder_point, 0),
        ("reorder_quantity", reorder_quantity, 1),
    ):
        if value is not None and not (isinstance(value, int) and low <= value <= QUANTITY_MAX):
            problems.add(name, f"A whole number from {low} to {QUANTITY_MAX}.")
    problems.raise_if_any()
    params = {
        "cost_ratio": format(ratio.normalize(), "f"),
        "reorder_point": reorder_point,
        "reorder_quantity": reorder_quantity,
    }
    return job_start(kind=JobKind.INVENTORY_BACKFILL, params=params, user=user)


def job_run_inline(*, job_id: int) -> ErpJob:
    """Run the job's batches here until it ends (seed_demo): the same batches the worker runs,
    so the tasks already enqueued for it find their batch done and do nothing."""
    while True:
        job = ErpJob.objects.get(pk=job_id)
        if job.state not in UNFINISHED or job_run_batch(job_id=job_id, batch=job.batch) == "failed":
            return ErpJob.objects.get(pk=job_id)
