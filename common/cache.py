"""The Redis cache, best-effort: an unreachable Redis is a cache miss, never an error.

`ResilientRedisCache` is Django's RedisCache with every Redis or socket error caught: a read
answers a miss (its default), a write is dropped, and the failure is logged at WARNING by the
circuit breaker, which then skips Redis for a few seconds (common.breaker) so that a dead or
frozen Redis costs one socket timeout per cooldown per process, not one per call. The socket
timeouts themselves come from OPTIONS (config/settings/cache_and_celery.py: well under a second).

`incr`/`decr` and `count_in_window` have no neutral answer: on an outage they raise
CacheUnavailable, which callers that count (the throttles) handle. Every other caller sees an
ordinary miss.

`count_in_window` is the rate limits' counter in ONE round trip: a Lua script increments the key,
gives it its expiry on the first hit of a window, and answers the count with the time left (so a
refusal's Retry-After needs no second call), and the values of any cache keys the request's
view reads on its hot path (`throttle_reads`), so that such a view pays one round trip in all.

`hash_tokens` / `hash_delete` keep many small text values under one key (a Redis hash): a
hundred fields read, and those missing made, in one script call whose fields travel as one
argument, without the per-key name checks, pickles and argument packing of get_many/set_many
(the catalog's product tokens). Backends without them (the local memory cache of the tests)
are served by the module's `hash_tokens` / `hash_delete`, one key per field.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

from common.breaker import breaker

logger = logging.getLogger(__name__)
T = TypeVar("T")

# Failures that mean "Redis is not answering" (redis-py wraps socket errors in ConnectionError
# and TimeoutError, both RedisErrors; OSError covers what escapes the wrapping).
OUTAGE_ERRORS = (RedisError, OSError)
DEFAULT_BREAKER_SECONDS = 5


class CacheUnavailable(Exception):
    """Raised by incr/decr while the cache is unreachable."""


# KEYS[1]: the counter; ARGV[1]: the window in milliseconds. Answers {count, ms left, values of
# KEYS[2..]} (the reads a hot path asked to ride along: MGET, nil for a missing key). A key left
# without an expiry (written by something else) is given one rather than counting forever.
COUNT_IN_WINDOW_LUA = """
local count = redis.call('INCR', KEYS[1])
local left
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
else
  left = redis.call('PTTL', KEYS[1])
  if left < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    left = tonumber(ARGV[1])
  end
end
local values = {}
if #KEYS > 1 then
  values = redis.call('MGET', unpack(KEYS, 2, #KEYS))
end
return {count, left, values}
"""


# KEYS[1]: a hash; ARGV[1]: field names joined by commas; ARGV[2]: a stamp. Answers the fields'
# values joined by commas, a missing field set first to the stamp and its position.
HASH_TOKENS_LUA = """
local fields = {}
for field in string.gmatch(ARGV[1], '[^,]+') do fields[#fields + 1] = field end
local values = redis.call('HMGET', KEYS[1], unpack(fields))
for i = 1, #fields do
  if not values[i] then
    values[i] = ARGV[2] .. i
    redis.call('HSET', KEYS[1], fields[i], values[i])
  end
end
return table.concat(values, ',')
"""

# KEYS: the keys; ARGV[1]: a lifetime in seconds, ARGV[1 + i]: the value to give KEYS[i] when it
# has none. Answers each key's value, a missing one set first (SET ... EX) to its candidate.
GET_OR_SET_LUA = """
local values = redis.call('MGET', unpack(KEYS))
for i = 1, #KEYS do
  if not values[i] then
    values[i] = ARGV[i + 1]
    redis.call('SET', KEYS[i], values[i], 'EX', ARGV[1])
  end
end
return values
"""


class ReusedClientRedisCacheClient(RedisCacheClient):
    """Django's client builds a new redis.Redis per cache call (about 0.2 ms of Python each:
    it fills a table of ~170 response callbacks). A redis.Redis is only a handle on its
    connection pool and is thread-safe, so one per pool is kept and reused."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)
            client = self._clients[index] = self._client(connection_pool=pool)
        return client


class ResilientRedisCache(RedisCache):
    def __init__(self, server, params):
        options = dict(params.get("OPTIONS") or {})
        cooldown = options.pop("breaker_seconds", DEFAULT_BREAKER_SECONDS)
        super().__init__(server, {**params, "OPTIONS": options})
        self._class = ReusedClientRedisCacheClient
        self.breaker = breaker("the Redis cache", cooldown)
        self._count_script = None
        self._tokens_script = None
        self._get_or_set_script = None

    def _guarded(self, operation: str, fallback, *args, **kwargs):
        method = getattr(super(), operation)
        return self._call(operation, fallback, lambda: method(*args, **kwargs))

    def _call(self, operation: str, fallback: T, call: Callable[[], T]) -> T:
        """`call()`, or `fallback` while Redis is unreachable (the breaker counts)."""
        if not self.breaker.allow():
            logger.debug("cache %s skipped: Redis is unreachable", operation)
            return fallback
        try:
            result = call()
        except OUTAGE_ERRORS as exc:
            self.breaker.failure(exc, during=f"cache {operation}")
            return fallback
        self.breaker.success()
        return result

    def hash_tokens(
        self, key: str, fields: list[str], stamp: str, version: int | None = None
    ) -> list[str]:
        """The values of `fields` in the hash `key`, those missing set first to `stamp` and
        their position (one EVALSHA: the fields go as one argument, the values come back as
        one string). [] while Redis is unreachable."""
        if not fields:
            return []
        name = self.make_and_validate_key(key, version=version)

        def run() -> list[str]:
            client = self._cache.get_client(name, write=True)
            if self._tokens_script is None:
                self._tokens_script = client.register_script(HASH_TOKENS_LUA)
            joined = self._tokens_script(keys=[name], args=[",".join(fields), stamp], client=client)
            return str(joined.decode()).split(",")

        return self._call("hash_tokens", [], run)

    def get_or_set_many(self, candidates: dict[str, Any], timeout: int) -> dict[str, Any]:
        """Each key's value, those missing set first to their candidate for `timeout` seconds,
        in one round trip (one EVALSHA). {} while Redis is unreachable."""
        if not candidates:
            return {}
        names = {self.make_and_validate_key(key): key for key in candidates}
        serializer = getattr(self._cache, "_serializer")  # noqa: B009 - Django's private client attribute

        def run() -> dict[str, Any]:
            client = self._cache.get_client(None, write=True)
            if self._get_or_set_script is None:
                self._get_or_set_script = client.register_script(GET_OR_SET_LUA)
            values = self._get_or_set_script(
                keys=list(names),
                args=[int(timeout), *(serializer.dumps(v) for v in candidates.values())],
                client=client,
            )
            return {
                key: serializer.loads(value)
                for key, value in zip(names.values(), values, strict=True)
            }

        return self._call("get_or_set_many", {}, run)

    def hash_delete(self, key: str, fields: Iterable[str], version: int | None = None) -> None:
        """Remove fields of the hash `key` (HDEL); dropped on an outage."""
        names = list(fields)
        if names:
            name = self.make_and_validate_key(key, version=version)
            client = self._cache.get_client(name, write=True)
            self._call("hash_delete", None, lambda: client.hdel(name, *names))

    def set_many_hash_delete(
        self, data: dict[str, Any], timeout: Any, key: str, fields: Iterable[str]
    ) -> None:
        """set_many(data, timeout) and hash_delete(key, fields) in one round trip (a pipeline
        of SET ... EX and HDEL, not a transaction: each write stands on its own, as the two
        calls' did); dropped on an outage."""
        names = list(fields)
        timeout = self.get_backend_timeout(timeout)
        seconds = None if timeout is None else int(timeout)
        dumps = getattr(self._cache, "_serializer").dumps  # noqa: B009 - Django's private client attribute
        items = [(self.make_and_validate_key(k), dumps(v)) for k, v in data.items()]
        name = self.make_and_validate_key(key)

        def run() -> None:
            pipe = self._cache.get_client(name, write=True).pipeline(transaction=False)
            for item_key, value in items:
                if seconds is None:
                    pipe.set(item_key, value)
                elif seconds > 0:
                    pipe.set(item_key, value, ex=seconds)
                else:
                    pipe.delete(item_key)
            if names:
                pipe.hdel(name, *names)
            pipe.execute()

        self._call("set_many_hash_delete", None, run)

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

    def count_in_window(
        self, key, seconds: float, version=None, *, read=()
    ) -> tuple[int, float, dict]:
        """(this hit's number in the window of `seconds` opened by the key's first hit, seconds
        left in the window, the values of the keys `read` found in the cache): INCR + PEXPIRE on
        the first hit and an MGET of `read`, in one round trip (EVALSHA). A hot path that is
        rate-limited gets its cache reads with the count, for no extra round trip."""
        if not self.breaker.allow():
            raise CacheUnavailable("the cache was unreachable moments ago")
        read = list(read)
        made = [self.make_and_validate_key(name, version=version) for name in read]
        key = self.make_and_validate_key(key, version=version)
        try:
            client = self._cache.get_client(key, write=True)
            if self._count_script is None:  # the SHA, computed once (EVAL only if unknown)
                self._count_script = client.register_script(COUNT_IN_WINDOW_LUA)
            count, left_ms, values = self._count_script(
                keys=[key, *made], args=[max(1, int(seconds * 1000))], client=client
            )
        except OUTAGE_ERRORS as exc:
            self.breaker.failure(exc, during="cache count_in_window")
            raise CacheUnavailable("the cache is unreachable") from exc
        self.breaker.success()
        loads = self._cache._serializer.loads
        found = {
            name: loads(value)
            for name, value in zip(read, values or [], strict=False)
            if value is not None
        }
        return int(count), int(left_ms) / 1000, found

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


# --- Hashes on any backend ----------------------------------------------------------------------


def _field_key(key: str, field: str) -> str:
    return f"{key}:{field}"


def hash_tokens(backend: Any, key: str, fields: list[str], stamp: str) -> list[str]:
    """`backend.hash_tokens` where the backend has it (Redis), else one key per field (the
    fields' values must not hold commas)."""
    if isinstance(backend, ResilientRedisCache):
        return backend.hash_tokens(key, fields, stamp)
    keys = [_field_key(key, field) for field in fields]
    found = backend.get_many(keys)
    made = {k: f"{stamp}{i}" for i, k in enumerate(keys, 1) if k not in found}
    if made:
        backend.set_many(made, None)
    return [found.get(k) or made[k] for k in keys]


def get_or_set_many(backend: Any, candidates: dict[str, Any], timeout: int) -> dict[str, Any]:
    """`backend.get_or_set_many` where the backend has it (Redis: one round trip), else a read
    and a write of what was missing. {} (nothing known) while the cache is unreachable."""
    if isinstance(backend, ResilientRedisCache):
        return backend.get_or_set_many(candidates, timeout)
    found = backend.get_many(list(candidates))
    missing = {key: value for key, value in candidates.items() if key not in found}
    if missing:
        backend.set_many(missing, timeout)
    return {**missing, **found}


def set_many_hash_delete(
    backend: Any, data: dict[str, Any], timeout: Any, key: str, fields: Iterable[str]
) -> None:
    """`backend.set_many(data, timeout)` and `hash_delete(backend, key, fields)`: one round
    trip on Redis."""
    if isinstance(backend, ResilientRedisCache):
        backend.set_many_hash_delete(data, timeout, key, fields)
        return
    backend.set_many(data, timeout)
    hash_delete(backend, key, fields)


def hash_delete(backend: Any, key: str, fields: Iterable[str]) -> None:
    if isinstance(backend, ResilientRedisCache):
        backend.hash_delete(key, fields)
    else:
        backend.delete_many([_field_key(key, field) for field in fields])
