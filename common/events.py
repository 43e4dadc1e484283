"""Domain events, published by the apps that own them and consumed by listeners they don't know.

Licensing publishes licence events; the webhooks app subscribes and turns each into signed
deliveries (STYLE.md: signals only where a package must not know its listener).

Listeners run synchronously, inside the publisher's transaction: a listener records its rows in
that transaction and defers any I/O with `transaction.on_commit`, so an event published by a
transaction that rolls back leaves nothing behind and sends nothing.

A use case that raises many events at once (a bulk create, a bulk revoke) publishes them as one
batch, so that a listener can handle them in a constant number of queries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.dispatch import Signal

# Sent with one keyword argument: events (a list of DomainEvent, never empty).
events_published = Signal()


@dataclass(frozen=True)
class DomainEvent:
    account: Any  # accounts.User: whose event it is
    event: str  # e.g. "license.created"
    data: dict  # JSON-safe


def publish(*, account: Any, event: str, data: dict) -> None:
    publish_many([DomainEvent(account=account, event=event, data=data)])


def publish_many(events: Iterable[DomainEvent]) -> None:
    batch = list(events)
    if batch:
        events_published.send(sender=None, events=batch)
