from celery import shared_task

from webhooks import services


@shared_task(bind=True, name="webhooks.deliver", time_limit=50, ignore_result=True)
def deliver(self, delivery_id: int) -> str:
    """Make the due attempt of one delivery; a no-op if it is gone, done, not due or leased.

    The task id goes with the claim: when the broker redelivers this very task because its
    worker died mid-attempt, the new run may take the dead worker's lease over.
    """
    return services.delivery_attempt(delivery_id=delivery_id, task_id=self.request.id or "")


@shared_task(name="webhooks.dispatch_due", time_limit=60, ignore_result=True)
def dispatch_due() -> int:
    """Beat: enqueue the deliveries whose next attempt is due."""
    return services.dispatch_due()
