"""Reading store settings: defaults merged with the stored values, cached.

All sections are read in one query and kept in the cache until a write replaces them, so the
hot paths (every product list reads the inventory section) cost no query. The cache is
best-effort (common.cache): while it is unreachable every read falls back to the database. An
entry lives at most CACHE_SECONDS, which bounds how long an invalidation dropped during an
outage can leave old values in a Redis that comes back with its data.

Within an HTTP request the values are read once: the first read keeps them for the rest of
the request (a product list reads three settings), a write in the request drops them. Like
the values of `read_together`, they are shared by the request's reads: read-only. Outside a
request (tasks, commands) every read goes to the cache, as before.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import Any

from django.core.cache import cache
from django.core.signals import request_finished, request_started

from store.common.cache import memo_forget, memo_get
from store.common.errors import not_found
from store.settings import registry
from store.settings.models import SettingsSection

logger = logging.getLogger(__name__)

CACHE_KEY = "store:settings:all"
CACHE_SECONDS = 300


def _clean(section: registry.Section, stored: dict) -> dict:
    """Defaults, overlaid with each stored value the current declaration still accepts."""
    values = section.defaults()
    fields = section.fields()
    for key, value in (stored or {}).items():
        field = fields.get(key)
        if field is None:
            continue  # a key no longer declared
        try:
            values[key] = field.run_validation(value)
        except Exception:  # noqa: BLE001 - a stored value the declaration no longer accepts
            logger.warning("ignoring stored setting %s.%s=%r", section.name, key, value)
    return values


def _load() -> dict[str, dict]:
    stored = dict(SettingsSection.objects.values_list("name", "values"))
    return {
        name: _clean(section, stored.get(name, {})) for name, section in registry.SECTIONS.items()
    }


def cache_key() -> str:
    return f"{CACHE_KEY}:{registry.signature()}"


# The values read by the current request, by cache key (None: not in a request).
_request_values: ContextVar[dict[str, dict[str, dict[str, Any]]] | None] = ContextVar(
    "store_settings_request_values", default=None
)


def _request_started(**kwargs: object) -> None:
    _request_values.set({})


def _request_finished(**kwargs: object) -> None:
    _request_values.set(None)


request_started.connect(_request_started, dispatch_uid="store.settings.selectors.started")
request_finished.connect(_request_finished, dispatch_uid="store.settings.selectors.finished")


def get_all() -> dict[str, dict]:
    key = cache_key()
    kept = _request_values.get()
    if kept is not None and key in kept:
        return kept[key]
    values = memo_get(key)  # the cache, or a read_together of the hot path (store.common.cache)
    if values is None or set(values) != set(registry.SECTIONS):
        values = _load()
        cache.set(key, values, CACHE_SECONDS)
    if kept is not None:
        kept[key] = values
    return values


def get_section(name: str) -> dict:
    """One section's values; 404 settings_section_not_found for an unknown name."""
    if registry.get(name) is None:
        raise not_found("settings_section", name)
    return dict(get_all()[name])


def get_value(section: str, key: str):
    return get_all()[section][key]


def invalidate() -> None:
    kept = _request_values.get()
    if kept is not None:
        kept.clear()
    memo_forget(cache_key())
    cache.delete(cache_key())
