"""kombu's Redis channel builds a new redis.Redis for every command it sends outside its event
loop: each publish, and in a worker each delivery's bookkeeping and each acknowledgement. A
redis.Redis costs about 0.1 ms of Python to build (redis-py fills a table of some 170 response
callbacks), a fifth of a publish. It is a thread-safe handle on a connection pool and holds
no connection of its own, so one per channel and pool is kept and reused (common.cache does
the same for Django's cache client). A channel whose pool is replaced (kombu makes a new one
after closing the old) gets a new client with it.

Installed by config.celery in every process that loads the Celery application.
"""

from __future__ import annotations

import functools

from kombu.transport import redis as kombu_redis

_MARK = "_emporion_reused"


def install() -> None:
    """Keep one synchronous client per channel and pool (idempotent)."""
    original = kombu_redis.Channel._create_client
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def _create_client(self, asynchronous=False):
        if asynchronous:
            return original(self, asynchronous=True)
        pool = self.pool
        kept = self.__dict__.get(_MARK)
        if kept is None or kept[0] is not pool:
            kept = (pool, original(self, asynchronous=False))
            self.__dict__[_MARK] = kept
        return kept[1]

    setattr(_create_client, _MARK, True)
    kombu_redis.Channel._create_client = _create_client


def uninstall() -> None:
    """Undo `install` (the tests)."""
    current = kombu_redis.Channel._create_client
    if getattr(current, _MARK, False):
        kombu_redis.Channel._create_client = current.__wrapped__
