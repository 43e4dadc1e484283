"""The nightly closing of the reports' days (idempotent: a second run changes nothing)."""

from celery import shared_task
from django.db import OperationalError

from store.reports import rollups


@shared_task(
    name="store_reports.close_days",
    time_limit=600,
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=5,
)
def close_days() -> str | None:
    """Beat: count the days before today in the rollups by day (see store.reports.rollups)."""
    closed = rollups.close_days()
    return closed.isoformat() if closed else None
