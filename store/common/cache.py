"""Versioned caches: a write invalidates a whole family of entries by changing its version.

Each family (e.g. the public product lists) keeps a version token in the cache; entries are
keyed by family, version and a digest of the request's arguments. `bump()` replaces the token
at once and again when the surrounding transaction commits, so a reader that saw the old rows
before the commit cannot leave them cached under the new version. Reading a cached entry costs
two cache round trips and no database query.

The cache is best-effort (common.cache): while it is unreachable there is no version token, so
`key()` answers None and callers read uncached. A bump dropped during an outage could leave a
frozen-then-thawed Redis serving old entries; the token therefore lives at most
STORE_CATALOG_CACHE_SECONDS, which bounds that staleness like an entry's own lifetime.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from common.api.throttling import prefetched

# --- Several cache keys in one round trip ------------------------------------------------------

_memo: ContextVar[dict | None] = ContextVar("store_cache_memo", default=None)


@contextmanager
def read_together(keys, *, request=None):
    """Read `keys` from the cache in one round trip (get_many) for the block: `memo_get` then
    answers them from that read, so a hot path that reads several cached entries (the store
    settings, version tokens) pays one round trip for all. With `request`, keys its rate limit
    read already (the view's `throttle_reads`: common.api.throttling.prefetched) cost no round
    trip at all. A key missing from the cache is read again normally; a bump inside the block
    drops its token from the memo."""
    keys = list(keys)
    found = prefetched(request, keys) if request is not None else None
    if found is None:
        found = cache.get_many(keys) if keys else {}
    token = _memo.set(dict(found))
    try:
        yield
    finally:
        _memo.reset(token)


def memo_get(key: str):
    """The cache's value of `key`: from the surrounding `read_together`, else one read."""
    memo = _memo.get()
    if memo is not None and memo.get(key) is not None:
        return memo[key]
    return cache.get(key)


def memo_forget(key: str) -> None:
    memo = _memo.get()
    if memo is not None:
        memo.pop(key, None)


class VersionedCache:
    def __init__(self, family: str) -> None:
        self.family = family
        self._version_key = f"store:{family}:version"

    def version(self) -> str | None:
        """The family's current token; None while the cache is unreachable (read uncached)."""
        token = memo_get(self._version_key)
        if token is None:
            cache.add(self._version_key, uuid.uuid4().hex, _token_lifetime())
            token = cache.get(self._version_key)
        return token

    def version_key(self) -> str:
        return self._version_key

    def bump(self) -> None:
        memo_forget(self._version_key)
        cache.set(self._version_key, uuid.uuid4().hex, _token_lifetime())
        transaction.on_commit(
            lambda: cache.set(self._version_key, uuid.uuid4().hex, _token_lifetime()),
            robust=True,
        )

    def key(self, args: dict) -> str | None:
        """The entry's key under the current version; None: do not use the cache now."""
        version = self.version()
        if version is None:
            return None
        return f"store:{self.family}:{version}:{_digest(args)}"

    def get(self, key: str):
        return cache.get(key)

    def set(self, key: str, value) -> None:
        timeout = settings.STORE_CATALOG_CACHE_SECONDS
        if timeout:
            cache.set(key, value, timeout)

    # An entry kept under a key that does not name the version, stored with the token it was
    # computed under: the token and the entry come in ONE round trip (get_many), and an entry
    # of an older version is ignored. For small entries read on every request (list totals).

    def _tagged_key(self, args: dict) -> str:
        return f"store:{self.family}:tagged:{_digest(args)}"

    def get_tagged(self, args: dict) -> tuple[object | None, str | None]:
        """(the entry for `args` if it was stored under the current version, the current
        version; None while the cache is unreachable: do not store)."""
        key = self._tagged_key(args)
        found = cache.get_many([self._version_key, key])
        version = found.get(self._version_key)
        if version is None:
            return None, self.version()
        entry = found.get(key)
        if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == version:
            return entry[1], version
        return None, version

    def set_tagged(self, args: dict, version: str | None, value) -> None:
        if version is not None:
            self.set(self._tagged_key(args), (version, value))


def _digest(args: dict) -> str:
    text = json.dumps(args, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def _token_lifetime() -> int | None:
    return settings.STORE_CATALOG_CACHE_SECONDS or None


# --- Process-local copies of small versioned entries (cart pricing tables) ---------------------

_copies: dict[str, tuple[str, object, float]] = {}
MAX_COPIES = 256


def cached_copy(family: VersionedCache, name: str, load):
    """`load()`'s value under the family's current version, read through three layers.

    This process's copy while the version is unchanged (one cache round trip, for the version
    token, and nothing to unpickle), else the shared cache's entry, else `load()` (stored in
    both). A write bumps the version, so every process drops its copy on its next read. For
    small, hot, read-mostly entries (shipping zones, tax rates, coupon terms); callers must not
    mutate what they get. A copy also lasts at most STORE_CATALOG_CACHE_SECONDS, like a shared
    entry, which bounds staleness where each process has its own cache (no REDIS_URL).
    """
    version = family.version()
    if version is None:  # the cache is unreachable: read the database, keep nothing
        return load()
    slot = f"{family.family}:{name}"
    now = time.time()
    copy = _copies.get(slot)
    if copy is not None and copy[0] == version and copy[2] > now:
        return copy[1]
    key = f"store:{family.family}:{version}:{name}"
    value = family.get(key)
    if value is None:
        value = load()
        family.set(key, value)
    lifetime = settings.STORE_CATALOG_CACHE_SECONDS
    if lifetime:
        if len(_copies) >= MAX_COPIES:
            _copies.clear()
        _copies[slot] = (version, value, now + lifetime)
    return value
