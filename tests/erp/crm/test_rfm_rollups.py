"""RFM's rollup (CustomerRfm) stays equal to a full recount of the orders after any sequence of
writes, and /crm/rfm answers from it what it answers from the orders alone.

Each example moves the clock across some forty days and, through the store's services (what
the HTTP views call), places orders (with or without a customer, in two currencies), moves
their status, records payments and refunds, adds, changes and removes lines, moves an order to
another customer or currency, deletes orders, and makes and erases customers, in any order; a
write the services refuse changes nothing. At the end:

- **The rollup is a recount**: its rows that count something equal what `rebuild` makes from
  the orders;
- **RFM does not depend on the rollup**: every customer's figures on /crm/rfm (both
  currencies, every ordering) are those of its paid orders, grouped from the rows.

Each example runs in a savepoint rolled back at its end.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
import time_machine
from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import Count, Max, Sum
from django.test.utils import CaptureQueriesContext
from hypothesis import given, settings
from hypothesis import strategies as st

from common.errors import ServiceError
from erp.crm import rollups, selectors
from erp.crm.models import CustomerRfm
from store.customers import services as customer_services
from store.customers.models import Customer
from store.orders import services as order_services
from store.orders.choices import OrderStatus
from store.orders.models import Order, OrderItem
from tests.erp.crm.conftest import BASE, make_customer, paid_order
from tests.fixtures.properties import examples
from tests.store.orders.factories import line, stocked

pytestmark = pytest.mark.django_db

DAYS = 40
STATUSES = st.sampled_from(OrderStatus.values)
PICK = st.integers(0, 50)  # an index into what exists, modulo its length

CREATE = st.tuples(
    st.just("create"),
    st.lists(st.tuples(st.integers(0, 1), st.integers(1, 3)), min_size=1, max_size=2),
    st.one_of(st.just(OrderStatus.COMPLETED), STATUSES),  # half of them counted at once
    st.sampled_from(("EUR", "USD")),
    st.one_of(PICK, st.none()),
)
STATUS = st.tuples(st.just("status"), PICK, STATUSES)
PAY = st.tuples(st.just("pay"), PICK)
MOVE = st.tuples(st.just("move"), PICK, st.one_of(PICK, st.none()))
# the writes that change what orders count come more often than the others (st.one_of
# draws its branches alike), so that most steps move the rollup
OPERATION = st.one_of(
    st.tuples(st.just("day"), st.integers(0, DAYS - 1), st.integers(0, 23)),
    CREATE,
    CREATE,
    STATUS,
    STATUS,
    STATUS,
    PAY,
    PAY,
    st.tuples(st.just("refund"), PICK, st.sampled_from(("1.00", "999.00"))),
    st.tuples(st.just("add_line"), PICK, st.integers(0, 1)),
    st.tuples(st.just("change_line"), PICK, st.integers(1, 4)),
    st.tuples(st.just("remove_line"), PICK),
    MOVE,
    MOVE,
    st.tuples(st.just("currency"), PICK, st.sampled_from(("EUR", "USD"))),
    st.tuples(st.just("delete"), PICK),
    st.tuples(st.just("customer"), st.just(None)),
    st.tuples(st.just("erase"), PICK),
)


@pytest.fixture
def world():
    return {
        "products": [stocked("Lamp", stock=10_000, price="10.00"), stocked("Desk", stock=10_000)],
        "customers": [make_customer(f"c{n}@example.com") for n in range(2)],
    }


def _pick(rows, index):
    return rows[index % len(rows)] if rows else None


def _ids(model) -> list[int]:
    return list(model.objects.order_by("pk").values_list("pk", flat=True))


def apply(operation: tuple, world: dict, clock: list) -> None:
    kind, *args = operation
    order_id = _pick(_ids(Order), args[0]) if args and isinstance(args[0], int) else None
    if kind == "day":
        clock[0].stop()
        clock[0] = time_machine.travel(
            datetime(2026, 3, 1, args[1], 30, tzinfo=UTC) + timedelta(days=args[0]), tick=False
        )
        clock[0].start()
    elif kind == "create":
        lines, status, currency, customer = args
        customer_id = _pick(_ids(Customer), customer) if customer is not None else None
        order_services.order_create(
            items=[line(world["products"][index], quantity) for index, quantity in lines],
            status=status,
            currency=currency,
            customer_id=customer_id,
            billing_address={"email": "guest@example.com"} if customer_id is None else None,
        )
    elif kind == "status" and order_id:
        order_services.order_status_set(order_id=order_id, status=args[1])
    elif kind == "pay" and order_id:
        order = Order.objects.get(pk=order_id)
        if order.total > order.amount_paid:
            order_services.payment_create(
                order_id=order.pk,
                fields={"amount": order.total - order.amount_paid, "status": "completed"},
            )
    elif kind == "refund" and order_id:
        order_services.payment_create(
            order_id=order_id,
            fields={"kind": "refund", "amount": Decimal(args[1]), "status": "completed"},
        )
    elif kind == "add_line" and order_id:
        order_services.order_item_add(
            order_id=order_id, fields={"product_id": world["products"][args[1]].pk, "quantity": 1}
        )
    elif kind in ("change_line", "remove_line"):
        item_id = _pick(_ids(OrderItem), args[0])
        if item_id and kind == "change_line":
            order_services.order_item_update(item_id=item_id, fields={"quantity": args[1]})
        elif item_id:
            order_services.order_item_delete(item_id=item_id)
    elif kind == "move" and order_id:
        customer_id = _pick(_ids(Customer), args[1]) if args[1] is not None else None
        order_services.order_update(order_id=order_id, fields={"customer_id": customer_id})
    elif kind == "currency" and order_id:
        order_services.order_update(order_id=order_id, fields={"currency": args[1]})
    elif kind == "delete" and order_id:
        order_services.order_delete(order_id=order_id)
    elif kind == "customer":
        customer_services.customer_create(
            fields={"email": f"new{Customer.objects.count() + 10}@example.com"}
        )
    elif kind == "erase":
        customer_id = _pick(_ids(Customer), args[0])
        if customer_id:
            customer_services.customer_delete(customer_id=customer_id)


def rollup_rows() -> set:
    """Every rollup row that counts something, comparable."""
    return set(
        CustomerRfm.objects.exclude(frequency=0).values_list(
            "customer_id", "currency", "frequency", "monetary", "last_order_at"
        )
    )


def recounted() -> set:
    with transaction.atomic():
        rollups.rebuild()
        rows = rollup_rows()
        transaction.set_rollback(True)
    return rows


def from_orders(currency: str) -> dict:
    """Each customer's paid orders in `currency`, grouped from the rows."""
    rows = (
        Order.objects.filter(rollups.paid_q(), customer__isnull=False, currency=currency)
        .values("customer_id")
        .annotate(n=Count("pk"), total=Sum("total"), last=Max("created_at"))
    )
    return {row["customer_id"]: (row["n"], row["total"], row["last"]) for row in rows}


def check_rfm_answers() -> None:
    for currency in ("EUR", "USD"):
        expected = from_orders(currency)
        for ordering in selectors.RFM_ORDERINGS:
            page = selectors.rfm_page(
                {"page": 1, "per_page": 100, "ordering": ordering}, currency=currency
            )
            assert page.total == len(expected)
            answered = {
                row["customer_id"]: (row["frequency"], row["monetary"], row["last_order_at"])
                for row in page.items
            }
            assert answered == expected, ordering


@settings(max_examples=examples(25), deadline=None)
@given(operations=st.lists(OPERATION, min_size=4, max_size=14))
def test_the_rollup_is_a_recount_and_rfm_answers_the_orders(world, operations):
    clock = [time_machine.travel(datetime(2026, 3, 1, 9, 0, tzinfo=UTC), tick=False)]
    clock[0].start()
    try:
        with transaction.atomic():
            for operation in operations:
                try:
                    with transaction.atomic():
                        apply(operation, world, clock)
                except ServiceError:
                    pass
            assert rollup_rows() == recounted()
            check_rfm_answers()
            transaction.set_rollback(True)
    finally:
        clock[0].stop()


def test_an_order_written_in_bulk_is_counted_by_the_rebuild_command():
    customer = make_customer()
    paid_order(customer, "10.00")
    Order.objects.bulk_create(
        [
            Order(
                order_key="bulk-1",
                order_number="B1",
                customer=customer,
                status="completed",
                payment_status="paid",
                currency="EUR",
                total=Decimal("5.00"),
            )
        ]
    )
    assert rollup_rows() != recounted()
    call_command("rebuild_crm_rollups", verbosity=0)
    assert rollup_rows() == recounted()
    assert CustomerRfm.objects.get().frequency == 2


def test_a_save_that_changes_nothing_counted_leaves_the_rollup_alone(django_assert_num_queries):
    order = paid_order(make_customer(), "10.00")
    order.admin_note = "checked"
    with django_assert_num_queries(1):  # the UPDATE alone
        order.save(update_fields=["admin_note"])
    with django_assert_num_queries(1):  # a counted field written unchanged: the UPDATE alone
        order.save(update_fields=["payment_status"])
    order.payment_status = "unpaid"  # still completed: counted as before
    with django_assert_num_queries(1):
        order.save(update_fields=["payment_status"])
    order.total = Decimal("12.00")
    with django_assert_num_queries(2):  # the UPDATE, then the difference added
        order.save(update_fields=["total"])
    assert CustomerRfm.objects.get().monetary == Decimal("12.00")


def test_an_erased_customer_keeps_its_figures_and_a_deleted_one_loses_them(seller_client):
    kept, gone = make_customer("kept@example.com"), make_customer("gone@example.com")
    paid_order(kept, "10.00")
    customer_services.customer_delete(customer_id=kept.pk)  # has orders: anonymised
    paid_order(gone, "10.00")
    Order.objects.filter(customer=gone).delete()
    customer_services.customer_delete(customer_id=gone.pk)
    body = seller_client.get(f"{BASE}/crm/rfm").json()
    assert [row["customer"]["id"] for row in body["customers"]] == [kept.pk]
    assert CustomerRfm.objects.filter(customer_id=gone.pk).count() == 0


def _queries(client, params: dict) -> int:
    client.get(f"{BASE}/crm/rfm", params)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(f"{BASE}/crm/rfm", params).status_code == 200
    return len(captured)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"per_page": 100},
        {"segment": "champions"},
        {"ordering": "recency", "page": 2, "per_page": 2},
    ],
)
def test_rfm_queries_do_not_grow_with_customers_or_orders(
    seller_client, params, django_assert_max_num_queries
):
    def customers(count: int) -> None:
        for index in range(count):
            customer = make_customer(f"q{Customer.objects.count()}-{index}@example.com")
            for days in range(index % 3 + 1):
                paid_order(customer, "10.00", days_ago=days * 7)

    customers(3)
    few = _queries(seller_client, params)
    customers(40)
    with django_assert_max_num_queries(few):
        assert seller_client.get(f"{BASE}/crm/rfm", params).status_code == 200
    assert few <= 9
