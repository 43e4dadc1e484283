"""One attempt (private to this package): the delivery claimed under its row lock with a
lease, sent outside any transaction, recorded with its log entry; then what follows it (a
retry, or giving up) and the webhook's health (disabled after a 410 or 5 days of failures).
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q, Subquery
from django.utils import timezone

from common import metrics
from webhooks import sender
from webhooks.models import Delivery, DeliveryAttempt, Webhook
from webhooks.services._shared import CLAIM_LEASE, Outcome, Status, _disable, _enqueue_on_commit
from webhooks.services.retries import retry_wait

LOGS_KEPT_PER_WEBHOOK = 100  # spec: Limits

DISABLE_AFTER_FAILING_FOR = dt.timedelta(days=5)

# Waits up to this long are handed to the broker as a countdown; longer ones go through beat.
COUNTDOWN_MAX = dt.timedelta(seconds=60)


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
