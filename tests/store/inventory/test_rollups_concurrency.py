"""Closing the stock days while other sessions run (PostgreSQL: real concurrent transactions).

Two closings at once count each day once: the second waits for the watermark row's lock, then
finds the days closed. A transaction open since before the cutoff (it may still write movements
dated then) holds the closing back to the day it began, less the margin.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection, connections, transaction

from store.inventory import rollups, services
from store.inventory.choices import AdjustmentReason
from tests.concurrency import race
from tests.store.inventory.test_rollups import recount, rollup_rows
from tests.store.orders.factories import stocked

pytestmark = [pytest.mark.postgresql_only, pytest.mark.django_db(transaction=True)]

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


def test_two_closings_at_once_count_each_day_once():
    with time_machine.travel(NOW - timedelta(days=3), tick=False):
        lamp = stocked(stock=50)
    for day in (2, 1):
        with time_machine.travel(NOW - timedelta(days=day), tick=False):
            services.stock_adjust(
                product_id=lamp.pk,
                warehouse_id=services.default_warehouse().pk,
                reason=AdjustmentReason.FOUND,
                quantity=day,
            )
    with time_machine.travel(NOW, tick=False):
        results = race(rollups.close_days, rollups.close_days, rollups.close_days)
    assert results == [NOW.date()] * 3
    assert rollup_rows() == recount(NOW.date())
    assert len(rollup_rows()) == 3


def test_an_open_transaction_holds_the_closing_back_to_its_start():
    opened, done = threading.Event(), threading.Event()
    began = {}

    def long_writer():
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SELECT now()")
                    began["at"] = cursor.fetchone()[0]
                opened.set()
                done.wait(timeout=20)
        finally:
            connections.close_all()

    thread = threading.Thread(target=long_writer)
    thread.start()
    try:
        assert opened.wait(timeout=10)
        later = began["at"] + timedelta(days=3)
        assert rollups.cutoff(later) == (began["at"] - rollups.MARGIN).astimezone(UTC).date()
    finally:
        done.set()
        thread.join(timeout=20)
    assert rollups.cutoff(later) == (later - rollups.MARGIN).astimezone(UTC).date()
