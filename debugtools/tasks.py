from celery import shared_task

from debugtools import services


@shared_task(name="debugtools.purge_entries", acks_late=True, time_limit=300)
def purge_entries() -> int:
    """The retention purge (hourly on the beat): idempotent, a redelivery deletes nothing more."""
    return services.entries_purge()
