"""`/healthz`: liveness and readiness, for load balancers and operators.

200 while the database answers; 503 (`status: down`) when it does not. Everything else is
best-effort (the cache, the broker, the worker, the outbox's backlog): a problem there is
reported as `status: degraded` with a 200, because the service still answers requests without
them. Each probe is bounded in time (short socket timeouts; a service skipped by its circuit
breaker is reported down at once), so the answer stays fast while Redis is frozen.
"""

from __future__ import annotations

import logging
import secrets
import time
from datetime import timedelta

import redis
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from common import outbox
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


def _database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"vendor": connection.vendor}


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


PROBES = {"database": _database, "cache": _cache, "broker": _broker}
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
        checks = {name: _check(probe) for name, probe in PROBES.items()}
        database_up = checks["database"]["status"] == "up"
        for name, probe in DATABASE_PROBES.items():
            checks[name] = _check(probe) if database_up else {"status": "unknown"}
        if not database_up:
            status = "down"
        elif any(check["status"] != "up" for check in checks.values()):
            status = "degraded"
        else:
            status = "ok"
        return Response(
            {"status": status, "checks": checks},
            status=503 if status == "down" else 200,
            headers={"Cache-Control": "no-store"},
        )
