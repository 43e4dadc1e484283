"""Closing days while orders are written (PostgreSQL: real concurrent transactions).

A writer reads the watermark under a shared advisory lock held to its commit, and closing days
takes that lock exclusively: a day is closed either before the writer looks (the writer then
adds its change to the rollups) or after it committed (the closer then counts the committed
row). Without the lock, the closer would count an order as it was before a change still
uncommitted, and the writer, having seen the day open, would not add the change: the rollups
would miss it. Concurrent changes of orders counted in the same rollup rows never deadlock.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connections, transaction

from store.orders import services as order_services
from store.reports import rollups
from tests.concurrency import race
from tests.store.orders.factories import line, make_order, stocked
from tests.store.rollups.test_rollups import recounted, rollup_rows

pytestmark = [pytest.mark.postgresql_only, pytest.mark.django_db(transaction=True)]

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
TODAY = NOW.date()


@pytest.fixture(autouse=True)
def _frozen_clock():
    with time_machine.travel(NOW, tick=False):
        yield


def yesterdays_orders(count: int) -> list[int]:
    lamp = stocked(stock=1000)
    with time_machine.travel(NOW - timedelta(days=1), tick=False):
        return [make_order(line(lamp), status="processing").pk for _ in range(count)]


def test_closing_waits_for_a_writer_that_saw_the_day_open():
    (order_id,) = yesterdays_orders(1)
    written, closing = threading.Event(), threading.Event()
    took = {}

    def writer():
        try:
            with transaction.atomic():
                order_services.order_status_set(order_id=order_id, status="completed")
                written.set()
                closing.wait(timeout=10)
                time.sleep(0.5)  # the closer is waiting for this commit
        finally:
            connections.close_all()

    def closer():
        try:
            written.wait(timeout=10)
            closing.set()
            started = time.perf_counter()
            rollups.close_days(TODAY)
            took["s"] = time.perf_counter() - started
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer), threading.Thread(target=closer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert took["s"] >= 0.4
    assert rollup_rows()["watermark"] == TODAY
    assert rollup_rows() == recounted()


def test_concurrent_changes_of_closed_orders_keep_the_rollups_exact():
    orders = yesterdays_orders(6)
    rollups.close_days(TODAY)

    def move(order_id, status):
        return lambda: order_services.order_status_set(order_id=order_id, status=status)

    results = race(
        *(move(order_id, "shipped" if n % 2 else "completed") for n, order_id in enumerate(orders))
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    assert rollup_rows() == recounted()
