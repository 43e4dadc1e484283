"""Redis, the cache, Celery (broker, queues, routes), the beat and the outbox."""

from __future__ import annotations

from kombu import Queue

from config.env import env_int, env_str
from config.settings.base import VAR_DIR

# Redis (cache and broker) is best-effort; the database is the truth. Redis answers in well under
# a millisecond, so an answer slower than these timeouts means it is down or frozen: the cache
# then answers misses and drops writes, and publishing falls back to the outbox (common.outbox).
# After a failure each is skipped for REDIS_BREAKER_SECONDS, so an outage costs one timeout per
# process every few seconds, not one per call.
REDIS_URL = env_str("REDIS_URL")
CACHE_SOCKET_TIMEOUT = env_int("CACHE_SOCKET_TIMEOUT_MS", 250, minimum=10) / 1000
BROKER_SOCKET_TIMEOUT = env_int("BROKER_SOCKET_TIMEOUT_MS", 500, minimum=10) / 1000
REDIS_BREAKER_SECONDS = env_int("REDIS_BREAKER_SECONDS", 5, minimum=1)
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "common.cache.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "emporion",
            "OPTIONS": {
                "socket_connect_timeout": CACHE_SOCKET_TIMEOUT,
                "socket_timeout": CACHE_SOCKET_TIMEOUT,
                "breaker_seconds": REDIS_BREAKER_SECONDS,
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Celery -----------------------------------------------------------------------------------

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300, minimum=1)
# No countdown may be longer than this; long waits live in the database instead.
_VISIBILITY_TIMEOUT = 3600
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": _VISIBILITY_TIMEOUT,
    "socket_connect_timeout": BROKER_SOCKET_TIMEOUT,
    "socket_timeout": BROKER_SOCKET_TIMEOUT,
}
CELERY_BROKER_CONNECTION_TIMEOUT = BROKER_SOCKET_TIMEOUT
# An outbox row sent and not acknowledged by a worker this long after it was due is sent again
# (the broker lost its message: Redis restarted empty). Longer than the visibility timeout, so
# that a message Redis still holds is redelivered by Redis first (common.outbox).
OUTBOX_REDELIVER_SECONDS = env_int(
    "OUTBOX_REDELIVER_SECONDS",
    _VISIBILITY_TIMEOUT + 300,
    minimum=1,
)
# A worker outlives Redis going down, freezing and coming back (docs/deploy.md, "Faults"): it
# reconnects for as long as it takes, at start too (the default gives up after 100 attempts, some
# 45 minutes, and exits), and lets a task running at the loss finish rather than killing it (its
# message, not acknowledged, runs again after the visibility timeout: every task is idempotent).
# common.celery_fixes guards the kombu fault that made a worker holding messages exit.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = BROKER_SOCKET_TIMEOUT
CELERY_REDIS_SOCKET_TIMEOUT = BROKER_SOCKET_TIMEOUT
# A publish retries once at once, then gives up: the message waits in the outbox, which the
# beat drains (common.outbox), so a request never waits on a dead broker.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.1,
    "interval_max": 0.1,
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_TIMEZONE = "UTC"
# Queues by kind: a worker started without -Q consumes them all (`make worker`); a scaled
# deployment runs workers per queue (docs/deploy.md), so a burst of webhooks cannot delay stock
# releases or e-mails. Tasks not named here go to `celery`.
CELERY_QUEUE_NAMES = ("celery", "webhooks", "stock", "email", "erp")
CELERY_TASK_QUEUES = [Queue(name) for name in CELERY_QUEUE_NAMES]
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "webhooks.*": {"queue": "webhooks"},
    "store_orders.*": {"queue": "stock"},
    "store_checkout.*": {"queue": "stock"},
    "store_coupons.*": {"queue": "stock"},
    "common.send_email": {"queue": "email"},
    "store_emails.*": {"queue": "email"},
    "erp_*": {"queue": "erp"},
}

# --- Beat -------------------------------------------------------------------------------------

# The beat runs wherever `--beat` is given (every `make worker`) but schedules on one process
# only: the holder of a lock in Redis (common.beat), renewed every few seconds, taken over by
# another beat within BEAT_LOCK_SECONDS when its holder dies. No schedule file on local disk.
BEAT_LOCK_SECONDS = env_int("BEAT_LOCK_SECONDS", 30, minimum=5)
if REDIS_URL:
    CELERY_BEAT_SCHEDULER = "common.beat:LockedScheduler"
    CELERY_BEAT_MAX_LOOP_INTERVAL = 5
