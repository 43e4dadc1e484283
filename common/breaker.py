"""A small circuit breaker for the best-effort services (the cache and the broker).

After a failure the service is skipped for `cooldown` seconds, so a dead or frozen Redis costs
one socket timeout per cooldown per process instead of one per call. When the cooldown ends, the
next caller probes it (the others keep skipping while it does): a success closes the breaker, a
failure opens it for another cooldown.

State is per process and shared by its threads; breakers are looked up by name, so every cache
backend instance (Django makes one per thread) uses the same one.
"""

from __future__ import annotations

import logging
import threading
import time

logger = logging.getLogger(__name__)

clock = time.monotonic  # the breakers' clock (the tests move it instead of waiting)


class CircuitBreaker:
    def __init__(self, name: str, cooldown: float) -> None:
        self.name = name
        self.cooldown = cooldown
        self._open_until = 0.0  # 0: closed
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        return self._open_until != 0.0

    def allow(self) -> bool:
        """Whether a call may go through now (a closed breaker, or this caller's probe)."""
        if not self._open_until:
            return True
        with self._lock:
            now = clock()
            if not self._open_until:
                return True
            if now < self._open_until:
                return False
            self._open_until = now + self.cooldown  # this caller probes; the others skip
            return True

    def success(self) -> None:
        if not self._open_until:
            return
        with self._lock:
            if self._open_until:
                self._open_until = 0.0
                logger.warning("%s is reachable again", self.name)

    def failure(self, exc: BaseException, *, during: str) -> None:
        with self._lock:
            self._open_until = clock() + self.cooldown
        logger.warning(
            "%s failed: %s is unreachable (%s: %s); carrying on without it for %ss",
            during,
            self.name,
            exc.__class__.__name__,
            exc,
            self.cooldown,
        )

    def reset(self) -> None:
        with self._lock:
            self._open_until = 0.0


_breakers: dict[str, CircuitBreaker] = {}
_registry_lock = threading.Lock()


def breaker(name: str, cooldown: float) -> CircuitBreaker:
    """The process's breaker called `name` (created on first use)."""
    with _registry_lock:
        found = _breakers.get(name)
        if found is None:
            found = _breakers[name] = CircuitBreaker(name, cooldown)
        found.cooldown = cooldown
        return found


def reset_all() -> None:
    """Close every breaker (tests, and after reconfiguring a service)."""
    with _registry_lock:
        for found in _breakers.values():
            found.reset()
