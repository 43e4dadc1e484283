"""Redis (the cache) stopped or frozen: every route keeps answering, quickly.

The cache is our own Redis (tests/outages/conftest.py). Stopped, connections are refused at
once; frozen (SIGSTOP), they are accepted and never answered, which only a socket timeout ends.
Either way a request may pay one short timeout before the circuit breaker skips Redis; none
answers 500, none waits seconds.
"""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.core.cache import cache, caches
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from common import breaker
from common import cache as common_cache
from common.cache import CacheUnavailable
from store.catalog.models import Product
from store.settings import selectors as settings_selectors
from store.settings import services as settings_services
from store.settings.models import SettingsSection
from tests.accounts.factories import PASSWORD, UserFactory
from tests.fixtures.store import API
from tests.licensing.factories import ActivationFactory, LicenseFactory
from tests.outages.conftest import redis_cache_settings, timed
from tests.store.cart.helpers import add
from tests.store.checkout.helpers import Shop, complete, started

pytestmark = pytest.mark.django_db

# One request may pay one cache timeout (CACHE_SOCKET_TIMEOUT, 0.25 s) before the breaker
# skips Redis; the rest is the request's own work. Generous for a loaded test machine, far
# below what a missing timeout costs (forever, frozen) or the default retries (seconds).
REQUEST_BOUND = 2.0

LOGIN = "/api/v1/portal/auth/login"
REFRESH = "/api/v1/portal/auth/refresh"
VERIFY = "/api/v1/licenses/verify"


@pytest.fixture(params=["stopped", "frozen"])
def outage(request, redis_cache):
    """Begins the outage of the kind named by the parameter."""

    def begin() -> None:
        if request.param == "stopped":
            redis_cache.stop()
        else:
            redis_cache.freeze()

    return begin


def _timed_call(call):
    with timed() as elapsed:
        response = call()
    return response, elapsed()


def test_every_route_answers_while_redis_is_out(outage, caplog):
    user = UserFactory(email="dev@example.com")
    licence = LicenseFactory(owner=user)
    ActivationFactory(license=licence, domain="shop.example.com")
    shop = Shop()
    portal = APIClient()
    shopper = APIClient()
    # Redis up: the catalog list and the store settings are cached, throttles count there.
    assert shopper.get(f"{API}/products").status_code == 200
    assert cache.get(settings_selectors.cache_key()) is not None

    outage()
    caplog.set_level(logging.WARNING)
    calls = {
        "login": lambda: portal.post(
            LOGIN, {"email": user.email, "password": PASSWORD}, format="json"
        ),
        "verify": lambda: portal.post(
            VERIFY, {"license_key": licence.license_key, "domain": "shop.example.com"}
        ),
        "catalog list": lambda: shopper.get(f"{API}/products"),
        "catalog item": lambda: shopper.get(f"{API}/products/{shop.lamp.pk}"),
        "cart add": lambda: add(shopper, shop.lamp.pk, 2),
    }
    answers = {}
    for name, call in calls.items():
        response, seconds = _timed_call(call)
        assert response.status_code == 200, (name, response.content)
        assert seconds < REQUEST_BOUND, (name, seconds)
        answers[name] = response.json()

    refresh, seconds = _timed_call(
        lambda: portal.post(
            REFRESH, {"refresh_token": answers["login"]["refresh_token"]}, format="json"
        )
    )
    assert refresh.status_code == 200, refresh.content
    assert seconds < REQUEST_BOUND
    assert answers["verify"]["valid"] is True
    assert {p["sku"] for p in answers["catalog list"]["data"]} == {"LAMP", "MUG"}
    assert answers["catalog item"]["sku"] == "LAMP"

    with timed() as elapsed:
        checkout = started(shopper, shop, lamps=0, mugs=1)
    assert elapsed() < REQUEST_BOUND
    placed, seconds = _timed_call(lambda: complete(shopper, checkout["id"]))
    assert placed.status_code == 200, placed.content
    assert seconds < REQUEST_BOUND
    assert placed.json()["payment_status"] == "paid"
    assert shop.stock() == 3  # 5, less the 2 lamps ordered

    # The outage was logged, as a warning, by the cache's breaker and the throttles.
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("the Redis cache is unreachable" in m for m in messages)
    assert any("rate limit 'login' not enforced" in m for m in messages)


def test_a_dead_redis_costs_one_timeout_per_cooldown_not_one_per_call(redis_cache):
    redis_cache.freeze()
    with timed() as elapsed:
        results = [cache.get(f"key-{n}") for n in range(50)]
        cache.set("written", 1)
        cache.delete("written")
    assert results == [None] * 50
    # 52 calls, one real attempt: one socket timeout (0.25 s), not 52 of them (13 s).
    assert elapsed() < settings.CACHE_SOCKET_TIMEOUT * 3
    with pytest.raises(CacheUnavailable):
        cache.incr("counter")


def test_hash_tokens_are_made_once_and_answer_nothing_while_redis_is_out(redis_cache):
    """The catalog's token hash (one script call) is as best-effort as every other call."""
    backend = caches["default"]
    assert common_cache.hash_tokens(backend, "h", ["1", "2"], "s.") == ["s.1", "s.2"]
    assert common_cache.hash_tokens(backend, "h", ["2", "3"], "t.") == ["s.2", "t.2"]
    common_cache.hash_delete(backend, "h", ["2"])
    assert common_cache.hash_tokens(backend, "h", ["1", "2"], "u.") == ["s.1", "u.2"]
    redis_cache.freeze()
    with timed() as elapsed:
        assert common_cache.hash_tokens(backend, "h", ["1"], "v.") == []
        common_cache.hash_delete(backend, "h", ["1"])
    assert elapsed() < settings.CACHE_SOCKET_TIMEOUT * 3


def test_set_many_and_hash_delete_in_one_call_and_dropped_while_redis_is_out(redis_cache):
    """The catalog's bump: new tokens (with their lifetime) and the listed fields' deletion."""
    backend = caches["default"]
    common_cache.hash_tokens(backend, "h", ["1", "2"], "s.")
    common_cache.set_many_hash_delete(backend, {"a": "x", "b": 2}, 60, "h", ["2"])
    assert cache.get_many(["a", "b"]) == {"a": "x", "b": 2}
    client = backend._cache.get_client(None)
    assert 0 < client.ttl(backend.make_and_validate_key("a")) <= 60
    assert common_cache.hash_tokens(backend, "h", ["1", "2"], "t.") == ["s.1", "t.2"]
    common_cache.set_many_hash_delete(backend, {"c": 1}, None, "h", [])
    assert client.ttl(backend.make_and_validate_key("c")) == -1  # no lifetime: kept
    redis_cache.freeze()
    with timed() as elapsed:
        common_cache.set_many_hash_delete(backend, {"a": "y"}, 60, "h", ["1"])
    assert elapsed() < settings.CACHE_SOCKET_TIMEOUT * 3


def test_set_many_and_hash_delete_without_redis_writes_the_backend(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    backend = caches["default"]
    common_cache.hash_tokens(backend, "h", ["1", "2"], "s.")
    common_cache.set_many_hash_delete(backend, {"a": 1}, 60, "h", ["1"])
    assert backend.get("a") == 1
    assert common_cache.hash_tokens(backend, "h", ["1", "2"], "t.") == ["t.1", "s.2"]


def test_get_or_set_many_reads_and_fills_in_one_call_and_answers_nothing_while_out(redis_cache):
    """The catalog's single-read tokens: read, and the missing set, by one script call."""
    backend = caches["default"]
    cache.set("a", "kept")
    assert common_cache.get_or_set_many(backend, {"a": "new-a", "b": 7}, 60) == {
        "a": "kept",
        "b": 7,
    }
    assert cache.get("b") == 7  # set, with Django's serialization (ints stay ints)
    client = backend._cache.get_client(None)
    assert 0 < client.ttl(backend.make_and_validate_key("b")) <= 60
    assert common_cache.get_or_set_many(backend, {"b": 8}, 60) == {"b": 7}
    redis_cache.freeze()
    with timed() as elapsed:
        assert common_cache.get_or_set_many(backend, {"c": "x"}, 60) == {}
    assert elapsed() < settings.CACHE_SOCKET_TIMEOUT * 3


def test_get_or_set_many_without_redis_reads_and_writes_the_backend(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    backend = caches["default"]
    backend.set("a", "kept")
    assert common_cache.get_or_set_many(backend, {"a": "new", "b": "made"}, 60) == {
        "a": "kept",
        "b": "made",
    }
    assert backend.get("b") == "made"


def quick_breaker(server, seconds: float):
    """The cache at `server`, skipped for only `seconds` after a failure."""
    caches = redis_cache_settings(server.url)
    caches["default"]["OPTIONS"]["breaker_seconds"] = seconds
    breaker.reset_all()
    return override_settings(CACHES=caches)


def test_the_cache_is_used_again_once_redis_answers(redis_server):
    with quick_breaker(redis_server, 0.2):
        redis_server.freeze()
        cache.set("k", "lost")  # dropped; the breaker opens
        assert cache.get("k") is None
        redis_server.thaw()
        assert cache.get("k") is None  # still skipped: the cooldown has not passed
        with timed() as elapsed:
            while cache.get("k") is None and elapsed() < 5:
                cache.set("k", "kept")
        assert cache.get("k") == "kept"
        assert elapsed() < 2


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_throttles_fail_open_with_a_warning(redis_cache, settings, caplog, kind):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "login": "1/min",
        },
    }
    UserFactory(email="dev@example.com")
    client = APIClient()
    wrong = {"email": "dev@example.com", "password": "not-the-password"}
    assert client.post(LOGIN, wrong, format="json").status_code == 401
    assert client.post(LOGIN, wrong, format="json").status_code == 429  # Redis counts

    redis_cache.stop() if kind == "stopped" else redis_cache.freeze()
    caplog.set_level(logging.WARNING, logger="common.api.throttling")
    for _ in range(3):
        with timed() as elapsed:
            response = client.post(LOGIN, wrong, format="json")
        assert response.status_code == 401  # let through: the limit cannot be counted
        assert elapsed() < REQUEST_BOUND
    warnings = [r.getMessage() for r in caplog.records if r.name == "common.api.throttling"]
    assert (
        warnings
        == [
            "rate limit 'login' not enforced for /api/v1/portal/auth/login: the "
            "cache is unreachable"
        ]
        * 3
    )


def test_store_settings_fall_back_to_the_database(redis_cache):
    settings_services.settings_update(section="general", values={"store_name": "Before"})
    assert settings_selectors.get_section("general")["store_name"] == "Before"  # cached now
    redis_cache.freeze()
    # Another process changes the stored value; this one's cache is unreachable.
    row = SettingsSection.objects.get(name="general")
    row.values = {**row.values, "store_name": "After"}
    row.save()
    with timed() as elapsed:
        assert settings_selectors.get_section("general")["store_name"] == "After"
        assert settings_selectors.get_value("general", "store_name") == "After"
    assert elapsed() < REQUEST_BOUND
    response = APIClient().get(f"{API}/products")
    assert response.status_code == 200


def test_cached_entries_and_tokens_live_a_bounded_time(redis_cache):
    """An invalidation dropped during an outage cannot leave old values for long: the
    settings entry and the catalog's version token expire on their own."""
    Shop()
    assert APIClient().get(f"{API}/products").status_code == 200
    direct = redis.Redis.from_url(redis_cache.url)
    settings_ttl = direct.ttl(cache.make_key(settings_selectors.cache_key()))
    token_ttl = direct.ttl(cache.make_key("store:catalog:v:catalog"))
    direct.close()
    assert 0 < settings_ttl <= settings_selectors.CACHE_SECONDS
    assert 0 < token_ttl <= settings.STORE_CATALOG_CACHE_SECONDS


def test_the_catalog_reads_uncached_while_redis_is_frozen(redis_cache):
    shop = Shop()
    client = APIClient()
    first = client.get(f"{API}/products").json()
    assert {p["title"] for p in first["data"]} == {"Lamp", "Mug"}
    redis_cache.freeze()
    # A write whose invalidation cannot reach Redis: the next read must still show it.
    Product.objects.filter(pk=shop.lamp.pk).update(title="Desk lamp", updated_at=timezone.now())
    with timed() as elapsed:
        again = client.get(f"{API}/products")
    assert again.status_code == 200
    assert {p["title"] for p in again.json()["data"]} == {"Desk lamp", "Mug"}
    assert elapsed() < REQUEST_BOUND


def test_healthz_reports_the_cache_down_quickly(redis_cache):
    redis_cache.freeze()
    for _ in range(3):  # the first pays one timeout; the breaker answers the others at once
        with timed() as elapsed:
            response = APIClient().get("/healthz")
        assert response.status_code == 200
        body = response.json()
        assert body["status"] == "degraded"
        assert body["checks"]["cache"]["status"] == "down"
        assert body["checks"]["database"]["status"] == "up"
        assert elapsed() < REQUEST_BOUND


def test_the_breaker_reopens_after_a_failed_probe(redis_server):
    with quick_breaker(redis_server, 0.1):
        redis_server.stop()
        assert cache.get("k", "default") == "default"
        deadline = timezone.now() + timedelta(seconds=1)
        while timezone.now() < deadline:  # probes every 0.1 s, each refused at once
            assert cache.add("k", 1) is False
        assert cache.get_many(["a", "b"]) == {}
        assert cache.set_many({"a": 1}) == ["a"]
