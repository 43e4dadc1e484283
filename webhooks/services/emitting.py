"""Emitting an event: one Delivery per subscribed, active webhook, recorded inside the
caller's transaction and enqueued through the outbox when it commits.
"""

from __future__ import annotations

from django.utils import timezone

from accounts.models import User
from common import outbox
from webhooks import signing
from webhooks.models import Delivery, Event, Scope, StoreEvent, Webhook
from webhooks.services._shared import DELIVER_TASK
from webhooks.services.subscriptions import store_events_subscribed


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
