"""Domain events become deliveries: licensing publishes, this listener emits."""

from __future__ import annotations

import logging

from common.events import DomainEvent
from webhooks import services
from webhooks.models import Event

logger = logging.getLogger(__name__)


def on_events_published(sender, *, events: list[DomainEvent], **kwargs) -> None:
    """Runs inside the publisher's transaction; the deliveries are sent after it commits."""
    wanted = [item for item in events if item.event in Event.values]
    if len(wanted) < len(events):
        logger.debug("%d event(s) are not webhook events", len(events) - len(wanted))
    if wanted:
        services.emit_many([(item.account, item.event, item.data) for item in wanted])
