"""Webhook use cases: every write with a rule lives here (views, admin, tasks and the event
listener call these).

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
"""

from __future__ import annotations

import datetime as dt
import itertools
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F, Q, Subquery
from django.utils import timezone

from accounts.models import User
from common import metrics, net, outbox
from common.email import send_templated_email
from common.errors import ServiceError, ValidationFailed
from webhooks import inflight, sender, signing
from webhooks.models import (
    PING_EVENT,
    Delivery,
    DeliveryAttempt,
    Event,
    Scope,
    StoreEvent,
    Webhook,
)

logger = logging.getLogger(__name__)

MAX_WEBHOOKS_PER_ACCOUNT = 10  # spec: Limits
MAX_STORE_WEBHOOKS = 20  # the store's webhooks, all staff together
# Which events the active store webhooks subscribe to, cached (best effort: the database is
# the truth; every store webhook write deletes the entry now and again at commit).
STORE_EVENTS_CACHE_KEY = "webhooks:store-events:v1"
STORE_EVENTS_CACHE_SECONDS = 60
LOGS_KEPT_PER_WEBHOOK = 100  # spec: Limits
# Svix's schedule: the waits before attempts 2..8 (attempt 1 is immediate).
RETRY_SCHEDULE = (
    dt.timedelta(seconds=5),
    dt.timedelta(minutes=5),
    dt.timedelta(minutes=30),
    dt.timedelta(hours=2),
    dt.timedelta(hours=5),
    dt.timedelta(hours=10),
    dt.timedelta(hours=10),
)
MAX_ATTEMPTS = len(RETRY_SCHEDULE) + 1
JITTER = 0.2
MIN_WAIT_AFTER_TIMEOUT_OR_429 = dt.timedelta(seconds=60)
RETRY_AFTER_MAX = dt.timedelta(hours=24)
DISABLE_AFTER_FAILING_FOR = dt.timedelta(days=5)
# A worker holds a claimed attempt this long; a 10 s timeout leaves ample margin.
CLAIM_LEASE = dt.timedelta(seconds=settings.WEBHOOK_CLAIM_LEASE_SECONDS)
# Waits up to this long are handed to the broker as a countdown; longer ones go through beat.
COUNTDOWN_MAX = dt.timedelta(seconds=60)
# A due delivery whose task has not claimed it this long after dispatch is dispatched again.
REDISPATCH_AFTER = dt.timedelta(seconds=settings.WEBHOOK_REDISPATCH_SECONDS)
DISPATCH_BATCH = 500
DELIVER_TASK = "webhooks.deliver"
# A task sends at most this many deliveries, all to one webhook, one after the other over the
# same kept-alive connection, claimed and recorded together (a few queries for the batch).
# Small, so that the work spreads over every worker process: a list of more is split into
# such batches, each a task of its own (the fan-out).
DELIVER_BATCH = 5
# A task starts the next send of its batch only this soon after its first one: a receiver
# slower than that gets one delivery per task, the rest handed to a new task that waits its
# turn under the cap, so a slow receiver holds a worker for one send, not for five.
BATCH_BUDGET = dt.timedelta(seconds=1)
# A batch over its webhook's in-flight cap is due again after this wait, doubling with each
# deferral of the same batch up to DEFER_MAX (+-20%): a receiver that stays saturated is
# asked again every half minute or so by each waiting batch, not in a busy loop.
DEFER_FIRST = dt.timedelta(seconds=1)
DEFER_MAX = dt.timedelta(seconds=30)

_random = secrets.SystemRandom()

Outcome = DeliveryAttempt.Outcome
Status = Delivery.Status


# --- Validation ---------------------------------------------------------------------------------


def event_names(scope: str = Scope.PORTAL) -> list[str]:
    """The events a webhook of `scope` may subscribe to, in their documented order."""
    return list(StoreEvent.values if scope == Scope.STORE else Event.values)


def normalise_events(events: Any, *, scope: str = Scope.PORTAL) -> list[str]:
    """A non-empty subset of the scope's event names (the portal's five, the store's nine), in
    their documented order, without repeats."""
    if not isinstance(events, list) or not events:
        raise ValidationFailed({"events": ["Give a non-empty list of event names."]})
    allowed = event_names(scope)
    unknown = [e for e in events if not isinstance(e, str) or e not in allowed]
    if unknown:
        names = ", ".join(allowed)
        shown = ", ".join(repr(e)[:80] for e in unknown[:5])
        raise ValidationFailed(
            {"events": [f"Unknown event name(s): {shown}. Choose from: {names}."]}
        )
    return [name for name in allowed if name in events]


def check_url(url: str) -> str:
    """The URL, normalised, if deliveries may go to it now; else a 422 naming the reason."""
    try:
        return net.check_url(url).url
    except net.UrlNotAllowed as exc:
        raise ValidationFailed({"url": [str(exc)]}, code="url_not_allowed") from None


def _clean_description(description: str | None) -> str:
    description = (description or "").strip()
    if len(description) > 255:
        raise ValidationFailed({"description": ["At most 255 characters."]})
    return description


# --- Webhooks -----------------------------------------------------------------------------------


def webhook_create(
    *, account: User, url: str, events: list[str], description: str | None = ""
) -> Webhook:
    """A new webhook with a fresh secret (the caller shows the secret this once)."""
    events = normalise_events(events)
    description = _clean_description(description)
    url = check_url(url)  # resolves the host: done before any lock is taken
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=account.pk).first()  # serialises the count
        if Webhook.objects.filter(account=account).count() >= MAX_WEBHOOKS_PER_ACCOUNT:
            raise ServiceError(
                f"An account may have at most {MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one "
                "before adding another.",
                code="webhook_limit_reached",
            )
        return Webhook.objects.create(
            account=account,
            url=url,
            events=events,
            description=description,
            secret=signing.new_secret(),
        )


def store_webhook_create(
    *,
    url: str,
    events: list[str],
    description: str | None = "",
    is_active: bool = True,
    created_by: User | None = None,
) -> Webhook:
    """A store webhook (no owning account) with a fresh secret; the caller shows it once.

    Validated first (events, description, the URL and every address its host resolves to);
    at most MAX_STORE_WEBHOOKS (400 `webhook_limit_reached`).
    """
    events = normalise_events(events, scope=Scope.STORE)
    description = _clean_description(description)
    url = check_url(url)  # resolves the host: done before any lock is taken
    with transaction.atomic():
        # Lock the store's webhooks: two creates near the limit count one after the other.
        existing = list(
            Webhook.objects.select_for_update().filter(scope=Scope.STORE).values_list("pk")
        )
        if len(existing) >= MAX_STORE_WEBHOOKS:
            raise ServiceError(
                f"The store may have at most {MAX_STORE_WEBHOOKS} webhooks; delete one before "
                "adding another.",
                code="webhook_limit_reached",
            )
        webhook = Webhook.objects.create(
            scope=Scope.STORE,
            account=None,
            created_by=created_by if getattr(created_by, "pk", None) else None,
            url=url,
            events=events,
            description=description,
            is_active=bool(is_active),
            disabled_reason="" if is_active else "Created inactive.",
            disabled_at=None if is_active else timezone.now(),
            secret=signing.new_secret(),
        )
        store_events_changed()
    return webhook


def store_events_changed() -> None:
    """Forget the cached store subscriptions, now and when the transaction commits (a reader
    between the two may have cached the state before the commit)."""
    cache.delete(STORE_EVENTS_CACHE_KEY)
    transaction.on_commit(lambda: cache.delete(STORE_EVENTS_CACHE_KEY))


def store_events_subscribed() -> frozenset[str]:
    """The events at least one active store webhook subscribes to: from the cache, else one
    query (a cache that is down is a miss)."""
    cached = cache.get(STORE_EVENTS_CACHE_KEY)
    if isinstance(cached, list):
        return frozenset(cached)
    subscribed: set[str] = set()
    for names in Webhook.objects.filter(scope=Scope.STORE, is_active=True).values_list(
        "events", flat=True
    ):
        subscribed.update(name for name in names or [] if isinstance(name, str))
    cache.set(STORE_EVENTS_CACHE_KEY, sorted(subscribed), STORE_EVENTS_CACHE_SECONDS)
    return frozenset(subscribed)


_UNSET: Any = object()


def webhook_update(
    *,
    webhook: Webhook,
    url: str = _UNSET,
    events: list[str] = _UNSET,
    is_active: bool = _UNSET,
    description: str | None = _UNSET,
    disabled_reason: str = "Disabled by the account.",
) -> Webhook:
    """Change any of url, events, is_active and description; all are validated first.

    Turning a webhook off gives up its pending deliveries; turning it on clears the reason it
    was disabled for and its failure clock.
    """
    changes: dict[str, Any] = {}
    if events is not _UNSET:
        changes["events"] = normalise_events(events, scope=webhook.scope)
    if description is not _UNSET:
        changes["description"] = _clean_description(description)
    if url is not _UNSET:
        changes["url"] = check_url(url)
    now = timezone.now()
    with transaction.atomic():
        locked = Webhook.objects.select_for_update(no_key=True).get(pk=webhook.pk)
        if is_active is not _UNSET and is_active != locked.is_active:
            if is_active:
                changes.update(
                    is_active=True, disabled_reason="", disabled_at=None, failing_since=None
                )
            else:
                changes.update(is_active=False, disabled_reason=disabled_reason, disabled_at=now)
                _cancel_pending(locked)
        if "url" in changes and changes["url"] != locked.url:
            changes["failing_since"] = None  # a new receiver starts with a clean record
        for field, value in changes.items():
            setattr(locked, field, value)
        if changes:
            locked.save(update_fields=[*changes, "updated_at"])
            if locked.scope == Scope.STORE:
                store_events_changed()
    return locked


def webhook_rotate_secret(*, webhook: Webhook) -> Webhook:
    """A new secret, in force at once: every attempt from now on, retries included, is signed
    with it (a GitHub-style signature header carries one signature, so there is no overlap)."""
    with transaction.atomic():
        locked = Webhook.objects.select_for_update(no_key=True).get(pk=webhook.pk)
        locked.secret = signing.new_secret()
        locked.save(update_fields=["secret", "updated_at"])
    return locked


def webhook_delete(*, webhook: Webhook) -> None:
    """Delete the webhook with its deliveries and delivery logs."""
    with transaction.atomic():
        # Lock the webhook first, like every other writer, so the cascade cannot deadlock
        # with a worker recording an attempt.
        Webhook.objects.select_for_update(no_key=True).filter(pk=webhook.pk).first()
        webhook.delete()
        if webhook.scope == Scope.STORE:
            store_events_changed()


def _cancel_pending(webhook: Webhook) -> int:
    return Delivery.objects.filter(webhook=webhook, status=Status.PENDING).update(
        status=Status.FAILED, next_attempt_at=None
    )


def _disable(*, webhook: Webhook, reason: str, now: dt.datetime) -> bool:
    """Set the webhook inactive with `reason`, give up its pending deliveries, e-mail the owner.

    Runs under the caller's lock on the webhook row; False if it was already inactive.
    """
    updated = Webhook.objects.filter(pk=webhook.pk, is_active=True).update(
        is_active=False, disabled_reason=reason, disabled_at=now, updated_at=now
    )
    if not updated:
        return False
    webhook.is_active, webhook.disabled_reason, webhook.disabled_at = False, reason, now
    _cancel_pending(webhook)
    if webhook.scope == Scope.STORE:
        store_events_changed()
    # A store webhook has no owner: the staff member who registered it is told, if still here.
    owner_id = webhook.account_id if webhook.scope == Scope.PORTAL else webhook.created_by_id
    account = User.objects.only("email", "name").filter(pk=owner_id, is_active=True).first()
    if account is not None:
        send_templated_email(
            to=account.email,
            template="webhooks/webhook_disabled",
            context={"account": account, "webhook": webhook, "reason": reason},
        )
    logger.info("webhook %s disabled: %s", webhook.pk, reason)
    return True


# --- Emitting -----------------------------------------------------------------------------------


def emit(account: User, event: str, data: dict) -> list[Delivery]:
    """Record a delivery of `event` for every active webhook of `account` subscribed to it.

    Runs inside the caller's transaction; the deliveries are enqueued when it commits, so an
    event raised in a transaction that rolls back sends nothing. Accounts that may not use
    webhooks (not a reseller or agency, or no longer one) get nothing.
    """
    return emit_many([(account, event, data)])


def emit_many(events: list[tuple[User, str, dict]]) -> list[Delivery]:
    """`emit` for a batch of (account, event, data): one lookup and one insert for all."""
    for _account, event, _data in events:
        if event not in Event.values:
            raise ValueError(f"unknown webhook event {event!r}; expected one of {Event.values}")
    accounts = {
        account.pk
        for account, _event, _data in events
        if account is not None and getattr(account, "is_partner", False) and account.is_active
    }
    if not accounts:
        return []
    hooks_of: dict[int, list[Webhook]] = {}
    for webhook in Webhook.objects.filter(account_id__in=accounts, is_active=True).order_by("pk"):
        hooks_of.setdefault(webhook.account_id, []).append(webhook)
    if not hooks_of:
        return []
    return _record_deliveries(
        [
            (event, data, hooks_of.get(getattr(account, "pk", None), []))
            for account, event, data in events
        ]
    )


def emit_store_many(events: list[tuple[str, dict]]) -> list[Delivery]:
    """Store-wide events (no owning account) for the active store webhooks subscribed to them.

    Inside the caller's transaction, like `emit_many`. Costs nothing more than a cache read
    (or one query on a miss) while no store webhook wants any of the events.
    """
    for event, _data in events:
        if event not in StoreEvent.values:
            raise ValueError(f"unknown store event {event!r}; expected one of {StoreEvent.values}")
    subscribed = store_events_subscribed()
    events = [(event, data) for event, data in events if event in subscribed]
    if not events:
        return []
    hooks = list(Webhook.objects.filter(scope=Scope.STORE, is_active=True).order_by("pk"))
    if not hooks:
        return []
    return _record_deliveries([(event, data, hooks) for event, data in events])


def _record_deliveries(events: list[tuple[str, dict, list[Webhook]]]) -> list[Delivery]:
    """One delivery per (event, webhook subscribed to it), in one INSERT, and one task for all."""
    now = timezone.now()
    rows = []
    for event, data, hooks in events:
        subscribed = [webhook for webhook in hooks if webhook.subscribes_to(event)]
        if not subscribed:
            continue
        body = signing.build_body(event=event, moment=now, data=data)
        rows.extend(
            Delivery(
                webhook=webhook,
                event=event,
                body=body,
                next_attempt_at=now,
                dispatched_at=now,
                created_at=now,
            )
            for webhook in subscribed
        )
    deliveries = Delivery.objects.bulk_create(rows)
    if deliveries:
        # One task for the whole batch (one outbox row, one broker round trip at commit): it
        # splits the list into receivers' batches and hands them to the workers (see
        # `deliveries_attempt`).
        outbox.enqueue(DELIVER_TASK, args=([delivery.pk for delivery in deliveries],))
    return deliveries


def _enqueue_on_commit(delivery_id: int, countdown: float | None = None) -> None:
    outbox.enqueue(
        DELIVER_TASK,
        args=(delivery_id,),
        countdown=countdown,
        dedupe_key=f"{DELIVER_TASK}:{delivery_id}",
    )


# --- Attempts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    delivery_id: int
    webhook_id: int
    token: str
    attempt: int
    started_at: dt.datetime
    url: str
    secret: str
    event: str
    body: str
    uuid: str


def _lock_pair(delivery_id: int, webhook_id: int | None = None):
    """Lock the delivery's webhook, then the delivery: every writer that takes both takes them
    in this order, so they cannot deadlock. None if either is gone."""
    if webhook_id is None:
        webhook_id = (
            Delivery.objects.filter(pk=delivery_id).values_list("webhook_id", flat=True).first()
        )
        if webhook_id is None:
            return None
    webhook = Webhook.objects.select_for_update(no_key=True).filter(pk=webhook_id).first()
    delivery = Delivery.objects.select_for_update(no_key=True).filter(pk=delivery_id).first()
    if webhook is None or delivery is None:
        return None
    return webhook, delivery


def _claimable(delivery: Delivery, *, task_id: str, now: dt.datetime) -> bool:
    if delivery.status != Status.PENDING:
        return False  # succeeded (never sent twice), or given up
    if delivery.next_attempt_at is None or delivery.next_attempt_at > now:
        return False  # not due: an early duplicate, or a redelivery brought it forward
    if delivery.locked_until is not None and delivery.locked_until > now:
        # Another worker is sending it right now, unless this is the very task that holds the
        # lease, redelivered by the broker because its worker died mid-attempt.
        return bool(task_id) and delivery.claimed_by_task == task_id
    return True


def _take_over(*, delivery_id: int, task_id: str, now: dt.datetime) -> Claim | None:
    """The previous claim never recorded a result (its worker died, or its lease ran out):
    log that attempt as interrupted and claim the delivery again."""
    with transaction.atomic():
        pair = _lock_pair(delivery_id)
        if pair is None:
            return None
        webhook, delivery = pair
        if not _claimable(delivery, task_id=task_id, now=now):
            return None
        if delivery.locked_until is not None:
            _append_log(
                webhook=webhook,
                delivery=delivery,
                attempt=delivery.attempts,
                result=sender.Result(
                    Outcome.INTERRUPTED,
                    error="No result was recorded for this attempt (the worker stopped before "
                    "the receiver answered); it is sent again.",
                ),
                at=delivery.last_attempt_at or now,
            )
        return _take(webhook, delivery, task_id=task_id, now=now)


def _take(webhook: Webhook, delivery: Delivery, *, task_id: str, now: dt.datetime):
    if not webhook.is_active:
        delivery.status, delivery.next_attempt_at = Status.FAILED, None
        delivery.locked_until, delivery.claim_token = None, ""
        delivery.save(update_fields=["status", "next_attempt_at", "locked_until", "claim_token"])
        return None
    delivery.attempts += 1
    delivery.locked_until = now + CLAIM_LEASE
    delivery.claim_token = secrets.token_hex(16)
    delivery.claimed_by_task = task_id or ""
    delivery.last_attempt_at = now
    delivery.save(
        update_fields=[
            "attempts",
            "locked_until",
            "claim_token",
            "claimed_by_task",
            "last_attempt_at",
        ]
    )
    return _claim_of(webhook, delivery, now)


def _claim_of(webhook: Webhook, delivery: Delivery, now: dt.datetime) -> Claim:
    return Claim(
        delivery_id=delivery.pk,
        webhook_id=webhook.pk,
        token=delivery.claim_token,
        attempt=delivery.attempts,
        started_at=now,
        url=webhook.url,
        secret=webhook.secret,
        event=delivery.event,
        body=delivery.body,
        uuid=str(delivery.uuid),
    )


def _send(claim: Claim) -> sender.Result:
    return sender.send(
        url=claim.url,
        body=claim.body,
        secret=claim.secret,
        event=claim.event,
        delivery_id=claim.uuid,
    )


def jitter_factor() -> float:
    return _random.uniform(1 - JITTER, 1 + JITTER)


def retry_wait(*, attempt: int, result: sender.Result) -> dt.timedelta | None:
    """How long after failed attempt `attempt` the next one is due; None when none is left."""
    if attempt >= MAX_ATTEMPTS:
        return None
    wait = RETRY_SCHEDULE[attempt - 1] * jitter_factor()
    if result.outcome == Outcome.TIMEOUT or result.status_code == 429:
        wait = max(wait, MIN_WAIT_AFTER_TIMEOUT_OR_429)
    if result.retry_after is not None:  # the receiver's wish, within bounds: later, never sooner
        asked = min(dt.timedelta(seconds=result.retry_after), RETRY_AFTER_MAX)
        wait = max(wait, asked)
    return wait


def _append_log(
    *,
    webhook: Webhook,
    delivery: Delivery,
    attempt: int,
    result: sender.Result,
    at: dt.datetime,
) -> DeliveryAttempt:
    """Insert a log entry and keep only the newest 100 of the webhook, in the same transaction
    (the caller holds the webhook's row lock, so concurrent inserts cannot overshoot)."""
    entry = _log_entry(webhook=webhook, delivery=delivery, attempt=attempt, result=result, at=at)
    entry.save(force_insert=True)
    _prune_log(webhook, keep=[delivery.pk])
    return entry


def _log_entry(
    *,
    webhook: Webhook,
    delivery: Delivery,
    attempt: int,
    result: sender.Result,
    at: dt.datetime,
) -> DeliveryAttempt:
    return DeliveryAttempt(
        webhook=webhook,
        delivery=delivery,
        attempt=attempt,
        event=delivery.event,
        status_code=result.status_code,
        success=result.success,
        outcome=result.outcome,
        error=result.error[:500],
        response_body=result.response_body,
        duration_ms=result.duration_ms,
        created_at=at,
    )


def _prune_log(webhook: Webhook, *, keep) -> None:
    """Keep the webhook's newest 100 log entries (under the caller's lock on the webhook)."""
    newest = DeliveryAttempt.objects.filter(webhook=webhook).order_by("-id").values("id")
    cutoff = newest[LOGS_KEPT_PER_WEBHOOK - 1 : LOGS_KEPT_PER_WEBHOOK]
    pruned, _ = DeliveryAttempt.objects.filter(webhook=webhook, id__lt=Subquery(cutoff)).delete()
    if pruned:
        # A finished delivery whose whole log is gone goes with it. One plain DELETE: no log
        # entry refers to these (the filter), and every log insert holds the webhook's lock,
        # so the cascade Django's collector would look for (a SELECT and a DELETE) is empty.
        orphans = Delivery.objects.filter(webhook=webhook, log__isnull=True).exclude(
            Q(status=Status.PENDING) | Q(pk__in=list(keep))
        )
        orphans._raw_delete(orphans.db)


def _record(claim: Claim, result: sender.Result) -> DeliveryAttempt | None:
    metrics.webhook_delivered(result.outcome)
    now = timezone.now()
    with transaction.atomic():
        pair = _lock_pair(claim.delivery_id, claim.webhook_id)
        if pair is None:
            return None  # the webhook was deleted meanwhile
        webhook, delivery = pair
        entry = _append_log(
            webhook=webhook,
            delivery=delivery,
            attempt=claim.attempt,
            result=result,
            at=claim.started_at,
        )
        countdown = _next_step(delivery, claim=claim, result=result, now=now)
        delivery.save(update_fields=_RECORDED_FIELDS)
        if countdown is not None:
            _enqueue_on_commit(delivery.pk, countdown=countdown)
        _track_health(webhook=webhook, result=result, now=now)
    return entry


_RECORDED_FIELDS = [
    "status",
    "succeeded_at",
    "next_attempt_at",
    "dispatched_at",
    "locked_until",
    "claim_token",
    "claimed_by_task",
]


def _next_step(
    delivery: Delivery, *, claim: Claim, result: sender.Result, now: dt.datetime
) -> float | None:
    """Set what follows the attempt on the (locked) delivery; answers the countdown of a
    short retry to enqueue, else None."""
    ours = delivery.claim_token == claim.token
    if ours:
        delivery.locked_until, delivery.claim_token, delivery.claimed_by_task = None, "", ""
    if result.success:
        delivery.status, delivery.succeeded_at, delivery.next_attempt_at = (
            Status.SUCCEEDED,
            now,
            None,
        )
        return None
    if delivery.status != Status.PENDING or not ours:
        return None
    wait = None
    if result.status_code != 410 and delivery.auto_retry:
        wait = retry_wait(attempt=claim.attempt, result=result)
    if wait is None:
        delivery.status, delivery.next_attempt_at = Status.FAILED, None
        return None
    delivery.next_attempt_at = now + wait
    if wait <= COUNTDOWN_MAX:
        delivery.dispatched_at = now
        return wait.total_seconds()
    delivery.dispatched_at = None  # the beat task dispatches it when due
    return None


def _track_health(*, webhook: Webhook, result: sender.Result, now: dt.datetime) -> None:
    """Any success resets the failure clock; 5 days of nothing but failures, or a 410,
    disables the webhook."""
    if result.success:
        if webhook.failing_since is not None:
            Webhook.objects.filter(pk=webhook.pk).update(failing_since=None)
            webhook.failing_since = None
        return
    if result.status_code == 410:
        _disable(
            webhook=webhook,
            reason="The receiver answered 410 Gone: it no longer accepts deliveries.",
            now=now,
        )
        return
    if webhook.failing_since is None:
        Webhook.objects.filter(pk=webhook.pk).update(failing_since=now)
        webhook.failing_since = now
    elif now - webhook.failing_since >= DISABLE_AFTER_FAILING_FOR:
        since = webhook.failing_since.strftime("%Y-%m-%d %H:%M UTC")
        _disable(
            webhook=webhook,
            reason=f"Every delivery has failed for 5 days (since {since}).",
            now=now,
        )


def delivery_attempt(*, delivery_id: int, task_id: str = "") -> str:
    """Make the due attempt of one delivery, if it is still due and nobody else is making it.

    Answers the outcome, "deferred" when its webhook had its cap in flight, or "skipped" when
    there was nothing to do.
    """
    outcomes = deliveries_attempt(delivery_ids=[delivery_id], task_id=task_id)
    return outcomes.get(delivery_id, "skipped")


def deliveries_attempt(
    *, delivery_ids: list[int], task_id: str = "", deferrals: int = 0
) -> dict[int, str]:
    """`delivery_attempt` for a list: {delivery id: outcome} of the batch this task took.

    The due ones are split into receivers' batches (at most DELIVER_BATCH deliveries of one
    webhook, the webhooks taking turns); the first is this task's, the others are enqueued as
    tasks of their own, so every worker process shares the work. The batch takes one of its
    webhook's in-flight slots: with none free it is deferred (outcome "deferred"); else it is
    claimed, sent one by one over the process's kept-alive connection to the receiver, and
    recorded together. `deferrals` counts how often this batch was deferred already.
    """
    batches = _receiver_batches(_due_pairs(delivery_ids, task_id=task_id))
    if not batches:
        return {}
    if len(batches) > 1:
        outbox.enqueue_many(DELIVER_TASK, [(ids,) for _webhook_id, ids in batches[1:]])
    webhook_id, ids = batches[0]
    slot = inflight.acquire(webhook_id)
    if slot is None:
        _defer(ids, deferrals=deferrals)
        return dict.fromkeys(ids, "deferred")
    try:
        claims = _claim_many(delivery_ids=ids, task_id=task_id, now=timezone.now())
        results: list[tuple[Claim, sender.Result]] = []
        unsent: list[Claim] = []
        started = time.monotonic()
        for n, claim in enumerate(claims):
            if results and time.monotonic() - started > BATCH_BUDGET.total_seconds():
                unsent = claims[n:]  # a slow receiver: the rest waits its turn in a new task
                break
            results.append((claim, _send(claim)))
    finally:
        inflight.release(webhook_id, slot)
    _record_many(results)
    if unsent:
        _release(unsent)
    return {claim.delivery_id: result.outcome for claim, result in results}


def _due_pairs(delivery_ids: list[int], *, task_id: str) -> list[tuple[int, int]]:
    """(delivery id, webhook id) of those a task may claim now, in the order given: pending,
    due, and not leased by another task (the claim checks again under its lock)."""
    ids = list(dict.fromkeys(delivery_ids))
    now = timezone.now()
    # Read by primary key and judged here: with the due conditions in SQL the planner takes
    # the partial index of due deliveries and scans every one of them during a burst.
    rows = (
        Delivery.objects.filter(pk__in=ids)
        .order_by()
        .values_list(
            "pk", "webhook_id", "status", "next_attempt_at", "locked_until", "claimed_by_task"
        )
    )
    webhook_of = {
        pk: webhook_id
        for pk, webhook_id, status, due_at, locked_until, holder in rows
        if status == Status.PENDING
        and due_at is not None
        and due_at <= now
        and (locked_until is None or locked_until <= now or (task_id and holder == task_id))
    }
    return [(pk, webhook_of[pk]) for pk in ids if pk in webhook_of]


def _receiver_batches(pairs: list[tuple[int, int]]) -> list[tuple[int, list[int]]]:
    """(webhook id, delivery ids) batches of at most DELIVER_BATCH, in turns: each webhook's
    first batch, then each one's second ..., so the first tasks of a fan-out go to many
    receivers rather than queue under one receiver's cap."""
    by_webhook: dict[int, list[int]] = {}
    for delivery_id, webhook_id in pairs:
        by_webhook.setdefault(webhook_id, []).append(delivery_id)
    queues = [
        [(webhook_id, ids[n : n + DELIVER_BATCH]) for n in range(0, len(ids), DELIVER_BATCH)]
        for webhook_id, ids in by_webhook.items()
    ]
    return [batch for turn in itertools.zip_longest(*queues) for batch in turn if batch]


def _defer(ids: list[int], *, deferrals: int) -> None:
    """The batch is due again after a short wait (longer each time it is deferred) and
    enqueued for then; nothing is claimed or logged, the attempt is not counted. Its time of
    dispatch is renewed, so the beat's re-dispatch does not add a second task meanwhile."""
    wait = min(DEFER_FIRST * 2 ** min(deferrals, 10), DEFER_MAX) * jitter_factor()
    now = timezone.now()
    with transaction.atomic():
        Delivery.objects.filter(pk__in=ids, status=Status.PENDING).filter(
            Q(locked_until__isnull=True) | Q(locked_until__lte=now)
        ).update(next_attempt_at=now + wait, dispatched_at=now)
        outbox.enqueue(
            DELIVER_TASK,
            args=(ids,),
            kwargs={"deferrals": deferrals + 1},
            countdown=wait.total_seconds(),
        )
    logger.debug(
        "webhook deliveries %s deferred %.1f s: their webhook's cap is in flight",
        ids,
        wait.total_seconds(),
    )


def _claim_many(*, delivery_ids: list[int], task_id: str, now: dt.datetime) -> list[Claim]:
    """`_claim` for a batch: one locking read and one UPDATE for all that are due (in pk
    order, so two batches cannot deadlock); a lease to take over goes the one-by-one way."""
    if not delivery_ids:
        return []
    token = secrets.token_hex(16)
    take: list[Delivery] = []
    take_over: list[int] = []
    with transaction.atomic():
        rows = (
            Delivery.objects.select_related("webhook")
            .select_for_update(no_key=True, of=("self",))
            .filter(pk__in=delivery_ids)
            .order_by("pk")
        )
        given_up = []
        for delivery in rows:
            if not _claimable(delivery, task_id=task_id, now=now):
                continue
            if delivery.locked_until is not None:
                take_over.append(delivery.pk)
            elif not delivery.webhook.is_active:
                given_up.append(delivery.pk)
            else:
                take.append(delivery)
        if given_up:
            Delivery.objects.filter(pk__in=given_up).update(
                status=Status.FAILED, next_attempt_at=None, locked_until=None, claim_token=""
            )
        if take:
            Delivery.objects.filter(pk__in=[d.pk for d in take]).update(
                attempts=F("attempts") + 1,
                locked_until=now + CLAIM_LEASE,
                claim_token=token,
                claimed_by_task=task_id or "",
                last_attempt_at=now,
            )
    claims = []
    for delivery in take:
        delivery.attempts += 1
        delivery.claim_token = token
        claims.append(_claim_of(delivery.webhook, delivery, now))
    for delivery_id in take_over:
        claim = _take_over(delivery_id=delivery_id, task_id=task_id, now=now)
        if claim is not None:
            claims.append(claim)
    return claims


def _release(claims: list[Claim]) -> None:
    """Give back claims that were not sent and hand them to a new task."""
    now = timezone.now()
    with transaction.atomic():
        for claim in claims:
            Delivery.objects.filter(pk=claim.delivery_id, claim_token=claim.token).update(
                attempts=F("attempts") - 1,
                locked_until=None,
                claim_token="",
                claimed_by_task="",
                dispatched_at=now,
            )
        outbox.enqueue(DELIVER_TASK, args=([claim.delivery_id for claim in claims],))


def _record_many(results: list[tuple[Claim, sender.Result]]) -> None:
    """`_record` for a batch, in one transaction: the webhooks then the deliveries locked in
    pk order (the order every writer takes), the log entries in one INSERT, the deliveries in
    one UPDATE, the log pruned once per webhook."""
    if not results:
        return
    now = timezone.now()
    with transaction.atomic():
        webhooks = {
            webhook.pk: webhook
            for webhook in Webhook.objects.select_for_update(no_key=True)
            .filter(pk__in={claim.webhook_id for claim, _result in results})
            .order_by("pk")
        }
        deliveries = {
            delivery.pk: delivery
            for delivery in Delivery.objects.select_for_update(no_key=True)
            .filter(pk__in=[claim.delivery_id for claim, _result in results])
            .order_by("pk")
        }
        results = [
            (claim, result)
            for claim, result in results
            if claim.webhook_id in webhooks and claim.delivery_id in deliveries
        ]  # the others' webhook was deleted meanwhile
        DeliveryAttempt.objects.bulk_create(
            _log_entry(
                webhook=webhooks[claim.webhook_id],
                delivery=deliveries[claim.delivery_id],
                attempt=claim.attempt,
                result=result,
                at=claim.started_at,
            )
            for claim, result in results
        )
        retries = []
        for claim, result in results:
            delivery = deliveries[claim.delivery_id]
            countdown = _next_step(delivery, claim=claim, result=result, now=now)
            if countdown is not None:
                retries.append((delivery.pk, countdown))
        _save_recorded([deliveries[claim.delivery_id] for claim, _result in results])
        for webhook_id in sorted({claim.webhook_id for claim, _result in results}):
            _prune_log(webhooks[webhook_id], keep=deliveries.keys())
        for delivery_id, countdown in retries:
            _enqueue_on_commit(delivery_id, countdown=countdown)
        for claim, result in results:
            _track_health(webhook=webhooks[claim.webhook_id], result=result, now=now)
    for _claim, result in results:
        metrics.webhook_delivered(result.outcome)


def _save_recorded(deliveries: list[Delivery]) -> None:
    """Write what `_next_step` set, one UPDATE per set of equal values: a batch that succeeded
    is one plain UPDATE (Django's bulk_update builds a CASE per field and row, which cost more
    than the rest of the record)."""
    groups: dict[tuple, list[int]] = {}
    for delivery in deliveries:
        values = tuple(getattr(delivery, field) for field in _RECORDED_FIELDS)
        groups.setdefault(values, []).append(delivery.pk)
    for values, ids in groups.items():
        Delivery.objects.filter(pk__in=ids).update(
            **dict(zip(_RECORDED_FIELDS, values, strict=True))
        )


def webhook_ping(*, webhook: Webhook) -> tuple[DeliveryAttempt | None, sender.Result]:
    """Send a test ping now and wait for the answer (one attempt, logged, never retried)."""
    now = timezone.now()
    body = signing.build_body(
        event=PING_EVENT,
        moment=now,
        data={"webhook_id": webhook.pk, "url": webhook.url, "events": webhook.events},
    )
    with transaction.atomic():
        delivery = Delivery.objects.create(
            webhook=webhook,
            event=PING_EVENT,
            body=body,
            auto_retry=False,
            attempts=1,
            next_attempt_at=now,
            dispatched_at=now,
            locked_until=now + CLAIM_LEASE,
            claim_token=secrets.token_hex(16),
            last_attempt_at=now,
            created_at=now,
        )
    claim = _claim_of(webhook, delivery, now)
    result = _send(claim)
    return _record(claim, result), result


def delivery_redeliver(*, delivery: Delivery) -> Delivery:
    """Send a logged delivery again: same body, same delivery id, signed with today's secret.

    A finished delivery gets one more attempt; a pending one has its next attempt brought
    forward to now.
    """
    with transaction.atomic():
        pair = _lock_pair(delivery.pk)
        if pair is None:
            raise ServiceError("This delivery no longer exists.", code="delivery_not_found")
        webhook, locked = pair
        if not webhook.is_active:
            raise ServiceError(
                "The webhook is inactive; set is_active to true before redelivering.",
                code="webhook_inactive",
            )
        now = timezone.now()
        if locked.status != Status.PENDING:
            locked.auto_retry = False
            locked.status = Status.PENDING
        locked.next_attempt_at = now
        locked.dispatched_at = now
        locked.save(update_fields=["auto_retry", "status", "next_attempt_at", "dispatched_at"])
        _enqueue_on_commit(locked.pk)
    return locked


def dispatch_due(*, limit: int = DISPATCH_BATCH) -> int:
    """Enqueue the deliveries whose next attempt is due (the beat task; also a command).

    Skips those a task was enqueued for recently and those a worker is sending; a lease that
    ran out is taken over by the task, which logs the lost attempt.
    """
    now = timezone.now()
    with transaction.atomic():
        due = (
            Delivery.objects.filter(status=Status.PENDING, next_attempt_at__lte=now)
            .filter(Q(dispatched_at__isnull=True) | Q(dispatched_at__lt=now - REDISPATCH_AFTER))
            .filter(Q(locked_until__isnull=True) | Q(locked_until__lt=now))
            .order_by("next_attempt_at", "id")
            .select_for_update(skip_locked=True)
        )
        pairs = list(due.values_list("id", "webhook_id")[:limit])
        if pairs:
            Delivery.objects.filter(pk__in=[pk for pk, _webhook_id in pairs]).update(
                dispatched_at=now
            )
            outbox.enqueue_many(DELIVER_TASK, [(ids,) for _w, ids in _receiver_batches(pairs)])
    return len(pairs)
