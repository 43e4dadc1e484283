import pytest
from django.db import OperationalError

pytestmark = pytest.mark.django_db


def test_healthy(api_client):
    response = api_client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert {name: check["status"] for name, check in body["checks"].items()} == {
        "database": "up",
        "cache": "up",
        "broker": "up",
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


def test_cache_down_is_reported_but_not_fatal(api_client, monkeypatch):
    from django.core.cache import cache

    def broken_set(*args, **kwargs):
        raise ConnectionError("cache unreachable")

    monkeypatch.setattr(cache, "set", broken_set)
    response = api_client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["checks"]["cache"]["status"] == "down"


def test_broker_down_is_reported(api_client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = api_client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["checks"]["broker"]["status"] == "down"
