"""Delivering: a task sends a small batch of one webhook's due deliveries under that
webhook's in-flight cap (deferred while it is full), claimed and recorded together; the beat
dispatches the due deliveries; staff and owners ping a webhook and redeliver by hand.
"""

from __future__ import annotations

import datetime as dt
import itertools
import logging
import secrets
import time

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from common import metrics, outbox
from common.errors import ServiceError
from webhooks import inflight, sender, signing
from webhooks.models import PING_EVENT, Delivery, DeliveryAttempt, Webhook
from webhooks.services._attempts import (
    _RECORDED_FIELDS,
    Claim,
    _claim_of,
    _claimable,
    _lock_pair,
    _log_entry,
    _next_step,
    _prune_log,
    _record,
    _send,
    _take_over,
    _track_health,
)
from webhooks.services._shared import CLAIM_LEASE, DELIVER_TASK, Status, _enqueue_on_commit
from webhooks.services.retries import jitter_factor

logger = logging.getLogger(__name__)

# A due delivery whose task has not claimed it this long after dispatch is dispatched again.
REDISPATCH_AFTER = dt.timedelta(seconds=settings.WEBHOOK_REDISPATCH_SECONDS)
DISPATCH_BATCH = 500

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
