"""The Redis cache, best-effort: an unreachable Redis is a cache miss, never an error.

`ResilientRedisCache` is Django's RedisCache with every Redis or socket error caught: a read
answers a miss (its default), a write is dropped, and the failure is logged at WARNING by the
circuit breaker, which then skips Redis for a few seconds (common.breaker) so that a dead or
frozen Redis costs one socket timeout per cooldown per process, not one per call. The socket
timeouts themselves come from OPTIONS (config/settings.py: well under a second).

`incr`/`decr` and `count_in_window` have no neutral answer: on an outage they raise
CacheUnavailable, which callers that count (the throttles) handle. Every other caller sees an
ordinary miss.

`count_in_window` is the rate limits' counter in ONE round trip: a Lua script increments the key,
gives it its expiry on the first hit of a window, and answers the count with the time left (so a
refusal's Retry-After needs no second call).
"""

from __future__ import annotations

import logging
import secrets

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

from common.breaker import breaker

logger = logging.getLogger(__name__)

# Failures that mean "Redis is not answering" (redis-py wraps socket errors in ConnectionError
# and TimeoutError, both RedisErrors; OSError covers what escapes the wrapping).
OUTAGE_ERRORS = (RedisError, OSError)
DEFAULT_BREAKER_SECONDS = 5


class CacheUnavailable(Exception):
    """Raised by incr/decr while the cache is unreachable."""


# KEYS[1]: the counter; ARGV[1]: the window in milliseconds. Answers {count, ms left}. A key left
# without an expiry (written by something else) is given one rather than counting forever.
COUNT_IN_WINDOW_LUA = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return {count, tonumber(ARGV[1])}
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {count, left}
"""


class ResilientRedisCache(RedisCache):
    def __init__(self, server, params):
        options = dict(params.get("OPTIONS") or {})
        cooldown = options.pop("breaker_seconds", DEFAULT_BREAKER_SECONDS)
        super().__init__(server, {**params, "OPTIONS": options})
        self.breaker = breaker("the Redis cache", cooldown)
        self._count_script = None

    def _guarded(self, operation: str, fallback, *args, **kwargs):
        if not self.breaker.allow():
            logger.debug("cache %s skipped: Redis is unreachable", operation)
            return fallback
        try:
            result = getattr(super(), operation)(*args, **kwargs)
        except OUTAGE_ERRORS as exc:
            self.breaker.failure(exc, during=f"cache {operation}")
            return fallback
        self.breaker.success()
        return result

    def get(self, key, default=None, version=None):
        return self._guarded("get", default, key, default, version)

    def get_many(self, keys, version=None):
        return self._guarded("get_many", {}, keys, version)

    def has_key(self, key, version=None):
        return self._guarded("has_key", False, key, version)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded("add", False, key, value, timeout, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded("set", None, key, value, timeout, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded("set_many", list(data), data, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded("touch", False, key, timeout, version)

    def delete(self, key, version=None):
        return self._guarded("delete", False, key, version)

    def delete_many(self, keys, version=None):
        return self._guarded("delete_many", None, keys, version)

    def clear(self):
        return self._guarded("clear", False)

    def incr(self, key, delta=1, version=None):
        unavailable = object()
        result = self._guarded("incr", unavailable, key, delta, version)
        if result is unavailable:
            raise CacheUnavailable("the cache is unreachable")
        return result

    def count_in_window(self, key, seconds: float, version=None) -> tuple[int, float]:
        """(this hit's number in the window of `seconds` opened by the key's first hit, seconds
        left in the window): INCR + PEXPIRE on the first hit, in one round trip (EVALSHA)."""
        if not self.breaker.allow():
            raise CacheUnavailable("the cache was unreachable moments ago")
        key = self.make_and_validate_key(key, version=version)
        try:
            client = self._cache.get_client(key, write=True)
            if self._count_script is None:  # the SHA, computed once (EVAL only if unknown)
                self._count_script = client.register_script(COUNT_IN_WINDOW_LUA)
            count, left_ms = self._count_script(
                keys=[key], args=[max(1, int(seconds * 1000))], client=client
            )
        except OUTAGE_ERRORS as exc:
            self.breaker.failure(exc, during="cache count_in_window")
            raise CacheUnavailable("the cache is unreachable") from exc
        self.breaker.success()
        return int(count), int(left_ms) / 1000

    def probe(self) -> None:
        """A write and a read, raising on any failure (the health check)."""
        if not self.breaker.allow():
            raise CacheUnavailable("the cache was unreachable moments ago")
        key, value = "healthz:probe", secrets.token_hex(8)
        try:
            super().set(key, value, 10)
            found = super().get(key)
        except OUTAGE_ERRORS as exc:
            self.breaker.failure(exc, during="health probe")
            raise
        self.breaker.success()
        if found != value:
            raise CacheUnavailable("the cache did not return the value written")
