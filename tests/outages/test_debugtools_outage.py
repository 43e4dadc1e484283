"""The debug namespace with Redis (the cache) stopped or frozen: every route answers, quickly.
Rate limits fail open (js-log still records), the settings are the database's, the caches'
reset reports what it cleared, and diagnostics report the cache down."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from debugtools.models import DebugSettings, LogEntry
from tests.accounts.factories import UserFactory
from tests.debugtools.conftest import BASE, entry
from tests.fixtures.store import basic_auth, grant
from tests.outages.conftest import timed

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.0  # as tests/outages/test_cache_outage.py


@pytest.fixture(params=["stopped", "frozen"])
def admin_during_outage(request, redis_cache):
    admin = APIClient()
    admin.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), "manage_options")))
    entry("before the outage")
    if request.param == "stopped":
        redis_cache.stop()
    else:
        redis_cache.freeze()
    return admin


CALLS = [
    ("get", "entries", None, 200),
    ("get", "stats", None, 200),
    ("get", "settings", None, 200),
    ("put", "settings", {"retention_days": 9}, 200),
    ("get", "download", None, 200),
    ("post", "test", {"message": "during the outage"}, 201),
    ("post", "opcache-reset", {}, 200),
    ("post", "clear", {"level": "critical"}, 200),
]


def test_every_debug_route_answers_with_redis_out(admin_during_outage):
    for method, name, body, status in CALLS:
        with timed() as elapsed:
            if body is None:
                response = getattr(admin_during_outage, method)(f"{BASE}/{name}")
            else:
                response = getattr(admin_during_outage, method)(
                    f"{BASE}/{name}", body, format="json"
                )
        assert response.status_code == status, (name, response.content[:300])
        assert elapsed() < REQUEST_BOUND, (name, elapsed())
    assert DebugSettings.objects.get().retention_days == 9
    assert set(LogEntry.objects.values_list("message", flat=True)) == {
        "before the outage",
        "during the outage",
    }


def test_diagnostics_report_the_cache_down(admin_during_outage):
    with timed() as elapsed:
        response = admin_during_outage.get(f"{BASE}/diagnostics")
    assert response.status_code == 200
    assert elapsed() < REQUEST_BOUND * 2
    body = response.json()
    assert body["database"]["status"] == "up"
    assert body["cache"]["status"] == "down"


def test_js_log_records_while_its_rate_limit_cannot_count(redis_cache):
    redis_cache.stop()
    client = APIClient()
    with timed() as elapsed:
        response = client.post(f"{BASE}/js-log", {"message": "client error"}, format="json")
    assert response.status_code == 202
    assert elapsed() < REQUEST_BOUND
    assert LogEntry.objects.get().message == "client error"
