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


def test_reopenings_of_orders_sharing_products_neither_deadlock_nor_miscount():
    """Orders whose lines name the same products in different orders are reopened at once,
    while the worker gives back the stock of others sharing them: the products are locked
    in id order by every writer, so each waits its turn; the stock is the arithmetic."""
    products = [stocked(title=f"Shared {n}", stock=100) for n in range(3)]
    reopened = []
    for n in range(4):
        lines = [line(p, 1 + (n + k) % 3) for k, p in enumerate(products)]
        if n % 2:
            lines.reverse()
        reopened.append(make_order(*lines, status="processing"))
    released = [make_order(*[line(p, 2) for p in reversed(products)]) for _ in range(2)]
    with mock.patch.object(tasks.release_stock, "apply_async"):  # given back by the race
        for order in reopened + released:
            services.order_status_set(order_id=order.pk, status="cancelled")
        for order in reopened:  # the worker gave their stock back before
            tasks.release_stock(order.pk)
    calls = [
        lambda o=order: services.order_status_set(order_id=o.pk, status="processing")
        for order in reopened
    ]
    calls += [lambda o=order: tasks.release_stock(o.pk) for order in released]
    results = race(*calls)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert all(isinstance(r, Order) and r.status == "processing" for r in results[:4]), results
    held = {p.pk: 0 for p in products}
    for order in reopened:
        for item in order.items.all():
            held[item.product_id] += item.quantity
    for product in products:
        assert stock_of(product) == 100 - held[product.pk]
        assert ledger_total(product) == stock_of(product)
    assert not Order.objects.filter(stock_release_pending=True).exists()


def _waiting_on_a_lock(seconds: float = 20.0) -> bool:
    """Whether some session of this database waits on a row lock (polled up to `seconds`)."""
    import time

    from django.db import connection

    deadline = time.monotonic() + seconds
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.05)
    return False


def test_a_reopening_holds_every_product_before_it_waits_for_a_level():
    """The products and their levels are locked in one statement: the products (id order)
    first, whatever level it then waits for, as every other writer locks them."""
    import threading

    from django.db import connections, transaction
    from django.db.utils import OperationalError

    from store.catalog.models import Product
    from store.inventory.models import StockLevel

    lamp, mug = stocked(stock=10), stocked(title="Mug", stock=10)
    order = make_order(line(mug, 1), line(lamp, 1), status="cancelled")
    level = StockLevel.objects.get(product=mug)
    holder = connections.create_connection("default")
    holder.set_autocommit(False)
    with holder.cursor() as cursor:  # another writer holds the mug's level (not the product)
        cursor.execute(
            "SELECT id FROM store_inventory_stocklevel WHERE id = %s FOR UPDATE", [level.pk]
        )
    done = threading.Event()

    def reopen() -> None:
        try:
            services.order_status_set(order_id=order.pk, status="processing")
        finally:
            connections.close_all()
            done.set()

    thread = threading.Thread(target=reopen)
    thread.start()
    try:
        assert _waiting_on_a_lock()  # the reopening waits for the level
        assert not done.is_set()
        for product in (lamp, mug):  # and holds both products already
            with pytest.raises(OperationalError), transaction.atomic():
                list(
                    Product.objects.select_for_update(nowait=True)
                    .filter(pk=product.pk)
                    .values_list("pk", flat=True)
                )
    finally:
        holder.rollback()
        holder.close()
    thread.join(timeout=20)
    assert done.is_set()
    assert (stock_of(lamp), stock_of(mug)) == (9, 9)
