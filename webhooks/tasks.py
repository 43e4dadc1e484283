from celery import shared_task

from webhooks import services


@shared_task(bind=True, name="webhooks.deliver", time_limit=90, ignore_result=True)
def deliver(self, delivery_ids: int | list[int], deferrals: int = 0) -> str | dict:
    """Make the due attempt of one delivery, or of a list: the task sends one receiver's small
    batch and hands the rest of a longer list to other workers as tasks of their own (see
    services.deliveries_attempt); a no-op for each that is gone, done, not due or leased. A
    single id (retries, redeliveries) answers its outcome; a list answers {id: outcome} of the
    batch this task took. `deferrals`: how often this batch waited for its webhook's in-flight
    cap already (the next wait is longer).

    The task id goes with the claim: when the broker redelivers this very task because its
    worker died mid-attempt, the new run may take the dead worker's leases over.
    """
    task_id = self.request.id or ""
    if isinstance(delivery_ids, int):
        return services.delivery_attempt(delivery_id=delivery_ids, task_id=task_id)
    return services.deliveries_attempt(
        delivery_ids=list(delivery_ids), task_id=task_id, deferrals=deferrals
    )


@shared_task(name="webhooks.dispatch_due", time_limit=60, ignore_result=True)
def dispatch_due() -> int:
    """Beat: enqueue the deliveries whose next attempt is due."""
    return services.dispatch_due()
