"""A guard for a fault of the installed kombu (5.7.0), installed in every worker at start
(config.celery).

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
AttributeError from a channel closed after its transport was detached). Remove this module and
its call in config.celery once kombu stops raising it: a test of
tests/outages/test_worker_redis_outage.py fails then.
"""

from __future__ import annotations

import functools

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError

_GUARD = "_emporion_guard"


def transport_detached(channel) -> bool:
    """Whether `channel` was closed or its transport detached from its connection (collected
    or closed): the channel knows no Redis to connect to any more."""
    transport = channel.connection
    return transport is None or transport.client is None


def install() -> None:
    """Guard kombu's Redis Channel._connparams (idempotent)."""
    original = kombu_redis.Channel._connparams
    if getattr(original, _GUARD, False):
        return

    @functools.wraps(original)
    def _connparams(self, asynchronous=False):
        if transport_detached(self):
            raise RedisConnectionError("the channel's broker connection was closed")
        return original(self, asynchronous=asynchronous)

    setattr(_connparams, _GUARD, True)
    kombu_redis.Channel._connparams = _connparams


def uninstall() -> None:
    """Undo `install` (the tests)."""
    current = kombu_redis.Channel._connparams
    if getattr(current, _GUARD, False):
        kombu_redis.Channel._connparams = current.__wrapped__
