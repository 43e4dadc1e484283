"""What one licence verify costs (issue 11): one SQL query, no write, and on Redis one round
trip for its rate limit (a Lua script: INCR + PEXPIRE on the window's first hit, answering the
count and the time left, so a refusal's Retry-After needs no second call)."""

import os

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from redis.connection import Connection

from tests.licensing.factories import ActivationFactory, LicenseFactory

pytestmark = pytest.mark.django_db

VERIFY = "/api/v1/licenses/verify"
WRITES = ("INSERT", "UPDATE", "DELETE", "SAVEPOINT", "RELEASE")


def verify(client, key, domain="shop.example.com"):
    return client.post(VERIFY, {"license_key": key, "domain": domain}, format="json")


@pytest.mark.parametrize("known", [True, False], ids=["valid", "not_found"])
def test_a_verify_is_one_query_and_writes_nothing(api_client, known, django_assert_num_queries):
    license = LicenseFactory()
    ActivationFactory(license=license, domain="shop.example.com")
    key = license.license_key if known else "EMP-AAAA-AAAA-AAAA-AAAA-AAAA"
    verify(api_client, key)  # whatever is set up once per process is not counted
    with CaptureQueriesContext(connection) as queries, django_assert_num_queries(1):
        response = verify(api_client, key)
    assert response.status_code == 200
    assert response.json()["valid"] is known
    statements = [q["sql"].lstrip().upper() for q in queries.captured_queries]
    assert statements[0].startswith("SELECT")
    assert not [s for s in statements if s.startswith(WRITES)]


@pytest.fixture
def redis_round_trips(monkeypatch):
    """The commands sent to Redis, one entry per round trip (a pipeline is one)."""
    sent: list[bytes] = []
    original = Connection.send_packed_command

    def send(self, command, check_health=True):
        chunks = [command] if isinstance(command, bytes | str) else list(command)
        sent.append(b"".join(c if isinstance(c, bytes) else c.encode() for c in chunks)[:80])
        return original(self, command, check_health)

    monkeypatch.setattr(Connection, "send_packed_command", send)
    return sent


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs a real Redis (REDIS_URL)")
def test_a_verify_costs_one_redis_round_trip_even_when_refused(
    api_client, settings, redis_round_trips
):
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "license_verify": "2/min"},
    }
    license = LicenseFactory()
    ActivationFactory(license=license, domain="shop.example.com")
    assert verify(api_client, license.license_key).status_code == 200  # loads the script
    redis_round_trips.clear()

    assert verify(api_client, license.license_key).status_code == 200
    assert len(redis_round_trips) == 1, redis_round_trips
    assert b"EVALSHA" in redis_round_trips[0].upper()

    redis_round_trips.clear()
    refused = verify(api_client, license.license_key)
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert len(redis_round_trips) == 1, redis_round_trips
