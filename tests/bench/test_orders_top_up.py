"""bench_orders.top_up: a one-way status case starts with enough orders in its source status."""

from __future__ import annotations

import pytest

from bench import bench_orders
from store.orders.models import Order
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db


@pytest.fixture
def pool(monkeypatch, tmp_path):
    lamp = stocked(stock=100)
    orders = [
        make_order(line(lamp), status=status) for status in ("processing",) + ("cancelled",) * 3
    ]
    ids = [str(order.pk) for order in orders]
    state = tmp_path / "statuses.txt"
    state.write_text("".join(f"{o.pk} {o.status}\n" for o in orders))
    monkeypatch.setattr(bench_orders, "STATE_FILE", state)
    monkeypatch.setattr(bench_orders, "MOVING", len(ids))
    monkeypatch.setattr(bench_orders, "_seed_ctx", lambda: {"orders": ",".join(ids)})
    monkeypatch.setattr(bench_orders.harness, "settle", lambda: None)
    return ids


def test_orders_of_the_other_status_are_moved_back_through_the_services(pool):
    # 3 asked, at most half of the pool given: one more besides the one waiting
    assert bench_orders.top_up("processing", needed=3) == 1
    now = bench_orders.statuses()
    assert sum(1 for pk in pool if now[pk] == "processing") == 2
    moved = next(pk for pk in pool[1:] if now[pk] == "processing")
    assert Order.objects.get(pk=moved).status == "processing"
    assert Order.objects.filter(status="cancelled").count() == 2


def test_nothing_moves_while_enough_orders_wait(pool):
    assert bench_orders.top_up("cancelled", needed=2) == 0
    assert Order.objects.filter(status="cancelled").count() == 3
