"""/dashboard/stats: the figures of a period against the one before, in bounded queries."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
import time_machine
from django.contrib.auth.models import Group

from store.catalog.models import Product
from store.common.capabilities import ADMINISTRATOR_ROLE, MANAGE_ORDERS, manage
from store.customers.models import Customer
from store.orders import services as order_services
from store.orders.models import Order
from store.settings import services as settings_services
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error, grant
from tests.store.catalog.factories import AttributeFactory, TermFactory, make_variant
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

STATS = f"{API}/dashboard/stats"
NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _frozen_clock():
    with time_machine.travel(NOW, tick=False):
        yield


@pytest.fixture
def reporter(store_client):
    return store_client(grant(UserFactory(), manage("reports")))


def placed(order: Order, when: datetime) -> Order:
    Order.objects.filter(pk=order.pk).update(created_at=when)
    return order


def sale(product, quantity=1, *, when=NOW, status="completed", **fields) -> Order:
    return placed(make_order(line(product, quantity), status=status, **fields), when)


def customer_at(email: str, when: datetime) -> Customer:
    customer = Customer.objects.create(email=email)
    Customer.objects.filter(pk=customer.pk).update(created_at=when)
    return customer


def refund(order: Order, amount: str) -> None:
    for kind, value in (("payment", order.total), ("refund", Decimal(amount))):
        order_services.payment_create(
            order_id=order.pk, fields={"kind": kind, "amount": value, "status": "completed"}
        )


def test_the_figures_of_a_period_and_the_previous_one(reporter):
    lamp = stocked("Lamp", stock=100, price="10.00")
    desk = stocked("Desk", stock=100, price="100.00")
    # This week (7d: June 9-15) ...
    sale(lamp, 3)  # 30
    sale(desk, 1, status="processing", when=NOW - timedelta(days=6))  # 100, June 9
    refunded_in_part = sale(lamp, 2, status="shipped", when=NOW - timedelta(days=2))  # 20
    refund(refunded_in_part, "5.00")
    # ... not sales: pending, on hold, cancelled, refunded, failed; another currency.
    for status in ("pending", "on_hold", "cancelled", "refunded", "failed"):
        sale(desk, 1, status=status)
    sale(desk, 1, currency="USD")
    # The week before (June 2-8), and older.
    sale(lamp, 1, when=NOW - timedelta(days=7))  # June 8: 10
    sale(lamp, 1, when=NOW - timedelta(days=13, hours=11))  # June 2, 00:30: 10
    sale(desk, 1, when=NOW - timedelta(days=14))  # June 1: outside both
    customer_at("new1@example.com", NOW - timedelta(days=1))
    customer_at("new2@example.com", NOW - timedelta(days=3))
    customer_at("old@example.com", NOW - timedelta(days=10))

    response = reporter.get(STATS, {"period": "7d"})
    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert body["period"] == {
        "name": "7d",
        "date_from": "2026-06-09",
        "date_to": "2026-06-15",
        "days": 7,
    }
    assert body["previous_period"] == {
        "name": "previous",
        "date_from": "2026-06-02",
        "date_to": "2026-06-08",
        "days": 7,
    }
    assert body["currency"] == "EUR"
    assert body["totals"] == {
        "revenue": "145.00",
        "gross_sales": "150.00",
        "refunds": "-5.00",  # money going back, as in every list of payments
        "orders": 3,
        "average_order_value": "48.33",
        "items_sold": 6,
        "new_customers": 2,
    }
    assert body["previous"] == {
        "revenue": "20.00",
        "gross_sales": "20.00",
        "refunds": "0.00",
        "orders": 2,
        "average_order_value": "10.00",
        "items_sold": 2,
        "new_customers": 1,
    }
    assert body["change"] == {
        "revenue": "625.0",
        "gross_sales": "650.0",
        "refunds": None,
        "orders": "50.0",
        "average_order_value": "383.3",
        "items_sold": "200.0",
        "new_customers": "100.0",
    }
    assert body["top_products"] == [
        {"product_id": lamp.pk, "title": "Lamp", "quantity": 5, "revenue": "50.00", "orders": 2},
        {"product_id": desk.pk, "title": "Desk", "quantity": 1, "revenue": "100.00", "orders": 1},
    ]


def test_another_currency(reporter):
    desk = stocked("Desk", stock=10, price="100.00")
    sale(desk, 2, currency="USD")
    sale(desk, 1)
    body = reporter.get(STATS, {"period": "today", "currency": "usd"}).json()
    assert (body["currency"], body["totals"]["revenue"], body["totals"]["orders"]) == (
        "USD",
        "200.00",
        1,
    )


def test_the_store_currency_is_the_default(reporter):
    settings_services.settings_update(section="currency", values={"currency": "GBP"})
    assert reporter.get(STATS).json()["currency"] == "GBP"


@pytest.mark.parametrize(
    ("query", "date_from", "date_to", "previous"),
    [
        ({}, "2026-05-17", "2026-06-15", ("2026-04-17", "2026-05-16")),
        ({"period": "today"}, "2026-06-15", "2026-06-15", ("2026-06-14", "2026-06-14")),
        ({"period": "30d"}, "2026-05-17", "2026-06-15", ("2026-04-17", "2026-05-16")),
        ({"period": "month"}, "2026-06-01", "2026-06-15", ("2026-05-17", "2026-05-31")),
        ({"period": "year"}, "2026-01-01", "2026-06-15", ("2025-07-19", "2025-12-31")),
        (
            {"period": "custom", "date_from": "2026-02-01", "date_to": "2026-02-28"},
            "2026-02-01",
            "2026-02-28",
            ("2026-01-04", "2026-01-31"),
        ),
        (
            {"date_from": "2026-03-01", "date_to": "2026-03-01"},
            "2026-03-01",
            "2026-03-01",
            ("2026-02-28", "2026-02-28"),
        ),
    ],
)
def test_periods(reporter, query, date_from, date_to, previous):
    body = reporter.get(STATS, query).json()
    assert (body["period"]["date_from"], body["period"]["date_to"]) == (date_from, date_to)
    assert (body["previous_period"]["date_from"], body["previous_period"]["date_to"]) == previous


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ({"period": "week"}, "period"),
        ({"period": "custom"}, "date_from"),
        ({"period": "custom", "date_from": "2026-01-01"}, "date_to"),
        ({"period": "7d", "date_from": "2026-01-01"}, "period"),
        ({"date_from": "2026-02-01", "date_to": "2026-01-01"}, "date_to"),
        ({"date_from": "2000-01-01", "date_to": "2026-01-01"}, "date_to"),
        ({"date_from": "1800-01-01", "date_to": "1800-01-02"}, "date_from"),
        ({"date_from": "9999-12-30", "date_to": "9999-12-31"}, "date_to"),
        ({"date_from": "2026-13-01", "date_to": "2026-12-01"}, "date_from"),
        ({"date_from": "yesterday", "date_to": "2026-12-01"}, "date_from"),
        ({"currency": "EURO"}, "currency"),
        ({"currency": "E1R"}, "currency"),
        ({"currency": "\x00EU"}, "currency"),
        ({"top": 0}, "top"),
        ({"top": 51}, "top"),
        ({"top": 10**40}, "top"),
        ({"low_stock_limit": -1}, "low_stock_limit"),
        ({"low_stock_limit": "many"}, "low_stock_limit"),
    ],
)
def test_invalid_parameters_are_400(reporter, query, param):
    assert param in error(reporter.get(STATS, query), 400, "invalid_param")["data"]["params"]


def test_a_lone_surrogate_in_the_query_is_400(reporter):
    response = reporter.get(f"{STATS}?currency=%ED%A0%80")
    assert response.status_code == 400


def test_an_empty_store(reporter):
    body = reporter.get(STATS).json()
    assert body["totals"] == {
        "revenue": "0.00",
        "gross_sales": "0.00",
        "refunds": "0.00",
        "orders": 0,
        "average_order_value": "0.00",
        "items_sold": 0,
        "new_customers": 0,
    }
    assert set(body["change"].values()) == {None}
    assert body["top_products"] == []
    assert body["low_stock"] == {
        "count": 0,
        "out_of_stock_count": 0,
        "default_threshold": 2,
        "items": [],
    }


def test_top_products_are_limited_and_ordered(reporter):
    products = [stocked(f"P{n}", stock=100, price="1.00") for n in range(4)]
    for n, product in enumerate(products):
        sale(product, n + 1)
    body = reporter.get(STATS, {"top": 2}).json()
    assert [(p["title"], p["quantity"]) for p in body["top_products"]] == [("P3", 4), ("P2", 3)]
    # A deleted product's lines are left out; its order still counts.
    Product.objects.filter(pk=products[3].pk).delete()
    body = reporter.get(STATS, {"top": 2}).json()
    assert [p["title"] for p in body["top_products"]] == ["P2", "P1"]
    assert body["totals"]["orders"] == 4


def test_low_stock(reporter):
    settings_services.settings_update(section="inventory", values={"low_stock_threshold": 3})
    stocked("Plenty", stock=50)
    low = stocked("Low", stock=3, sku="LOW-1")
    empty = stocked("Empty", stock=0)
    own = stocked("Own threshold", stock=8, low_stock_threshold=10)
    stocked("Archived", stock=0, status="archived")
    stocked("Untracked", stock=0, track_inventory=False)
    shirt = stocked("Shirt", stock=0, type="variable", track_inventory=False)
    size = AttributeFactory()
    small = make_variant(shirt, TermFactory(attribute=size), title="S", stock_quantity=1)
    make_variant(shirt, TermFactory(attribute=size), title="M", stock_quantity=20)
    body = reporter.get(STATS).json()["low_stock"]
    assert (body["count"], body["out_of_stock_count"], body["default_threshold"]) == (4, 1, 3)
    assert [(i["product_id"], i["variant_id"], i["stock_quantity"]) for i in body["items"]] == [
        (empty.pk, None, 0),
        (shirt.pk, small.pk, 1),
        (low.pk, None, 3),
        (own.pk, None, 8),
    ]
    assert body["items"][1]["title"] == "Shirt - S"
    assert body["items"][2] == {
        "product_id": low.pk,
        "variant_id": None,
        "title": "Low",
        "sku": "LOW-1",
        "stock_quantity": 3,
        "stock_status": "in_stock",
        "low_stock_threshold": 3,
    }
    assert body["items"][3]["low_stock_threshold"] == 10
    limited = reporter.get(STATS, {"low_stock_limit": 1}).json()["low_stock"]
    assert (limited["count"], len(limited["items"])) == (4, 1)
    assert reporter.get(STATS, {"low_stock_limit": 0}).json()["low_stock"]["items"] == []


def test_a_threshold_below_the_default_does_not_hide_other_low_items(reporter):
    """The stock range read is bounded by the highest threshold, never below the default."""
    settings_services.settings_update(section="inventory", values={"low_stock_threshold": 5})
    stocked("Strict", stock=2, low_stock_threshold=1)
    low = stocked("Low", stock=4)
    body = reporter.get(STATS).json()["low_stock"]
    assert [i["product_id"] for i in body["items"]] == [low.pk]


def test_the_query_count_does_not_grow_with_orders(reporter, django_assert_max_num_queries):
    lamp = stocked("Lamp", stock=1000, price="10.00")

    def fill(n):
        for day in range(n):
            sale(lamp, 1, when=NOW - timedelta(days=day))
            customer_at(f"c{day}-{Customer.objects.count()}@example.com", NOW - timedelta(days=day))
            stocked(f"Low {Product.objects.count()}", stock=1)

    fill(2)
    reporter.get(STATS)  # the settings are cached now
    with django_assert_max_num_queries(9):
        assert reporter.get(STATS).status_code == 200
    fill(20)
    with django_assert_max_num_queries(9):
        body = reporter.get(STATS, {"low_stock_limit": 100, "top": 50}).json()
    assert body["totals"]["orders"] == 22
    assert body["low_stock"]["count"] == 22


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("anonymous", 401),
        ("customer", 403),
        ("orders only", 403),
        ("reports", 200),
        ("shop manager", 200),
        ("administrator", 200),
    ],
)
def test_who_may_read_the_dashboard(who, status, store_client, anon, customer, manager):
    users = {
        "customer": customer,
        "orders only": grant(UserFactory(), MANAGE_ORDERS),
        "reports": grant(UserFactory(), manage("reports")),
        "shop manager": manager,
    }
    if who == "administrator":
        users[who] = UserFactory()
        users[who].groups.add(Group.objects.get(name=ADMINISTRATOR_ROLE))
    client = anon if who == "anonymous" else store_client(users[who])
    response = client.get(STATS)
    assert response.status_code == status
    if status != 200:
        error(response, status, "not_logged_in" if status == 401 else "insufficient_capability")
