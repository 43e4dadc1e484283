"""The reports' rollups stay equal to a full recount of the rows, and the reports answer the same
from them as from the rows alone, after any sequence of writes.

Each example moves the clock across some forty days and, through the services the HTTP views
call, places orders (with or without a customer, in two currencies, on three products), moves
their status, records payments and refunds, adds, changes and removes lines, ships, moves an
order to another customer or currency, deletes orders, makes, registers, anonymises and deletes
customers, deletes a product, and closes days (store.reports.rollups.close_days) now and then,
in any order; a write the services refuse changes nothing. At the end:

- **The rollups are a recount**: every rollup table equals what `rebuild` makes from the rows
  with the same watermark (rows of zeros aside: a count that went back to 0 stays as a row);
- **The reports do not depend on the rollups**: /orders/stats, /dashboard/stats and
  /customers/stats (their selectors, with filters and periods that cross the watermark) answer
  the same as with nothing closed (every figure read from the rows);
- **Customers' running totals are their orders**: orders_count and total_spent of
  /customers-with-stats are those of the customer's orders.

Each example runs in a savepoint rolled back at its end.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
import time_machine
from django.db import transaction
from django.db.models import Count, Q, Sum
from hypothesis import given, settings
from hypothesis import strategies as st

from common.errors import ServiceError
from store.catalog.services import products as catalog_services
from store.customers import selectors as customer_selectors
from store.customers import services as customer_services
from store.customers.models import Customer
from store.orders import selectors as order_selectors
from store.orders import services as order_services
from store.orders.choices import SALES, OrderStatus
from store.orders.models import Order, OrderItem
from store.reports import rollups
from store.reports import selectors as report_selectors
from store.reports.models import (
    CustomerRollup,
    CustomerTally,
    CustomerTotals,
    OrderRollup,
    ProductRollup,
    ReportWatermark,
)
from tests.accounts.factories import UserFactory
from tests.fixtures.properties import examples
from tests.store.orders.factories import line, stocked

pytestmark = pytest.mark.django_db

DAY0 = date(2026, 3, 1)
DAYS = 40
STATUSES = st.sampled_from(OrderStatus.values)
PICK = st.integers(0, 50)  # an index into what exists, modulo its length

OPERATION = st.one_of(
    st.tuples(st.just("day"), st.integers(0, DAYS - 1), st.integers(0, 23)),
    st.tuples(
        st.just("create"),
        st.lists(st.tuples(st.integers(0, 2), st.integers(1, 3)), min_size=1, max_size=3),
        STATUSES,
        st.sampled_from(("EUR", "USD")),
        st.one_of(st.none(), PICK),
    ),
    st.tuples(st.just("status"), PICK, STATUSES),
    st.tuples(st.just("pay"), PICK),
    st.tuples(st.just("refund"), PICK, st.sampled_from(("1.00", "5.00", "999.00"))),
    st.tuples(st.just("add_line"), PICK, st.integers(0, 2), st.sampled_from(("", "Renamed"))),
    st.tuples(st.just("change_line"), PICK, st.integers(1, 4), st.sampled_from(("", "Zzz"))),
    st.tuples(st.just("remove_line"), PICK),
    st.tuples(st.just("ship"), PICK),
    st.tuples(st.just("move"), PICK, st.one_of(st.none(), PICK)),
    st.tuples(st.just("currency"), PICK, st.sampled_from(("EUR", "USD"))),
    st.tuples(st.just("delete"), PICK),
    st.tuples(st.just("customer"), st.booleans()),
    st.tuples(st.just("register"), PICK),
    st.tuples(st.just("erase"), PICK),
    st.tuples(st.just("delete_product"), st.integers(0, 2)),
    st.tuples(st.just("close"), st.integers(0, DAYS)),
    st.tuples(st.just("close"), st.integers(0, DAYS)),
)


@pytest.fixture
def world():
    return {
        "products": [
            stocked(title, stock=10_000, price=price)
            for title, price in (("Lamp", "10.00"), ("Desk", "120.00"), ("Mug", "4.50"))
        ],
        "customers": [
            customer_services.customer_create(fields={"email": f"c{n}@example.com"})
            for n in range(2)
        ],
    }


def _pick(rows, index):
    return rows[index % len(rows)] if rows else None


def _orders() -> list[int]:
    return list(Order.objects.order_by("pk").values_list("pk", flat=True))


def _items() -> list[int]:
    return list(OrderItem.objects.order_by("pk").values_list("pk", flat=True))


def _customers() -> list[int]:
    return list(Customer.objects.order_by("pk").values_list("pk", flat=True))


def apply(operation: tuple, world: dict, clock: list) -> None:
    kind, *args = operation
    if kind == "day":
        day, hour = args
        clock[0].stop()
        clock[0] = time_machine.travel(
            datetime(2026, 3, 1, hour, 30, tzinfo=UTC) + timedelta(days=day), tick=False
        )
        clock[0].start()
    elif kind == "create":
        lines, status, currency, customer = args
        products = world["products"]
        customer_id = _pick(_customers(), customer) if customer is not None else None
        order_services.order_create(
            items=[line(products[index], quantity) for index, quantity in lines],
            status=status,
            currency=currency,
            customer_id=customer_id,
            billing_address={"email": "guest@example.com"} if customer_id is None else None,
        )
    elif kind == "status":
        order_id, status = _pick(_orders(), args[0]), args[1]
        if order_id:
            order_services.order_status_set(order_id=order_id, status=status)
    elif kind == "pay":
        order = Order.objects.filter(pk=_pick(_orders(), args[0])).first()
        if order and order.total > order.amount_paid:
            order_services.payment_create(
                order_id=order.pk,
                fields={"amount": order.total - order.amount_paid, "status": "completed"},
            )
    elif kind == "refund":
        order_id = _pick(_orders(), args[0])
        if order_id:
            order_services.payment_create(
                order_id=order_id,
                fields={"kind": "refund", "amount": Decimal(args[1]), "status": "completed"},
            )
    elif kind == "add_line":
        order_id, product, title = _pick(_orders(), args[0]), args[1], args[2]
        if order_id:
            fields = {"product_id": world["products"][product].pk, "quantity": 1}
            if title:
                fields["title"] = title
            order_services.order_item_add(order_id=order_id, fields=fields)
    elif kind == "change_line":
        item_id = _pick(
            list(OrderItem.objects.order_by("pk").values_list("pk", flat=True)), args[0]
        )
        if item_id:
            fields = {"quantity": args[1]}
            if args[2]:
                fields["title"] = args[2]
            order_services.order_item_update(item_id=item_id, fields=fields)
    elif kind == "remove_line":
        item_id = _pick(
            list(OrderItem.objects.order_by("pk").values_list("pk", flat=True)), args[0]
        )
        if item_id:
            order_services.order_item_delete(item_id=item_id)
    elif kind == "ship":
        order_id = _pick(_orders(), args[0])
        if order_id:
            order_services.shipment_create(order_id=order_id, fields={})
    elif kind == "move":
        order_id = _pick(_orders(), args[0])
        customer_id = _pick(_customers(), args[1]) if args[1] is not None else None
        if order_id:
            order_services.order_update(order_id=order_id, fields={"customer_id": customer_id})
    elif kind == "currency":
        order_id = _pick(_orders(), args[0])
        if order_id:
            order_services.order_update(order_id=order_id, fields={"currency": args[1]})
    elif kind == "delete":
        order_id = _pick(_orders(), args[0])
        if order_id:
            order_services.order_delete(order_id=order_id)
    elif kind == "customer":
        user = UserFactory() if args[0] else None
        number = Customer.objects.count() + 10
        customer_services.customer_create(
            fields={"email": f"new{number}@example.com", **({"user_id": user.pk} if user else {})}
        )
    elif kind == "register":
        customer_id = _pick(_customers(), args[0])
        if customer_id:
            customer_services.customer_update(
                customer_id=customer_id, fields={"user_id": UserFactory().pk}
            )
    elif kind == "erase":
        customer_id = _pick(_customers(), args[0])
        if customer_id:
            customer_services.customer_delete(customer_id=customer_id)
    elif kind == "delete_product":
        product = world["products"][args[0]]
        catalog_services.product_delete(product_id=product.pk)
    elif kind == "close":
        rollups.close_days(DAY0 + timedelta(days=args[0]))


def rollup_rows() -> dict:
    """Every rollup row that counts something, comparable."""
    return {
        "orders": set(
            OrderRollup.objects.exclude(orders=0).values_list(
                "level",
                "start",
                "currency",
                "status",
                "payment_status",
                "fulfillment_status",
                "orders",
                "total",
                "amount_paid",
                "amount_refunded",
                "items",
            )
        ),
        "products": set(
            ProductRollup.objects.exclude(lines=0, orders=0, quantity=0).values_list(
                "level",
                "start",
                "currency",
                "product_id",
                "title",
                "lines",
                "quantity",
                "revenue",
                "orders",
            )
        ),
        "customers": set(
            CustomerRollup.objects.exclude(customers=0).values_list(
                "level", "start", "registered", "anonymised", "has_orders", "customers"
            )
        ),
        "tallies": set(
            CustomerTally.objects.values_list(
                "customer_id", "day", "registered", "anonymised", "has_orders"
            )
        ),
        "totals": set(
            CustomerTotals.objects.exclude(orders=0).values_list(
                "customer_id", "currency", "orders", "sales", "spent"
            )
        ),
        "watermark": rollups.closed_until(),
    }


def recounted() -> dict:
    watermark = rollups.closed_until()
    with transaction.atomic():
        rollups.rebuild(watermark or date(1970, 1, 1))
        if watermark is None:
            ReportWatermark.objects.filter(pk=1).update(closed_until=None)
        rows = rollup_rows()
        transaction.set_rollback(True)
    return rows


def reports() -> dict:
    """The reports' answers, for filters and periods on both sides of the watermark."""
    today = datetime.now(UTC).date()
    answers = {}
    for name, query in {
        "all": {},
        "sales": {"status": ["processing", "shipped", "completed"]},
        "paid": {"payment_status": ["paid", "partially_refunded"]},
        "week": {"date_from": DAY0 + timedelta(days=10), "date_to": DAY0 + timedelta(days=16)},
        "from": {"date_from": DAY0 + timedelta(days=5), "fulfillment_status": ["fulfilled"]},
        "until": {"date_to": DAY0 + timedelta(days=20)},
    }.items():
        answers[f"orders {name}"] = order_selectors.order_stats(query)
    for currency in ("EUR", "USD"):
        for period in (
            report_selectors.period_for("30d", today=today),
            report_selectors.period_for("7d", today=today),
            report_selectors.period_for(
                "custom", today=today, date_from=DAY0, date_to=DAY0 + timedelta(days=DAYS)
            ),
            report_selectors.period_for(
                "custom",
                today=today,
                date_from=DAY0 + timedelta(days=3),
                date_to=DAY0 + timedelta(days=9),
            ),
        ):
            answers[f"dashboard {currency} {period}"] = report_selectors.dashboard_stats(
                period=period, currency=currency, default_threshold=2, top=50
            )
    for name, query in {
        "any": {},
        "active": {"status": "active"},
        "guests with orders": {"registered": False, "has_orders": True},
        "anonymised": {"status": "anonymised"},
        "dated": {"date_from": DAY0 + timedelta(days=4), "date_to": DAY0 + timedelta(days=30)},
    }.items():
        answers[f"customers {name}"] = customer_selectors.customers_stats(query)
    return answers


def reports_from_rows() -> dict:
    with transaction.atomic():
        ReportWatermark.objects.all().delete()
        answers = reports()
        transaction.set_rollback(True)
    return answers


def check_customer_totals() -> None:
    page = customer_selectors.customers_with_stats_page(
        {"page": 1, "per_page": 100, "orderby": "total_spent", "status": "any"}
    )
    currency = customer_selectors.store_currency()
    for customer in page.items:
        orders = Order.objects.filter(customer_id=customer.pk).aggregate(
            n=Count("id"), spent=Sum("total", filter=Q(status__in=SALES, currency=currency))
        )
        assert customer.orders_count == orders["n"]
        assert customer.total_spent == (orders["spent"] or 0)
    spent = [customer.total_spent for customer in page.items]
    assert spent == sorted(spent, reverse=True)


@settings(max_examples=examples(15), deadline=None)
@given(operations=st.lists(OPERATION, min_size=1, max_size=14))
def test_the_rollups_are_a_recount_and_the_reports_do_not_depend_on_them(world, operations):
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
            assert reports() == reports_from_rows()
            check_customer_totals()
            transaction.set_rollback(True)
    finally:
        clock[0].stop()
