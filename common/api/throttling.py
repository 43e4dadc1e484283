"""Rate limits on the Django cache (Redis in production, local memory otherwise).

A view names its `throttle_scope`; the rate comes from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"].
Requests are counted per account when the caller is authenticated and per client address
otherwise (the address is REMOTE_ADDR, or the X-Forwarded-For hop that NUM_PROXIES trusts).

The window opens at the first counted request and lasts the rate's period; the counter is
incremented atomically, so concurrent requests cannot slip past the limit the way a
read-modify-write history list can. On Redis (common.cache.ResilientRedisCache) a request costs
ONE round trip: a Lua script increments the counter, sets its expiry on the window's first hit
and answers the time left, which a refusal's Retry-After uses. Other caches (local memory in
development and the tests on SQLite) use cache.add + cache.incr and a start-time key.

A view may name, in `throttle_reads()`, the cache keys its hot path reads; on Redis they are
read by the same script (MGET) and kept on the request for the view (`prefetched`), so a
rate-limited hot path costs one Redis round trip in all.

Every counted request leaves its standing on the Django request (`note_limit`), and
common.middleware.RateLimitHeadersMiddleware answers it in the IETF draft's headers:
`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds until the window closes)
and `RateLimit-Policy` (`<limit>;w=<window seconds>`); with several limits on one request the
one with the fewest requests left is shown. A 429 also carries Retry-After.

While the cache is unreachable the limits fail open: the request is let through and a warning
is logged. A limit is a defence against abuse, not a rule of the data; refusing every login
because Redis is down would turn a cache outage into a full outage.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from common.cache import CacheUnavailable

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Standing:
    """Where a caller stands against one limit."""

    limit: int
    remaining: int
    reset: int  # seconds until the window closes
    window: int  # the window's length in seconds

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset),
            "RateLimit-Policy": f"{self.limit};w={self.window}",
        }


ATTRIBUTE = "rate_limit_standing"
# Where a rate-limited request keeps the cache values read with its count: (keys read, found).
PREFETCHED = "cache_prefetched"


def prefetched(request, keys) -> dict | None:
    """The values of `keys` read with the request's rate-limit count (missing keys absent), or
    None when they were not all read that way (no limit counted on Redis, or other keys)."""
    target = getattr(request, "_request", request)
    kept = getattr(target, PREFETCHED, None)
    if kept is None or not kept[0].issuperset(keys):
        return None
    return {key: value for key, value in kept[1].items() if key in keys}


def note_limit(request, standing: Standing) -> None:
    """Keep the tightest standing on the (Django) request, for the answer's headers."""
    target = getattr(request, "_request", request)
    kept = getattr(target, ATTRIBUTE, None)
    if kept is None or standing.remaining < kept.remaining:
        setattr(target, ATTRIBUTE, standing)


class ScopedRateThrottle(SimpleRateThrottle):
    scope_attr = "throttle_scope"

    def __init__(self) -> None:  # the rate is known only once the view is
        self._wait: float | None = None
        self._left: float | None = None

    def identity(self, request) -> str:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            return f"account:{user.pk}"
        return f"address:{self.get_ident(request)}"

    def allow_request(self, request, view) -> bool:
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        if self.num_requests is None:
            return True

        key = f"throttle:{self.scope}:{self.identity(request)}"
        now = self.timer()
        reads = getattr(view, "throttle_reads", None)
        try:
            count = self._count(key, now, request, reads() if reads is not None else ())
        except CacheUnavailable:
            logger.warning(
                "rate limit %r not enforced for %s: the cache is unreachable",
                self.scope,
                request.path,
            )
            return True
        if self._left is not None:
            left = self._left
        else:
            left = self.cache.get(f"{key}:start", now) + self.duration - now
        note_limit(
            request,
            Standing(
                limit=self.num_requests,
                remaining=max(0, self.num_requests - count),
                reset=max(0, math.ceil(left)),
                window=int(self.duration),
            ),
        )
        if count <= self.num_requests:
            return True
        self._wait = max(1.0, left)
        return False

    def _count(self, key: str, now: float, request, reads) -> int:
        """This request's number in the current window (opening one if none is open). On Redis
        the cache keys `reads` are read in the same round trip and kept on the request
        (`prefetched`)."""
        count_in_window = getattr(self.cache, "count_in_window", None)
        if count_in_window is not None:  # Redis: one round trip, the time left included
            count, self._left, found = count_in_window(key, self.duration, read=reads)
            if reads:
                target = getattr(request, "_request", request)
                setattr(target, PREFETCHED, (frozenset(reads), found))
            return count
        self.cache.add(f"{key}:start", now, self.duration)
        self.cache.add(key, 0, self.duration)
        try:
            return self.cache.incr(key)
        except ValueError:  # the window closed between add and incr
            self.cache.set(f"{key}:start", now, self.duration)
            self.cache.set(key, 1, self.duration)
            return 1

    def get_rate(self) -> str:
        # Read at request time (the base class binds the rates at import).
        try:
            return api_settings.DEFAULT_THROTTLE_RATES[self.scope]
        except KeyError:
            raise ImproperlyConfigured(
                f"No throttle rate set for the {self.scope!r} scope."
            ) from None

    def wait(self) -> float | None:
        return self._wait

    def get_cache_key(self, request, view) -> str:  # required by the base class
        return f"throttle:{self.scope}:{self.identity(request)}"


def caller_identity(request) -> str:
    """`account:<id>` for an authenticated caller, else `address:<client address>`."""
    return ScopedRateThrottle().identity(request)
