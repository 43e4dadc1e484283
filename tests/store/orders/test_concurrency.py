"""Real concurrent transactions (PostgreSQL): no overselling, stock moves once, no deadlock."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db.models import Sum

from common.errors import ServiceError
from store.catalog.services import products as product_services
from store.inventory.models import StockMovement
from store.orders import services, tasks
from store.orders.models import Order
from tests.concurrency import race
from tests.store.orders.factories import line, make_order, stock_of, stocked

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def ledger_total(product) -> int:
    return StockMovement.objects.filter(product=product).aggregate(t=Sum("quantity"))["t"] or 0


def refusals(results) -> list[str]:
    return [r.code for r in results if isinstance(r, ServiceError)]


def test_two_orders_for_the_last_unit_cannot_both_succeed():
    lamp = stocked(stock=1)
    results = race(*[lambda: services.order_create(items=[line(lamp, 1)])] * 2)
    assert sum(isinstance(r, Order) for r in results) == 1, results
    assert refusals(results) == ["insufficient_stock"]
    assert Order.objects.count() == 1
    assert stock_of(lamp) == 0
    assert ledger_total(lamp) == 0


def test_many_orders_racing_take_exactly_what_there_is():
    lamp = stocked(stock=3)
    mug = stocked(title="Mug", stock=10)
    # Lines in both orders of the products, so the lock order matters.
    calls = [lambda: services.order_create(items=[line(lamp, 1), line(mug, 1)])] * 3
    calls += [lambda: services.order_create(items=[line(mug, 1), line(lamp, 1)])] * 3
    results = race(*calls)
    assert sum(isinstance(r, Order) for r in results) == 3, results
    assert refusals(results) == ["insufficient_stock"] * 3
    assert (stock_of(lamp), stock_of(mug)) == (0, 7)
    assert (ledger_total(lamp), ledger_total(mug)) == (0, 7)


def test_two_workers_releasing_one_order_move_stock_once():
    lamp = stocked(stock=10)
    mug = stocked(title="Mug", stock=10)
    order = make_order(line(lamp, 4), line(mug, 1))
    with mock.patch.object(tasks.release_stock, "apply_async"):  # the task has not run yet
        services.order_status_set(order_id=order.pk, status="cancelled")
    assert (stock_of(lamp), stock_of(mug)) == (6, 9)
    results = race(*[lambda: tasks.release_stock(order.pk)] * 4)
    assert sorted(results) == [0, 0, 0, 2], results  # one worker moved both lines
    assert (stock_of(lamp), stock_of(mug)) == (10, 10)
    returned = StockMovement.objects.filter(
        reference_type="order", reference_id=str(order.pk), quantity__gt=0
    )
    assert returned.count() == 2
    assert not Order.objects.get(pk=order.pk).stock_release_pending


def test_reopening_and_a_new_order_racing_for_the_last_units():
    lamp = stocked(stock=2)
    cancelled = make_order(line(lamp, 2), status="cancelled")
    results = race(
        lambda: services.order_status_set(order_id=cancelled.pk, status="processing"),
        lambda: services.order_create(items=[line(lamp, 2)]),
    )
    assert refusals(results) == ["insufficient_stock"], results
    assert stock_of(lamp) == 0
    assert ledger_total(lamp) == 0


def test_cancel_and_reopen_racing_keep_the_arithmetic():
    lamp = stocked(stock=10)
    orders = [make_order(line(lamp, 2)) for _ in range(4)]
    calls = []
    for order in orders:
        calls.append(lambda o=order: services.order_status_set(order_id=o.pk, status="cancelled"))
        calls.append(lambda o=order: services.order_status_set(order_id=o.pk, status="processing"))
    calls.append(lambda: services.orders_bulk(ids=[o.pk for o in orders], action="failed"))
    race(*calls)
    live = Order.objects.exclude(status__in=["cancelled", "refunded", "failed"]).count()
    assert stock_of(lamp) == 10 - 2 * live
    assert ledger_total(lamp) == stock_of(lamp)
    assert not Order.objects.filter(stock_release_pending=True).exists()


def test_catalog_stock_edits_racing_orders_do_not_deadlock():
    lamp = stocked(stock=10)
    mug = stocked(title="Mug", stock=10)
    results = race(
        lambda: services.order_create(items=[line(lamp, 2), line(mug, 2)]),
        lambda: product_services.product_update(product_id=mug.pk, fields={"stock_quantity": 20}),
        lambda: services.order_create(items=[line(mug, 1), line(lamp, 1)]),
        lambda: product_services.product_update(product_id=lamp.pk, fields={"stock_quantity": 30}),
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    for product in (lamp, mug):
        assert ledger_total(product) == stock_of(product)
