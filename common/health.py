"""`/healthz`: liveness and readiness, for load balancers and operators.

200 while the database answers; 503 (`status: down`) when it does not. Everything else is
best-effort (the cache, the broker, the worker, the outbox's backlog): a problem there is
reported as `status: degraded` with a 200, because the service still answers requests without
them. Each probe is bounded in time (short socket timeouts; a service skipped by its circuit
breaker is reported down at once), so the answer stays fast while Redis is frozen. The database
is asked from a thread of its own and waited for DATABASE_HEALTH_TIMEOUT_MS at most: a
connection attempt cannot be bounded below 2 s (libpq's least `connect_timeout`), nor a query
to a server that accepts and never answers, and a probe must answer within a load balancer's.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from datetime import timedelta

import redis
from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from common import outbox
from common.api.errors import DATABASE_RETRY_AFTER
from common.cache import CacheUnavailable
from common.models import WorkerHeartbeat

logger = logging.getLogger(__name__)

# The beat's heartbeat runs every 30 s: a worker not seen for this long is reported down.
HEARTBEAT_STALE = timedelta(seconds=90)
# Outbox rows overdue by more than this mean publishing is stuck (broker or beat down).
OUTBOX_STALE = timedelta(minutes=2)


class Unhealthy(Exception):
    """A probe's finding that is not an exception of the service itself."""

    def __init__(self, status: str, detail: dict) -> None:
        super().__init__(status)
        self.status = status
        self.detail = detail


def _check(probe) -> dict:
    started = time.monotonic()
    try:
        detail = probe()
        status = "up"
    except Unhealthy as finding:
        detail, status = finding.detail, finding.status
    except Exception as exc:  # noqa: BLE001 - a health check reports any failure
        logger.warning("health check %s failed: %s", probe.__name__, exc)
        return {"status": "down", "error": exc.__class__.__name__}
    result = {"status": status, "latency_ms": round((time.monotonic() - started) * 1000, 1)}
    result.update(detail or {})
    return result


def _iso(moment) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def _select_one(db) -> dict:
    with db.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"vendor": db.vendor}


class _DatabaseProbe(threading.Thread):
    """`SELECT 1` on the caller's connection (shared with this thread), so that the caller can
    stop waiting. A probe given up on closes that connection when it ends, however late."""

    def __init__(self, db) -> None:
        super().__init__(name="healthz-database", daemon=True)
        self.db = db
        self.lock = threading.Lock()
        self.finished = False
        self.abandoned = False
        self.answer: dict | None = None
        self.error: Exception | None = None

    def run(self) -> None:
        started = time.monotonic()
        try:
            self.answer = _select_one(self.db)
            # its own time, not the caller's wait (the other probes ran meanwhile)
            self.answer["latency_ms"] = round((time.monotonic() - started) * 1000, 1)
        except Exception as exc:  # noqa: BLE001 - handed to the caller, which reports it
            self.error = exc
        finally:
            with self.lock:
                self.finished = True
                if self.abandoned:
                    try:
                        self.db.close()
                    except Exception:  # noqa: BLE001 - a connection already lost
                        logger.debug("closing an abandoned health probe's connection failed")
            self.db.dec_thread_sharing()


def _start_database_probe():
    """Starts asking the database; answers the probe that waits for the answer, until
    DATABASE_HEALTH_TIMEOUT_MS from now at most. The other probes run meanwhile."""
    db = connections[DEFAULT_DB_ALIAS]
    if db.in_atomic_block:
        # A transaction cannot be handed to another thread or abandoned: asked in place.
        def _database() -> dict:
            return _select_one(db)

        return _database

    seconds = settings.DATABASE_HEALTH_TIMEOUT_MS / 1000
    deadline = time.monotonic() + seconds
    probe = _DatabaseProbe(db)
    db.inc_thread_sharing()
    probe.start()

    def _database() -> dict:
        probe.join(max(0.0, deadline - time.monotonic()))
        with probe.lock:
            if not probe.finished:
                # Still connecting or waiting: the probe keeps the connection and closes it
                # when it ends; this thread goes on with a new one.
                probe.abandoned = True
                connections[DEFAULT_DB_ALIAS] = connections.create_connection(DEFAULT_DB_ALIAS)
                raise TimeoutError(f"no answer within {seconds:g} s")
        if probe.error is not None:
            raise probe.error
        return probe.answer

    return _database


def _database() -> dict:
    return _start_database_probe()()


def _cache() -> dict:
    probe = getattr(cache, "probe", None)  # the Redis backend's own (common.cache)
    if probe is not None:
        probe()
    else:
        key, value = "healthz:probe", secrets.token_hex(8)
        cache.set(key, value, 10)
        if cache.get(key) != value:
            raise CacheUnavailable("the cache did not return the value written")
    return {"backend": settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]}


def _broker() -> dict:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"mode": "eager"}
    circuit = outbox.broker_breaker()
    if not circuit.allow():
        raise Unhealthy("down", {"mode": "redis", "error": "unreachable moments ago"})
    client = redis.Redis.from_url(
        settings.CELERY_BROKER_URL,
        socket_connect_timeout=settings.BROKER_SOCKET_TIMEOUT,
        socket_timeout=settings.BROKER_SOCKET_TIMEOUT,
    )
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        circuit.failure(exc, during="health probe")
        raise
    finally:
        client.close()
    circuit.success()
    return {"mode": "redis"}


def _worker() -> dict:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"mode": "eager"}  # tasks run in the web process: there is no worker to see
    beat = WorkerHeartbeat.objects.order_by("-seen_at").first()
    if beat is None:
        raise Unhealthy("down", {"last_seen_at": None, "age_seconds": None})
    age = timezone.now() - beat.seen_at
    detail = {"last_seen_at": _iso(beat.seen_at), "age_seconds": round(age.total_seconds())}
    if age > HEARTBEAT_STALE:
        raise Unhealthy("down", detail)
    return detail


def _outbox() -> dict:
    waiting = outbox.backlog()
    oldest = waiting["oldest_due_at"]
    overdue = max(timezone.now() - oldest, timedelta(0)) if oldest else timedelta(0)
    detail = {
        "waiting": waiting["waiting"],
        "oldest_due_at": _iso(oldest),
        "overdue_seconds": round(overdue.total_seconds()),
    }
    if overdue > OUTBOX_STALE:
        raise Unhealthy("lagging", detail)
    return detail


# Run while the database's probe waits in its thread.
PROBES = {"cache": _cache, "broker": _broker}
# These read the database: not run (reported "unknown") while it is down.
DATABASE_PROBES = {"worker": _worker, "outbox": _outbox}


class HealthView(APIView):
    """Liveness and readiness: 200 while the database answers, 503 when it does not.

    A cache, broker or worker outage, or an outbox backlog, is reported (`status: degraded`)
    but does not fail the probe: the service still answers most requests without them.
    """

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    @extend_schema(exclude=True)
    def get(self, request):
        database = _start_database_probe()
        others = {name: _check(probe) for name, probe in PROBES.items()}
        checks = {"database": _check(database), **others}
        database_up = checks["database"]["status"] == "up"
        for name, probe in DATABASE_PROBES.items():
            checks[name] = _check(probe) if database_up else {"status": "unknown"}
        if not database_up:
            status = "down"
        elif any(check["status"] != "up" for check in checks.values()):
            status = "degraded"
        else:
            status = "ok"
        headers = {"Cache-Control": "no-store"}
        if status == "down":
            headers["Retry-After"] = str(DATABASE_RETRY_AFTER)
        return Response(
            {"status": status, "checks": checks},
            status=503 if status == "down" else 200,
            headers=headers,
        )
