"""Domain events become deliveries: licensing and the store publish, this listener emits.

An account's event (the portal's licence events) goes to that account's webhooks; a store-wide
event (`scope="store"`, no account) to the active store webhooks subscribed to it.
"""

from __future__ import annotations

import logging

from common.events import STORE, DomainEvent
from webhooks import services
from webhooks.models import Event, StoreEvent

logger = logging.getLogger(__name__)


def on_events_published(sender, *, events: list[DomainEvent], **kwargs) -> None:
    """Runs inside the publisher's transaction; the deliveries are sent after it commits."""
    store = [
        item
        for item in events
        if getattr(item, "scope", None) == STORE and item.event in StoreEvent.values
    ]
    wanted = [
        item
        for item in events
        if getattr(item, "scope", None) != STORE
        and item.account is not None
        and item.event in Event.values
    ]
    if len(wanted) + len(store) < len(events):
        logger.debug("%d event(s) are not webhook events", len(events) - len(wanted) - len(store))
    if wanted:
        services.emit_many([(item.account, item.event, item.data) for item in wanted])
    if store:
        services.emit_store_many([(item.event, item.data) for item in store])
