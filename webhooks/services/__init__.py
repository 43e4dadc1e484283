"""Webhook use cases: every write with a rule lives here (views, admin, tasks and the event
listener call these). One module per use case:

- `webhooks`: creating, changing, rotating the secret of and deleting a webhook
- `subscriptions`: the events the active store webhooks subscribe to (cached)
- `emitting`: an event's deliveries recorded and enqueued
- `delivery`: the workers' batches, the beat's dispatch, a ping, a redelivery
- `retries`: when a failed attempt is tried again
- `_attempts`: claiming, sending and recording one attempt (private to this package)
- `_shared`: the lease, the task, disabling a webhook (private to this package)

Delivery, at least once:

1. `emit` records one `Delivery` per subscribed, active webhook inside the caller's transaction
   and enqueues a task for each through the outbox (common.outbox: published on commit, or by
   the beat once a broker that was down is back); a rolled-back event sends nothing.
2. The unit of work is one receiver's small batch: a task sends at most DELIVER_BATCH
   deliveries, all to one webhook (a longer list is split by webhook and the other batches go
   to other workers as tasks of their own). It takes one of the webhook's in-flight slots
   (webhooks.inflight: at most WEBHOOK_MAX_IN_FLIGHT per webhook across every worker; none
   free: the batch is deferred a few seconds, never dropped), *claims* the due attempts under
   a row lock with a lease, sends outside any transaction over the process's kept-alive
   connection, then *records* the results and decides what comes next. A task that finds a
   delivery succeeded, not due, or leased by another worker does nothing for it, so a
   redelivered or duplicated task never sends a delivery that already succeeded. A redelivered
   task (same task id as the lease holder: its worker died mid-attempt) takes the lease over.
3. After a failure the next attempt is due on Svix's schedule (5 s, 5 min, 30 min, 2 h, 5 h,
   10 h, 10 h; ±20% jitter). Short waits go to the broker with a countdown; longer ones wait in
   the database for the `dispatch_due` beat task (no countdown outlives the broker's visibility
   timeout).
4. A webhook that answers 410, or whose deliveries have all failed for 5 days, is disabled with
   a reason and its owner is e-mailed.

Callers import from the module that owns the name. The public names are also re-exported here
(`webhooks.services.emit`), the package's public surface; the modules of this package never
import from it, only from each other, so the re-export cannot make a cycle.
"""

from webhooks.services._attempts import (
    COUNTDOWN_MAX,
    DISABLE_AFTER_FAILING_FOR,
    LOGS_KEPT_PER_WEBHOOK,
    Claim,
)
from webhooks.services._shared import CLAIM_LEASE, DELIVER_TASK, Outcome, Status
from webhooks.services.delivery import (
    BATCH_BUDGET,
    DEFER_FIRST,
    DEFER_MAX,
    DELIVER_BATCH,
    DISPATCH_BATCH,
    REDISPATCH_AFTER,
    deliveries_attempt,
    delivery_attempt,
    delivery_redeliver,
    dispatch_due,
    webhook_ping,
)
from webhooks.services.emitting import emit, emit_many, emit_store_many
from webhooks.services.retries import (
    JITTER,
    MAX_ATTEMPTS,
    MIN_WAIT_AFTER_TIMEOUT_OR_429,
    RETRY_AFTER_MAX,
    RETRY_SCHEDULE,
    jitter_factor,
    retry_wait,
)
from webhooks.services.subscriptions import (
    STORE_EVENTS_CACHE_KEY,
    STORE_EVENTS_CACHE_SECONDS,
    store_events_changed,
    store_events_subscribed,
)
from webhooks.services.webhooks import (
    MAX_STORE_WEBHOOKS,
    MAX_WEBHOOKS_PER_ACCOUNT,
    check_url,
    event_names,
    normalise_events,
    store_webhook_create,
    webhook_create,
    webhook_delete,
    webhook_rotate_secret,
    webhook_update,
)

__all__ = [
    "BATCH_BUDGET",
    "CLAIM_LEASE",
    "COUNTDOWN_MAX",
    "DEFER_FIRST",
    "DEFER_MAX",
    "DELIVER_BATCH",
    "DELIVER_TASK",
    "DISABLE_AFTER_FAILING_FOR",
    "DISPATCH_BATCH",
    "JITTER",
    "LOGS_KEPT_PER_WEBHOOK",
    "MAX_ATTEMPTS",
    "MAX_STORE_WEBHOOKS",
    "MAX_WEBHOOKS_PER_ACCOUNT",
    "MIN_WAIT_AFTER_TIMEOUT_OR_429",
    "REDISPATCH_AFTER",
    "RETRY_AFTER_MAX",
    "RETRY_SCHEDULE",
    "STORE_EVENTS_CACHE_KEY",
    "STORE_EVENTS_CACHE_SECONDS",
    "Claim",
    "Outcome",
    "Status",
    "check_url",
    "deliveries_attempt",
    "delivery_attempt",
    "delivery_redeliver",
    "dispatch_due",
    "emit",
    "emit_many",
    "emit_store_many",
    "event_names",
    "jitter_factor",
    "normalise_events",
    "retry_wait",
    "store_events_changed",
    "store_events_subscribed",
    "store_webhook_create",
    "webhook_create",
    "webhook_delete",
    "webhook_ping",
    "webhook_rotate_secret",
    "webhook_update",
]
