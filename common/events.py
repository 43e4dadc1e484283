"""Domain events, published by the apps that own them and consumed by listeners they don't know.

Licensing publishes licence events; the webhooks app subscribes and turns each into signed
deliveries (STYLE.md: signals only where a package must not know its listener).

Listeners run synchronously, inside the publisher's transaction: a listener records its rows in
that transaction and defers any I/O with `transaction.on_commit`, so an event published by a
transaction that rolls back leaves nothing behind and sends nothing.

A use case that raises many events at once (a bulk create, a bulk revoke) publishes them as one
batch, so that a listener can handle them in a constant number of queries.

Signals that a listener may act on only once the change is there to read (the store's
`payment_recorded`, the ERP's `invoice_issued`) go out with `send_after_commit`: after the
commit, never for a transaction that rolls back, each receiver apart (one that fails is logged
and fails neither the others nor the sender).

Scopes: an event of the portal belongs to one account (`scope="account"`, the default: licence
events go to that account's webhooks). The store publishes store-wide events (`scope="store"`,
no owning account: an order placed, a product changed), delivered to the store's webhooks.
`publish_store` is the store's call.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.dispatch import Signal

logger = logging.getLogger(__name__)

# Sent with one keyword argument: events (a list of DomainEvent, never empty).
events_published = Signal()


ACCOUNT = "account"  # an event of one account (the portal's licence events)
STORE = "store"  # a store-wide event, owned by no account


@dataclass(frozen=True)
class DomainEvent:
    account: Any  # accounts.User: whose event it is (None for a store-wide event)
    event: str  # e.g. "license.created", "order.created"
    data: dict  # JSON-safe
    scope: str = ACCOUNT


def publish(*, account: Any, event: str, data: dict) -> None:
    publish_many([DomainEvent(account=account, event=event, data=data)])


def publish_many(events: Iterable[DomainEvent]) -> None:
    batch = list(events)
    if batch:
        events_published.send(sender=None, events=batch)


def publish_store(event: str, data: dict) -> None:
    """A store-wide event (no owning account), inside the caller's transaction."""
    publish_many([DomainEvent(account=None, event=event, data=data, scope=STORE)])


def send_after_commit(signal: Signal, *, sender: Any, **kwargs: Any) -> None:
    """Send `signal` with `kwargs` once the current transaction commits (at once outside one),
    through `send_robust`: a receiver's failure is logged with its traceback."""

    def send() -> None:
        for receiver, result in signal.send_robust(sender=sender, **kwargs):
            if isinstance(result, Exception):
                logger.error(
                    "receiver %r of %s failed: %s", receiver, sender, result, exc_info=result
                )

    transaction.on_commit(send)
