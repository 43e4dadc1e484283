"""Query ceilings and index use of the orders' hot paths: a status change with its stock effect
costs the same queries whatever the order's line count, the cached totals, and the search runs
on indexes on PostgreSQL. The staff list's cost per page: test_list_costs.py."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from store.inventory.models import StockMovement
from store.orders import selectors, services
from tests.fixtures.store import API
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, on_commit, stock_of, stocked

pytestmark = pytest.mark.django_db

ORDERS = f"{API}/orders"


def test_the_cached_totals_follow_every_change(manager_client):
    def total(**params) -> int:
        return manager_client.get(ORDERS, params).json()["total"]

    first = make_order(line(stocked(title="T1")))
    assert (total(), total(status="pending"), total(status="cancelled")) == (1, 1, 0)
    second = make_order(line(stocked(title="T2")))
    assert total() == 2
    with on_commit():
        services.order_status_set(order_id=first.pk, status="cancelled")
    assert (total(status="pending"), total(status="cancelled")) == (1, 1)
    services.order_delete(order_id=second.pk)
    assert (total(), total(status="pending")) == (1, 0)


def _status_queries(client, lines: int, status: str) -> int:
    products = [stocked(title=f"S{lines}-{n}", stock=100) for n in range(lines)]
    order = make_order(*[line(p, 2) for p in products], status="processing")
    if status == "processing":  # reopening: from cancelled, the stock is taken again
        with on_commit():
            client.patch(f"{ORDERS}/{order.pk}/status", {"status": "cancelled"}, format="json")
        assert stock_of(products[0]) == 100
    with on_commit(), CaptureQueriesContext(connection) as captured:
        response = client.patch(f"{ORDERS}/{order.pk}/status", {"status": status}, format="json")
    assert response.status_code == 200, response.content
    assert stock_of(products[-1]) == (100 if status == "cancelled" else 98)
    return len(captured)


@pytest.mark.parametrize("status", ["cancelled", "processing"])
def test_a_status_change_with_its_stock_effect_does_not_grow_with_the_lines(manager_client, status):
    manager_client.get(ORDERS)
    small = _status_queries(manager_client, 3, status)
    big = _status_queries(manager_client, 30, status)
    assert big <= small, (small, big)
    assert StockMovement.objects.count() > 60


@pytest.mark.postgresql_only  # trigram indexes are PostgreSQL's
@pytest.mark.parametrize(
    ("term", "indexes"),
    [
        ("EC-0001", ["store_orders_order_order_number"]),
        ("ana@exa", ["store_order_bill_email_trgm"]),
        ("Lee", ["store_order_bill_last_trgm"]),
        ("desk", ["store_order_item_title_trgm"]),
    ],
)
def test_the_search_runs_on_indexes(term, indexes):
    make_order(
        customer=CustomerFactory(email="ana@example.com", first_name="Ana", last_name="Lee"),
        billing_address={"email": "ana@example.com", "last_name": "Lee"},
    )
    queryset = selectors.search_ids(term)  # the list reads these ids first, then the rows by pk
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("ANALYZE")
        sql, params = queryset.query.sql_with_params()
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    for name in indexes:
        assert name in plan, plan
    for table in ("store_orders_order", "store_orders_orderitem", "store_customers_customer"):
        assert f"Seq Scan on {table}" not in plan, plan


@pytest.mark.postgresql_only  # trigram indexes are PostgreSQL's
def test_the_customer_part_of_the_search_has_its_trigram_indexes():
    from store.customers.models import Customer

    CustomerFactory(email="ana@example.com", first_name="Ana", last_name="Lee")
    queryset = Customer.objects.filter(email__icontains="ana@exa").values("pk").order_by()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        sql, params = queryset.query.sql_with_params()
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "store_customer_email_trgm" in plan, plan


def test_the_cached_total_costs_one_cache_round_trip(manager_client, cache_calls):
    """The list's total and its version come in one get_many (no second read for the entry)."""
    make_order(line(stocked(title="R1")))
    manager_client.get(ORDERS)  # the total is cached
    cache_calls.clear()
    with CaptureQueriesContext(connection) as captured:
        body = manager_client.get(ORDERS).json()
    assert body["total"] == 1
    assert not [q for q in captured if "COUNT(" in q["sql"].upper()]
    calls = [name for name, _key in cache_calls]
    assert calls.count("get_many") == 1, calls
    assert "get" not in calls, calls


# What a staff status move costs, in statements (the request's: its authentication, the
# transaction's savepoint in tests, the move, and the answer's reads after the commit). The
# ceilings hold whatever the number of lines: no statement per line or per product.
CANCEL_STATEMENTS = 14  # 2 auth; the order locked with the reports' watermark; UPDATE,
# history, audit, 2 outbox rows (no dedupe lookup for the release: no release was pending,
# so it has no waiting row to join); after the commit the
# answer's items, payments, shipments, history; the savepoint pair (an order the checkout did
# not place has no coupon uses: no lookup of its checkout)
REOPEN_STATEMENTS = 20  # as a cancel but one outbox row, then the items with their products,
# the products locked (one SELECT ... FOR UPDATE in id order), the levels, one UPDATE of the
# levels, one INSERT of the ledger rows, the stock fields (3: the levels' sums, the products,
# their UPDATE; variants only for variable products); no read of the ledger (the
# released order holds nothing), no savepoint of its own, no read back of the items
# PostgreSQL locks the products and their levels in one statement (SQLite has no row locks)
ONE_LOCK = 1 if connection.vendor == "postgresql" else 0


def _moved(client, order, status: str) -> tuple[int, dict]:
    with on_commit(), CaptureQueriesContext(connection) as captured:
        response = client.patch(f"{ORDERS}/{order.pk}/status", {"status": status}, format="json")
    assert response.status_code == 200, response.content
    return len(captured), response.json()


@pytest.mark.parametrize("lines", [2, 5])
def test_a_cancel_and_a_reopen_cost_a_fixed_number_of_statements(manager_client, lines):
    manager_client.get(ORDERS)  # the caches every request reads are warm
    products = [stocked(title=f"C{lines}-{n}", stock=50) for n in range(lines)]
    order = make_order(*[line(p, 2) for p in products], status="processing")
    cancel, body = _moved(manager_client, order, "cancelled")
    assert body["status"] == "cancelled"
    assert [stock_of(p) for p in products] == [50] * lines  # the worker gave it back
    reopen, body = _moved(manager_client, order, "processing")
    assert body["status"] == "processing"
    assert [stock_of(p) for p in products] == [48] * lines
    assert (cancel, reopen) == (CANCEL_STATEMENTS, REOPEN_STATEMENTS - ONE_LOCK)


def test_a_reopen_before_the_release_reads_what_the_order_still_holds(manager_client):
    """The release has not run (its task waits): the reopening reads the ledger, takes
    nothing more, and the late release gives nothing back."""
    products = [stocked(title=f"H{n}", stock=10) for n in range(2)]
    order = make_order(*[line(p, 3) for p in products], status="processing")
    response = manager_client.patch(  # no on_commit(): the release is not run
        f"{ORDERS}/{order.pk}/status", {"status": "cancelled"}, format="json"
    )
    assert response.status_code == 200
    assert [stock_of(p) for p in products] == [7, 7]
    with CaptureQueriesContext(connection) as captured:
        response = manager_client.patch(
            f"{ORDERS}/{order.pk}/status", {"status": "processing"}, format="json"
        )
    assert response.status_code == 200
    assert [stock_of(p) for p in products] == [7, 7]
    assert any("stockmovement" in q["sql"] and "SUM(" in q["sql"] for q in captured)
    services.order_stock_release(order_id=order.pk)
    assert [stock_of(p) for p in products] == [7, 7]
    assert (
        StockMovement.objects.filter(reference_type="order", reference_id=str(order.pk)).count()
        == 2
    )


@pytest.mark.parametrize("lines", [2, 5])
def test_the_workers_release_costs_a_fixed_number_of_statements(lines):
    products = [stocked(title=f"W{lines}-{n}", stock=50) for n in range(lines)]
    order = make_order(*[line(p, 2) for p in products], status="processing")
    services.order_status_set(order_id=order.pk, status="cancelled")  # not committed: no task
    with CaptureQueriesContext(connection) as captured:
        assert services.order_stock_release(order_id=order.pk) == lines
    # savepoint pair, lock, the ledger (with the levels' products), products locked, levels
    # locked (with their products' SKUs), one UPDATE, one INSERT, the stock fields (3: no
    # variant read for simple products), the order's revision and flag in one UPDATE
    assert len(captured) == 12 - ONE_LOCK, [q["sql"][:80] for q in captured]
    assert [stock_of(p) for p in products] == [50] * lines


def test_the_full_orders_relations_answer_their_rows_and_still_take_filters(
    django_assert_num_queries,
):
    """order_get keeps the relations' rows as prefetch_related() does: reading them costs no
    query, and a filter on a relation (as the checkout's completion does) is a query of its
    own, not an error."""
    order = make_order(line(stocked(title="F1")), line(stocked(title="F2")))
    full = selectors.order_get(order.pk)
    with django_assert_num_queries(0):
        assert len(full.items.all()) == 2
        assert list(full.payments.all()) == []
        assert list(full.shipments.all()) == []
    with django_assert_num_queries(1):
        assert full.items.filter(title="F1").count() == 1
    with django_assert_num_queries(1):
        assert not full.payments.filter(status="completed").exists()
