"""The ERP kernel's background work: the batches of its resumable jobs."""

from celery import shared_task
from django.db import OperationalError

from erp.core import services


@shared_task(
    name="erp_core.run_job",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=300,
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_jitter=True,
    max_retries=8,
)
def run_job(job_id: int, batch: int) -> str:
    """One batch of an ERP job; it enqueues the next (erp.core.services.jobs). A batch the job
    has passed (a second delivery) does nothing."""
    return services.job_run_batch(job_id=job_id, batch=batch)


@shared_task(name="erp_core.resume_stalled_jobs", time_limit=60, ignore_result=True)
def resume_stalled_jobs() -> int:
    """Beat: jobs whose next batch was lost (a worker died with it) go on from where they
    stopped."""
    return services.jobs_resume_stalled()
