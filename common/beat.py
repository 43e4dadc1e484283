"""A Celery beat that schedules on one process of the whole deployment.

Every worker may run with `--beat` (or several `celery beat` processes may run, one per
machine); each beat's tick first holds or renews a lock in Redis (SET NX PX, renewed by its
holder with a compare-and-set in one Lua call) and only the holder sends the periodic tasks.
When the holder dies, its lock expires within BEAT_LOCK_SECONDS and the next beat to tick
takes over. The schedule lives in memory (celery.beat.Scheduler), not in a shelve file on
local disk: a beat that takes over starts its intervals afresh, which is harmless because
every periodic task is idempotent.

While Redis is unreachable no beat holds the lock and nothing is scheduled; the broker is the
same Redis, so nothing could have been sent anyway, and the outbox keeps the tasks of the
requests made meanwhile.
"""

from __future__ import annotations

import logging
import uuid

from celery.beat import Scheduler
from django.conf import settings

logger = logging.getLogger(__name__)

LOCK_KEY = "emporion:beat:lock"

# KEYS[1] the lock, ARGV[1] our token, ARGV[2] the lease in ms: 1 while we hold it.
HOLD_LUA = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""
# Let go of the lock only if it is still ours.
RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class BeatLock:
    """The lease one beat holds; `hold()` takes or renews it and answers whether it is ours."""

    def __init__(self, url: str, *, seconds: float, key: str = LOCK_KEY) -> None:
        import redis

        self.key = key
        self.lease_ms = max(1, round(seconds * 1000))
        self.token = uuid.uuid4().hex
        self.client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        self._hold = self.client.register_script(HOLD_LUA)
        self._release = self.client.register_script(RELEASE_LUA)
        self.held = False

    def hold(self) -> bool:
        try:
            held = bool(self._hold(keys=[self.key], args=[self.token, self.lease_ms]))
        except Exception as exc:  # noqa: BLE001 - Redis down: nobody schedules
            if self.held:
                logger.warning("beat: lost the schedule lock (Redis unreachable): %s", exc)
            held = False
        if held != self.held:
            logger.info("beat: %s the schedule lock", "took" if held else "does not hold")
        self.held = held
        return held

    def release(self) -> None:
        try:
            self._release(keys=[self.key], args=[self.token])
        except Exception as exc:  # noqa: BLE001 - it expires by itself
            logger.warning("beat: could not release the schedule lock: %s", exc)
        self.held = False


class LockedScheduler(Scheduler):
    """celery.beat.Scheduler that sends only while it holds the deployment's beat lock."""

    lock_key = LOCK_KEY

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        seconds = int(getattr(settings, "BEAT_LOCK_SECONDS", 30))
        self.lock = BeatLock(self.app.conf.broker_url, seconds=seconds, key=self.lock_key)
        # Come back well within the lease, to renew it before it runs out.
        self.max_interval = min(self.max_interval, max(1, seconds // 3))

    def tick(self, *args, **kwargs) -> float:
        if not self.lock.hold():
            return self.max_interval
        return super().tick(*args, **kwargs)

    def close(self) -> None:
        self.lock.release()
        super().close()
