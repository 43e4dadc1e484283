"""Domain events, published by the apps that own them and consumed by listeners they don't know.

Licensing publishes licence events; the webhooks app subscribes and turns each into signed
deliveries (STYLE.md: signals only where a package must not know its listener).

Listeners run synchronously, inside the publisher's transaction: a listener records its rows in
that transaction and defers any I/O with `transaction.on_commit`, so an event published by a
transaction that rolls back leaves nothing behind and sends nothing.

A use case that raises many events at once (a bulk create, a bulk revoke) publishes them as one
batch, so that a listener can handle them in a constant number of queries.

Scopes: an event of the portal belongs to one account (`scope="account"`, the default: licence
events go to that account's webhooks). The store publishes store-wide events (`scope="store"`,
no owning account: an order placed, a product changed), delivered to the store's webhooks
(issue 17). `publish_store` is the store's call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.dispatch import Signal

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
