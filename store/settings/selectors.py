"""Reading store settings: defaults merged with the stored values, cached.

All sections are read in one query and kept in the cache until a write replaces them, so the
hot paths (every product list reads the inventory section) cost no query. The cache is
best-effort (common.cache): while it is unreachable every read falls back to the database. An
entry lives at most CACHE_SECONDS, which bounds how long an invalidation dropped during an
outage can leave old values in a Redis that comes back with its data.
"""

from __future__ import annotations

import logging

from django.core.cache import cache

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


def get_all() -> dict[str, dict]:
    key = cache_key()
    values = memo_get(key)  # the cache, or a read_together of the hot path (store.common.cache)
    if values is None or set(values) != set(registry.SECTIONS):
        values = _load()
        cache.set(key, values, CACHE_SECONDS)
    return values


def get_section(name: str) -> dict:
    """One section's values; 404 settings_section_not_found for an unknown name."""
    if registry.get(name) is None:
        raise not_found("settings_section", name)
    return dict(get_all()[name])


def get_value(section: str, key: str):
    return get_all()[section][key]


def invalidate() -> None:
    memo_forget(cache_key())
    cache.delete(cache_key())
