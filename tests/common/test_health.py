import socket
from datetime import timedelta

import pytest
import time_machine
from django.core.cache import caches
from django.db import OperationalError
from django.utils import timezone

from common.models import OutboxMessage, WorkerHeartbeat
from common.tasks import heartbeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def worker_seen():
    """A worker ran the heartbeat just now (only looked at when tasks go to a broker)."""
    return WorkerHeartbeat.objects.create(hostname="celery@web-1", seen_at=timezone.now())


@pytest.fixture
def with_a_broker(settings):
    """Tasks go to a broker (a stand-in that answers the probe), so a worker is expected."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"


def test_healthy(api_client, worker_seen):
    response = api_client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok", body
    assert {name: check["status"] for name, check in body["checks"].items()} == {
        "database": "up",
        "cache": "up",
        "broker": "up",
        "worker": "up",
        "outbox": "up",
    }
    assert body["checks"]["outbox"] == {
        "status": "up",
        "latency_ms": body["checks"]["outbox"]["latency_ms"],
        "waiting": 0,
        "oldest_due_at": None,
        "overdue_seconds": 0,
    }
    assert response["Cache-Control"] == "no-store"


def test_database_down_is_503(api_client, monkeypatch):
    from django.db import connection

    def broken_cursor(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", broken_cursor)
    response = api_client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["status"] == "down"
    assert response.json()["checks"]["database"] == {"status": "down", "error": "OperationalError"}
    # What is read from the database is not probed while it is down.
    assert response.json()["checks"]["worker"] == {"status": "unknown"}
    assert response.json()["checks"]["outbox"] == {"status": "unknown"}


def test_cache_down_is_reported_but_not_fatal(api_client, monkeypatch, settings):
    # The local-memory cache, broken by hand (tests/outages stop a real Redis).
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

    def broken_set(*args, **kwargs):
        raise ConnectionError("cache unreachable")

    monkeypatch.setattr(caches["default"], "set", broken_set)
    response = api_client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["checks"]["cache"]["status"] == "down"


def test_broker_down_is_reported(api_client, with_a_broker):
    response = api_client.get("/healthz")  # nothing listens on port 1
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["checks"]["broker"]["status"] == "down"


def test_without_a_broker_there_is_no_worker_to_see(api_client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    checks = api_client.get("/healthz").json()["checks"]
    assert checks["broker"]["mode"] == "eager"
    assert checks["worker"]["status"] == "up"
    assert checks["worker"]["mode"] == "eager"


def test_a_worker_never_seen_is_down(api_client, with_a_broker):
    response = api_client.get("/healthz")
    assert response.status_code == 200
    worker = response.json()["checks"]["worker"]
    assert (worker["status"], worker["last_seen_at"], worker["age_seconds"]) == ("down", None, None)


def test_the_worker_is_up_while_its_heartbeat_is_recent(api_client, with_a_broker):
    seen = timezone.now().replace(microsecond=0)
    WorkerHeartbeat.objects.create(hostname="celery@a", seen_at=seen - timedelta(hours=1))
    WorkerHeartbeat.objects.create(hostname="celery@b", seen_at=seen)
    with time_machine.travel(seen + timedelta(seconds=45), tick=False):
        worker = api_client.get("/healthz").json()["checks"]["worker"]
    assert worker["status"] == "up"
    assert worker["last_seen_at"] == seen.isoformat().replace("+00:00", "Z")
    assert worker["age_seconds"] == 45
    with time_machine.travel(seen + timedelta(seconds=91), tick=False):
        worker = api_client.get("/healthz").json()["checks"]["worker"]
    assert (worker["status"], worker["age_seconds"]) == ("down", 91)


def test_the_heartbeat_task_records_the_worker():
    heartbeat.apply()
    first = WorkerHeartbeat.objects.get()
    assert first.hostname == socket.gethostname()  # a worker's own name, e.g. celery@host
    assert timezone.now() - first.seen_at < timedelta(seconds=5)
    with time_machine.travel(timezone.now() + timedelta(seconds=30)):
        heartbeat.apply()
    assert WorkerHeartbeat.objects.get().seen_at > first.seen_at  # one row per worker


def test_an_outbox_backlog_is_reported(api_client, worker_seen):
    due = timezone.now().replace(microsecond=0) - timedelta(minutes=3)
    OutboxMessage.objects.create(task="common.ping", payload=b"", due_at=due)
    OutboxMessage.objects.create(task="common.ping", payload=b"", due_at=timezone.now())
    OutboxMessage.objects.create(task="common.ping", payload=b"", sent_at=timezone.now())
    response = api_client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    backlog = response.json()["checks"]["outbox"]
    assert backlog["status"] == "lagging"
    assert backlog["waiting"] == 2
    assert backlog["oldest_due_at"] == due.isoformat().replace("+00:00", "Z")
    assert 180 <= backlog["overdue_seconds"] < 200


def test_a_recent_backlog_is_not_a_problem(api_client, worker_seen):
    OutboxMessage.objects.create(task="common.ping", payload=b"")
    backlog = api_client.get("/healthz").json()["checks"]["outbox"]
    assert (backlog["status"], backlog["waiting"]) == ("up", 1)
