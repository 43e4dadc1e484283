"""The hourly closing of the stock movements' days (idempotent: a second run changes nothing)."""

from celery import shared_task
from django.db import OperationalError

from store.inventory import rollups


@shared_task(
    name="store_inventory.close_stock_days",
    time_limit=600,
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=5,
)
def close_stock_days() -> str | None:
    """Beat: sum the movements of the days that ended (a margin ago) into the rollups (see
    store.inventory.rollups). A missed run only leaves more days to read from the movements."""
    closed = rollups.close_days()
    return closed.isoformat() if closed else None
