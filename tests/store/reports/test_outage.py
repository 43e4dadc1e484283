"""The dashboard and the managers' routes while the cache (Redis) is down or frozen: they
answer from the database, quickly (the cache holds only the store settings they read)."""

from __future__ import annotations

import pytest

from store.common.capabilities import manage
from store.settings import services as settings_services
from store.settings.models import SettingsSection
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, grant
from tests.outages.conftest import redis_cache, redis_server, timed  # noqa: F401 - fixtures
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.0  # one cache timeout at most, then the breaker skips Redis


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_the_dashboard_answers_while_the_cache_is_out(kind, redis_cache, store_client):  # noqa: F811
    lamp = stocked("Lamp", stock=1, price="10.00")
    make_order(line(lamp), status="completed")
    settings_services.settings_update(section="inventory", values={"low_stock_threshold": 4})
    client = store_client(grant(UserFactory(), manage("reports"), manage("managers")))
    assert client.get(f"{API}/dashboard/stats").status_code == 200  # settings cached now
    if kind == "stopped":
        redis_cache.stop()
    else:
        redis_cache.freeze()
    # Changed by another process meanwhile: the database is the truth.
    row = SettingsSection.objects.get(name="inventory")
    row.values = {**row.values, "low_stock_threshold": 0}
    row.save()
    with timed() as elapsed:
        response = client.get(f"{API}/dashboard/stats", {"period": "today"})
    assert elapsed() < REQUEST_BOUND
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["totals"]["revenue"], body["totals"]["orders"]) == ("10.00", 1)
    low = body["low_stock"]
    assert (low["default_threshold"], low["count"], low["out_of_stock_count"]) == (0, 1, 1)
    customer = UserFactory()
    with timed() as elapsed:
        response = client.post(
            f"{API}/managers",
            {"user_id": customer.pk, "capabilities": [manage("reports")]},
            format="json",
            HTTP_IDEMPOTENCY_KEY="outage-1",
        )
        listed = client.get(f"{API}/managers")
    assert elapsed() < 2 * REQUEST_BOUND
    assert response.status_code == 201, response.content
    assert listed.json()["total"] == 2
