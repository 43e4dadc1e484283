"""Versioned caches: a write invalidates a whole family of entries by changing its version.

Each family (e.g. the public product lists) keeps a version token in the cache; entries are
keyed by family, version and a digest of the request's arguments. `bump()` replaces the token
at once and again when the surrounding transaction commits, so a reader that saw the old rows
before the commit cannot leave them cached under the new version. Reading a cached entry costs
two cache round trips and no database query.
"""

from __future__ import annotations

import hashlib
import json
import uuid

from django.conf import settings
from django.core.cache import cache
from django.db import transaction


class VersionedCache:
    def __init__(self, family: str) -> None:
        self.family = family
        self._version_key = f"store:{family}:version"

    def version(self) -> str:
        token = cache.get(self._version_key)
        if token is None:
            cache.add(self._version_key, uuid.uuid4().hex, None)
            token = cache.get(self._version_key)
        return token

    def bump(self) -> None:
        cache.set(self._version_key, uuid.uuid4().hex, None)
        transaction.on_commit(lambda: cache.set(self._version_key, uuid.uuid4().hex, None))

    def key(self, args: dict) -> str:
        digest = hashlib.sha256(
            json.dumps(args, sort_keys=True, default=str, separators=(",", ":")).encode()
        ).hexdigest()[:40]
        return f"store:{self.family}:{self.version()}:{digest}"

    def get(self, key: str):
        return cache.get(key)

    def set(self, key: str, value) -> None:
        timeout = settings.STORE_CATALOG_CACHE_SECONDS
        if timeout:
            cache.set(key, value, timeout)
