"""Query ceilings of the reports on their rollups: the same queries for two days of orders as
for forty, days closed (measured once for the module)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from store.customers import services as customer_services
from store.reports import rollups
from tests.fixtures.store import API, api_as, grant, shop_manager
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
TODAY = NOW.date()

#: (route, query, ceiling): the credentials (2 queries), then the report's own: the watermark,
#: one query on the rollups and one on the rows per part (orders, customers), the top products
#: in one, low stock in three; the customers' list its COUNT, page and addresses.
ROUTES = [
    ("/orders/stats", {}, 5),
    ("/orders/stats", {"status": "processing,completed", "date_from": "2026-05-01"}, 5),
    ("/dashboard/stats", {}, 11),
    ("/dashboard/stats", {"period": "year", "top": 50}, 11),
    ("/customers/stats", {}, 5),
    ("/customers/stats", {"registered": "false", "has_orders": "true"}, 5),
    ("/customers-with-stats", {"per_page": 100}, 5),
    ("/customers-with-stats", {"orderby": "total_spent", "per_page": 100}, 5),
]


def _queries(client, path: str, query: dict) -> int:
    client.get(API + path, query)
    with CaptureQueriesContext(connection) as captured:
        response = client.get(API + path, query)
    assert response.status_code == 200, response.content
    return len(captured)


def _shop(days: int, per_day: int, tag: str) -> None:
    lamp = stocked(title=f"Lamp {tag}", stock=100_000)
    for day in range(days):
        with time_machine.travel(NOW - timedelta(days=day), tick=False):
            customer = customer_services.customer_create(fields={"email": f"{tag}{day}@ex.com"})
            for n in range(per_day):
                make_order(
                    line(lamp, 1 + n % 3),
                    customer=customer if n % 2 else None,
                    status=("processing", "completed", "pending")[n % 3],
                )


@pytest.fixture(scope="module")
def costs(module_db):
    """{route: (queries with 2 days of orders closed, with 40 days)}, measured once."""
    with time_machine.travel(NOW, tick=False):
        client = api_as(grant(shop_manager("costs@example.com"), "ec_manage_reports"))
        _shop(2, 2, "few")
        rollups.close_days(TODAY)
        few = [_queries(client, path, query) for path, query, _ceiling in ROUTES]
        _shop(40, 4, "many")
        rollups.close_days(TODAY)
        many = [_queries(client, path, query) for path, query, _ceiling in ROUTES]
    return dict(enumerate(zip(few, many, strict=True)))


@pytest.mark.parametrize(("index", "route"), list(enumerate(ROUTES)), ids=lambda r: str(r))
def test_the_reports_cost_the_same_queries_for_few_orders_and_many(costs, index, route):
    few, many = costs[index]
    assert few <= route[2]
    assert many == few
