"""/stock/stats on the stock rollups: the same figures whether the days were closed or not, and
the same queries for a ledger of a few days as for months of movements."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from store.inventory import rollups, services
from store.inventory.choices import AdjustmentReason, MovementReason
from store.inventory.models import StockMovement, StockRollupWatermark, Warehouse
from store.inventory.services import Reference
from tests.erp.inventory.test_api import depot, receive, tracked
from tests.fixtures.store import API

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
TODAY = NOW.date()


@pytest.fixture
def api(manager_client, erp_on):
    return manager_client


def history(days: int, per_day: int, tag: str) -> None:
    """Receipts, sales and adjustments in two warehouses on each of the last `days` days."""
    main, other = services.default_warehouse(), depot(f"depot-{tag}")
    with time_machine.travel(NOW - timedelta(days=days + 1), tick=False):
        lamp = tracked(f"Lamp {tag}")
        receive(main, lamp, 10 * days * per_day, "2.00")
        receive(other, lamp, 5 * days, "3.00")
    for day in range(days, -1, -1):
        with time_machine.travel(NOW - timedelta(days=day, hours=day % 5), tick=False):
            for n in range(per_day):
                services.stock_take(
                    needs=[services.Need(1, lamp.pk, None, 1 + n % 3)],
                    reason=MovementReason.ORDER_PLACED,
                    reference=Reference(type="order", id=f"{tag}{day}-{n}"),
                    key_prefix=f"order:{tag}:{day}:{n}",
                )
            services.stock_adjust(
                product_id=lamp.pk,
                warehouse_id=other.pk,
                reason=AdjustmentReason.DAMAGED,
                quantity=-1,
            )


QUERIES = [
    {},
    {"date_from": str(TODAY - timedelta(days=6)), "date_to": str(TODAY - timedelta(days=2))},
    {"date_from": str(TODAY - timedelta(days=90)), "date_to": str(TODAY - timedelta(days=60))},
    {"date_to": str(TODAY - timedelta(days=1))},
    {"date_from": str(TODAY), "date_to": str(TODAY + timedelta(days=3))},
]


def stats(api, query: dict) -> dict:
    response = api.get(f"{API}/stock/stats", query)
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("close_at", [None, 1, 8, 30])  # the task's last run: days ago
def test_the_figures_are_those_of_the_movements_whatever_was_closed(api, close_at):
    history(20, 3, "a")
    queries = [*QUERIES]
    warehouses = Warehouse.objects.values_list("pk", flat=True)
    queries += [{**query, "warehouse_id": pk} for query in QUERIES[:3] for pk in warehouses]
    with time_machine.travel(NOW, tick=False):
        StockRollupWatermark.objects.all().delete()
        from_rows = [stats(api, query) for query in queries]
        if close_at is not None:
            rollups.close_days(TODAY - timedelta(days=close_at))
            assert rollups.closed_until() == TODAY - timedelta(days=close_at)
        assert [stats(api, query) for query in queries] == from_rows
        rollups.close_days()
        assert [stats(api, query) for query in queries] == from_rows
    week = from_rows[1]["turnover"]
    assert week["units_sold"] == 5 * (1 + 2 + 3)  # 3 sales a day of 1, 2, 3 units


def queries_of(api, query: dict) -> int:
    stats(api, query)  # warm (the licence, the user)
    with CaptureQueriesContext(connection) as captured:
        stats(api, query)
    return len(captured)


def test_the_queries_do_not_grow_with_the_movements_nor_the_days(api):
    with time_machine.travel(NOW, tick=False):
        tracked("Seed", stock=1)
        rollups.close_days()
    history(2, 1, "few")
    with time_machine.travel(NOW, tick=False):
        rollups.close_days()
        few = {str(query): queries_of(api, query) for query in QUERIES}
    history(40, 3, "many")
    assert StockMovement.objects.count() > 150
    with time_machine.travel(NOW, tick=False):
        rollups.close_days()
        for query in QUERIES:
            assert queries_of(api, query) <= few[str(query)], query
        # nothing closed since: read from the movements, in as many queries
        StockRollupWatermark.objects.update(closed_until=None)
        for query in QUERIES:
            assert queries_of(api, query) <= few[str(query)], query
    assert max(few.values()) <= 12, few
