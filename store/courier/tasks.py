"""Tracking of open vouchers, in the worker (beat: store_courier.refresh_tracking)."""

from celery import shared_task

from store.courier import services


@shared_task(
    name="store_courier.refresh_tracking", time_limit=600, ignore_result=True, acks_late=True
)
def refresh_tracking(limit: int = 200) -> int:
    """Track open vouchers not tracked for half an hour; running it twice changes nothing more."""
    return services.refresh_tracking(limit=limit)
