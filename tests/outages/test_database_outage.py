"""The database down: /healthz answers 503 at once (the one outage it must fail on)."""

from __future__ import annotations

import pytest
from django.db import OperationalError, connection
from rest_framework.test import APIClient

from tests.outages.conftest import timed

pytestmark = pytest.mark.django_db


@pytest.fixture
def database_down(monkeypatch):
    """Call it to make every use of the connection fail as an unreachable server does."""

    def refuse(*args, **kwargs):
        raise OperationalError(
            'connection to server at "127.0.0.1", port 5432 failed: Connection refused'
        )

    def go_down() -> None:
        assert APIClient().get("/healthz").status_code == 200  # up, and warmed up
        monkeypatch.setattr(connection, "ensure_connection", refuse)

    return go_down


def test_healthz_answers_503_when_the_database_is_down(database_down):
    database_down()
    with timed() as elapsed:
        response = APIClient().get("/healthz")
    assert elapsed() < 1.0
    assert response.status_code == 503
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert body["status"] == "down"
    assert body["checks"]["database"] == {"status": "down", "error": "OperationalError"}
    assert body["checks"]["worker"] == {"status": "unknown"}
    assert body["checks"]["outbox"] == {"status": "unknown"}
    assert body["checks"]["cache"]["status"] == "up"  # reported all the same


def test_healthz_answers_503_with_redis_out_as_well(database_down, redis_broker):
    database_down()
    redis_broker.freeze()
    with timed() as elapsed:
        response = APIClient().get("/healthz")
    assert elapsed() < 2.5
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert {name: check["status"] for name, check in checks.items()} == {
        "database": "down",
        "cache": "down",
        "broker": "down",
        "worker": "unknown",
        "outbox": "unknown",
    }
