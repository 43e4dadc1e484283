"""Marketplace sync in the worker: an event's processing (enqueued through the outbox when the
webhook records it) and the sweep of events left pending or failed (beat:
store_marketplace.process_pending)."""

from celery import shared_task

from store.marketplace import services


@shared_task(name=services.PROCESS_TASK, time_limit=300, ignore_result=True, acks_late=True)
def process_event(event_pk: int) -> str:
    """Import, cancel or ignore one event; running it twice changes nothing more."""
    return services.event_process(event_pk=event_pk)


@shared_task(
    name="store_marketplace.process_pending", time_limit=600, ignore_result=True, acks_late=True
)
def process_pending(limit: int = 100) -> int:
    return services.process_pending(limit=limit)
