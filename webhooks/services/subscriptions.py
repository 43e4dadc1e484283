"""The events the active store webhooks subscribe to, cached, so that a store event no
webhook wants costs a cache read.
"""

from __future__ import annotations

from django.core.cache import cache
from django.db import transaction

from webhooks.models import Scope, Webhook

# Which events the active store webhooks subscribe to, cached (best effort: the database is
# the truth; every store webhook write deletes the entry now and again at commit).
STORE_EVENTS_CACHE_KEY = "webhooks:store-events:v1"
STORE_EVENTS_CACHE_SECONDS = 60


def store_events_changed() -> None:
    """Forget the cached store subscriptions, now and when the transaction commits (a reader
    between the two may have cached the state before the commit)."""
    cache.delete(STORE_EVENTS_CACHE_KEY)
    transaction.on_commit(lambda: cache.delete(STORE_EVENTS_CACHE_KEY))


def store_events_subscribed() -> frozenset[str]:
    """The events at least one active store webhook subscribes to: from the cache, else one
    query (a cache that is down is a miss)."""
    cached = cache.get(STORE_EVENTS_CACHE_KEY)
    if isinstance(cached, list):
        return frozenset(cached)
    subscribed: set[str] = set()
    for names in Webhook.objects.filter(scope=Scope.STORE, is_active=True).values_list(
        "events", flat=True
    ):
        subscribed.update(name for name in names or [] if isinstance(name, str))
    cache.set(STORE_EVENTS_CACHE_KEY, sorted(subscribed), STORE_EVENTS_CACHE_SECONDS)
    return frozenset(subscribed)
