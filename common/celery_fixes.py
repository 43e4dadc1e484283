"""Two patches of kombu's Redis channel (5.7.0): a guard for a fault, installed in every worker
at start (config.celery), and one Redis client per channel (below, "One client per channel").

When the worker loses Redis, Celery's consumer (`on_connection_error_after_connected`) calls
`connection.collect()`, which tries to close the task channel and then detaches the transport
from the connection (`transport.client = None`), and closes the connection again. Closing the
channel in `collect()` fails half-way while it waits on a BRPOP (nearly always), so the second
close runs the channel's close for real, and a task that ends after the loss is acknowledged on
that channel. Both need a Redis connection pool, which the channel builds from
`transport.client`: restoring the messages the worker holds (a countdown waiting, a running task
under acks_late) and the acknowledgement raise
`AttributeError: 'NoneType' object has no attribute 'hostname'` (or `'client'`), which no
handler expects, and the worker exits ("Unrecoverable error") with its beat.

The guard: a channel whose transport was detached raises Redis' ConnectionError where kombu
raised the AttributeError, so the handlers of connection errors that surround both calls apply
(the close is abandoned, the acknowledgement is logged as failed) and the worker reconnects.
Nothing is lost: the Redis transport keeps every message it hands out in its unacked index until
it is acknowledged, and a worker puts it back in its queue once it is older than the visibility
timeout (CELERY_BROKER_TRANSPORT_OPTIONS); a task that ended while the connection was down runs
again then (every task is idempotent).

The same fault was reported against older kombu (celery/kombu#582: the same `_connparams`
AttributeError from a channel closed after its transport was detached). Remove the guard
(`install`, `uninstall`) and its call in config.celery once kombu stops raising it: a test of
tests/outages/test_worker_redis_outage.py fails then.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError

_MARK = "_emporion_patch"


def _patch(name: str, wrap: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    """Replace kombu's Redis Channel.`name` by `wrap(original)` (idempotent)."""
    original = getattr(kombu_redis.Channel, name)
    if getattr(original, _MARK, False):
        return
    patched = functools.wraps(original)(wrap(original))
    setattr(patched, _MARK, True)
    setattr(kombu_redis.Channel, name, patched)


def _unpatch(name: str) -> None:
    current = getattr(kombu_redis.Channel, name)
    if getattr(current, _MARK, False):
        setattr(kombu_redis.Channel, name, current.__wrapped__)


def transport_detached(channel: Any) -> bool:
    """Whether `channel` was closed or its transport detached from its connection (collected
    or closed): the channel knows no Redis to connect to any more."""
    transport = channel.connection
    return transport is None or transport.client is None


def install() -> None:
    """Guard kombu's Redis Channel._connparams (idempotent)."""

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        def _connparams(self: Any, asynchronous: bool = False) -> Any:
            if transport_detached(self):
                raise RedisConnectionError("the channel's broker connection was closed")
            return original(self, asynchronous=asynchronous)

        return _connparams

    _patch("_connparams", wrap)


def uninstall() -> None:
    """Undo `install` (the tests)."""
    _unpatch("_connparams")


# --- One client per channel -----------------------------------------------------------------
# Not a fault but a cost: kombu's Redis channel builds a new redis.Redis for every command it
# sends outside its event loop: each publish, and in a worker each delivery's bookkeeping and
# each acknowledgement. A redis.Redis costs about 0.1 ms of Python to build (redis-py fills a
# table of some 170 response callbacks), a fifth of a publish. It is a thread-safe handle on a
# connection pool and holds no connection of its own, so one per channel and pool is kept and
# reused (common.cache does the same for Django's cache client). A channel whose pool is
# replaced (kombu makes a new one after closing the old) gets a new client with it. Installed
# by config.celery in every process that loads the Celery application; unlike the guard, it
# stays when kombu is fixed.

_KEPT = "_emporion_client"


def reuse_clients() -> None:
    """Keep one synchronous client per channel and pool (idempotent)."""

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        def _create_client(self: Any, asynchronous: bool = False) -> Any:
            if asynchronous:
                return original(self, asynchronous=True)
            pool = self.pool
            kept = self.__dict__.get(_KEPT)
            if kept is None or kept[0] is not pool:
                kept = self.__dict__[_KEPT] = (pool, original(self, asynchronous=False))
            return kept[1]

        return _create_client

    _patch("_create_client", wrap)


def build_clients() -> None:
    """Undo `reuse_clients` (the tests)."""
    _unpatch("_create_client")
