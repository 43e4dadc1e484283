"""Domain events become deliveries: licensing publishes, this listener emits."""

from __future__ import annotations

import logging

from webhooks import services
from webhooks.models import Event

logger = logging.getLogger(__name__)


def on_event_published(sender, *, account, event: str, data: dict, **kwargs) -> None:
    """Runs inside the publisher's transaction; the deliveries are sent after it commits."""
    if event not in Event.values:
        logger.debug("event %s is not a webhook event; nothing to deliver", event)
        return
    services.emit(account, event, data)
