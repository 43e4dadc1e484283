"""The per-receiver cap: at most `WEBHOOK_MAX_IN_FLIGHT` deliveries in flight to one webhook,
across every worker process, so that a slow receiver holds a few workers, never all of them.

A counting semaphore in the cache whose every slot expires, so that a worker that dies holding
one cannot keep it: on Redis (the production cache) one sorted set per webhook, token -> expiry,
pruned, counted and added to in one round trip (a Lua script); a slot that is not given back
lapses SLOT_LEASE after it was taken. Any other cache (the local-memory cache of development
and of the tests) keeps the same table under a lock of the process: a cap per process.

Best effort, like the rate limits: while Redis is unreachable (an error, or its circuit breaker
open: common.cache) there is no cap and every delivery goes; a slot taken before the outage
lapses by itself.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time

from django.conf import settings
from django.core.cache import caches

from common.cache import OUTAGE_ERRORS, ResilientRedisCache

logger = logging.getLogger(__name__)

# Longer than a task holds its slot: one send (the 10 s timeout) started within the batch's
# first second, and the claim before it.
SLOT_LEASE_SECONDS = 30
UNCAPPED = ""  # the token of a delivery that went without a slot (nothing to count in)

# KEYS[1]: the webhook's slots (a sorted set, token -> expiry in ms); ARGV: now in ms, the cap,
# the lease in ms, the new token. Answers 1 when the slot was taken. The key itself expires
# with its newest slot, so a webhook that stops sending leaves nothing behind.
ACQUIRE_LUA = """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""

_script = None
_local_lock = threading.Lock()


def _key(webhook_id: int) -> str:
    return f"webhooks:in-flight:{webhook_id}"


def _now_ms() -> int:
    # The wall clock, shared by the workers' machines (a lease of 30 s absorbs their drift).
    return int(time.time() * 1000)


def acquire(webhook_id: int) -> str | None:
    """Take one of the webhook's slots: its token; UNCAPPED when nothing can count (Redis
    unreachable: go without one); None when the webhook has its cap in flight already."""
    backend = caches["default"]
    cap = settings.WEBHOOK_MAX_IN_FLIGHT
    token = secrets.token_hex(8)
    if isinstance(backend, ResilientRedisCache):
        return _acquire_redis(backend, webhook_id, cap, token)
    with _local_lock:
        now = _now_ms()
        slots = {t: ends for t, ends in (backend.get(_key(webhook_id)) or {}).items() if ends > now}
        if len(slots) >= cap:
            return None
        slots[token] = now + SLOT_LEASE_SECONDS * 1000
        backend.set(_key(webhook_id), slots, SLOT_LEASE_SECONDS)
    return token


def _acquire_redis(
    backend: ResilientRedisCache, webhook_id: int, cap: int, token: str
) -> str | None:
    global _script
    if not backend.breaker.allow():
        return UNCAPPED
    key = backend.make_and_validate_key(_key(webhook_id))
    try:
        client = backend._cache.get_client(key, write=True)
        if _script is None:  # the SHA, computed once (EVAL only when Redis does not know it)
            _script = client.register_script(ACQUIRE_LUA)
        taken = _script(
            keys=[key], args=[_now_ms(), cap, SLOT_LEASE_SECONDS * 1000, token], client=client
        )
    except OUTAGE_ERRORS as exc:
        backend.breaker.failure(exc, during="webhook in-flight cap")
        return UNCAPPED
    backend.breaker.success()
    return token if taken else None


def release(webhook_id: int, token: str | None) -> None:
    """Give the slot back (nothing for UNCAPPED or None); one that cannot be lapses."""
    if not token:
        return
    backend = caches["default"]
    if isinstance(backend, ResilientRedisCache):
        if not backend.breaker.allow():
            return
        key = backend.make_and_validate_key(_key(webhook_id))
        try:
            backend._cache.get_client(key, write=True).zrem(key, token)
        except OUTAGE_ERRORS as exc:
            backend.breaker.failure(exc, during="webhook in-flight cap")
            return
        backend.breaker.success()
        return
    with _local_lock:
        slots = dict(backend.get(_key(webhook_id)) or {})
        if slots.pop(token, None) is not None:
            backend.set(_key(webhook_id), slots, SLOT_LEASE_SECONDS)


def in_flight(webhook_id: int) -> int:
    """How many of the webhook's slots are taken now; 0 when Redis is unreachable."""
    backend = caches["default"]
    now = _now_ms()
    if isinstance(backend, ResilientRedisCache):
        if not backend.breaker.allow():
            return 0
        key = backend.make_and_validate_key(_key(webhook_id))
        try:
            count = backend._cache.get_client(key).zcount(key, f"({now}", "+inf")
        except OUTAGE_ERRORS as exc:
            backend.breaker.failure(exc, during="webhook in-flight cap")
            return 0
        backend.breaker.success()
        return int(count)
    return sum(1 for ends in (backend.get(_key(webhook_id)) or {}).values() if ends > now)
