"""RFM's rollup under concurrent order writes (PostgreSQL: real concurrent transactions).

Writers of one customer's orders add their differences to the customer's row under its row
lock, so none is lost. An order that leaves while being its customer's last takes the last
order time again from the orders in a statement after the one that waited for the lock: it
sees the order a concurrent writer committed meanwhile (a subquery of the waiting upsert
would read the orders as they were before the wait, and leave the row without a last time).
"""

from __future__ import annotations

import threading
import time
from decimal import Decimal

import pytest
from django.db import connections, transaction

from erp.crm.models import CustomerRfm
from store.orders import services as order_services
from tests.concurrency import race
from tests.erp.crm.conftest import make_customer, paid_order
from tests.erp.crm.test_rfm_rollups import recounted, rollup_rows

pytestmark = [pytest.mark.postgresql_only, pytest.mark.django_db(transaction=True)]


def test_an_order_leaving_as_the_last_sees_one_committed_while_it_waited():
    customer = make_customer()
    latest = paid_order(customer, "30.00", days_ago=1)
    waiting = paid_order(customer, "20.00", days_ago=5, status="pending", payment="unpaid")
    entered, done = threading.Event(), {}

    def enter():
        try:
            with transaction.atomic():
                order_services.order_status_set(order_id=waiting.pk, status="completed")
                entered.set()  # holds the customer's row until it commits
                time.sleep(0.5)
        finally:
            connections.close_all()

    def leave():
        try:
            entered.wait(timeout=10)
            started = time.perf_counter()
            order_services.order_status_set(order_id=latest.pk, status="cancelled")
            done["waited"] = time.perf_counter() - started
        finally:
            connections.close_all()

    threads = [threading.Thread(target=enter), threading.Thread(target=leave)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert done["waited"] >= 0.3  # it did wait for the row
    row = CustomerRfm.objects.get(customer=customer)
    assert (row.frequency, row.monetary, row.last_order_at) == (
        1,
        Decimal("20.00"),
        waiting.created_at,
    )
    assert rollup_rows() == recounted()


def test_concurrent_moves_of_one_customers_orders_lose_no_difference():
    customer = make_customer()
    orders = [
        paid_order(customer, f"{10 + n}.00", days_ago=n, status="processing", payment="unpaid")
        for n in range(6)
    ]
    paid = [order for n, order in enumerate(orders) if n % 2]
    for order in paid:  # counted now; the race takes them out and the others in
        order_services.order_status_set(order_id=order.pk, status="completed")

    def move(order):
        status = "cancelled" if order in paid else "completed"
        return lambda: order_services.order_status_set(order_id=order.pk, status=status)

    results = race(*(move(order) for order in orders))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert rollup_rows() == recounted()
    row = CustomerRfm.objects.get(customer=customer)
    assert (row.frequency, row.last_order_at) == (3, orders[0].created_at)
