"""What one licence verify costs: one SQL query, no write, and on Redis one round
trip for its rate limit (a Lua script: INCR + PEXPIRE on the window's first hit, answering the
count and the time left, so a refusal's Retry-After needs no second call)."""

import os

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

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


@pytest.mark.parametrize(
    "data",
    [
        {"license_key": "EMP-AAAA", "domain": "shop.example.com"},
        {"license_key": "  EMP-AAAA ", "domain": " https://shop.example.com/x ", "extra": 1},
        {"license_key": "EMP-AAAA", "domain": "a.com", "product": " theme_2-x "},
        {"license_key": "EMP-AAAA", "domain": "a.com", "product": "no slug!"},
        {"license_key": "EMP-AAAA", "domain": "a.com", "product": None},
        {"license_key": "EMP-AAAA", "domain": "a.com", "product": ""},
        {"license_key": "EMP-AAAA", "domain": "   "},
        {"license_key": "", "domain": "a.com"},
        {"license_key": "K" * 100, "domain": "d" * 2000},
        {"license_key": "K" * 101, "domain": "a.com"},
        {"license_key": "EMP-AAAA", "domain": "d" * 2001},
        {"license_key": "EMP\x00AAAA", "domain": "a.com"},
        {"license_key": "EMP-AAAA", "domain": "a\ud800.com"},
        {"license_key": 12345, "domain": "a.com"},
        {"license_key": ["EMP"], "domain": "a.com"},
        {"license_key": "EMP-AAAA"},
        {"license_key": "EMP-AAAA", "domain": True},
        [],
        "text",
    ],
)
def test_the_verify_fast_input_path_answers_as_the_serializer(data):
    """The plain-dict path of a verify's input accepts exactly what DomainInputSerializer
    accepts, with the same values; everything else raises the serializer's own error."""
    from common.api.views import validate_input
    from licensing.api import serializers
    from licensing.api.public_views import _verify_input

    def outcome(function):
        try:
            return "ok", dict(function())
        except Exception as exc:  # noqa: BLE001 - compared, not swallowed
            return type(exc).__name__, str(getattr(exc, "detail", exc))

    expected = outcome(lambda: validate_input(serializers.DomainInputSerializer, data))
    assert outcome(lambda: _verify_input(data)) == expected
