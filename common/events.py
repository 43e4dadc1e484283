"""Domain events, published by the apps that own them and consumed by listeners they don't know.

Licensing publishes licence events; the webhooks app subscribes and turns each into signed
deliveries (STYLE.md: signals only where a package must not know its listener).

`publish` runs the listeners synchronously, inside the caller's transaction: a listener records
its rows in that transaction and defers any I/O with `transaction.on_commit`, so an event
published by a transaction that rolls back leaves nothing behind and sends nothing.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

# Sent with keyword arguments: account (accounts.User), event (str), data (dict, JSON-safe).
event_published = Signal()


def publish(*, account: Any, event: str, data: dict) -> None:
    event_published.send(sender=None, account=account, event=event, data=data)
