"""A customer's orders, stats, profile, top products and spending per month; the list with
order stats; and the query ceilings of the lists (they do not grow with rows)."""

from datetime import UTC, datetime

import pytest
import time_machine

from store.customers.models import CustomerAddress
from store.orders.models import Order
from tests.fixtures.store import API, error, warm_queries
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

CUSTOMERS = f"{API}/customers"


def at(order, when: datetime) -> Order:
    Order.objects.filter(pk=order.pk).update(created_at=when)
    order.refresh_from_db()
    return order


@pytest.fixture
def shopper():
    """A customer with: two sales orders (a lamp twice, a chair), a pending and a cancelled
    order, and a completed order in another currency."""
    customer = CustomerFactory()
    lamp, chair = stocked(title="Lamp", price="10.00"), stocked(title="Chair", price="50.00")
    first = at(
        make_order(line(lamp, 2), customer=customer, status="completed"),
        datetime(2026, 9, 5, tzinfo=UTC),
    )
    second = at(
        make_order(line(lamp), line(chair), customer=customer, status="processing"),
        datetime(2026, 11, 2, tzinfo=UTC),
    )
    pending = at(make_order(line(chair), customer=customer), datetime(2026, 11, 3, tzinfo=UTC))
    cancelled = at(
        make_order(line(chair), customer=customer, status="cancelled"),
        datetime(2026, 10, 1, tzinfo=UTC),
    )
    dollars = at(
        make_order(line(lamp), customer=customer, status="completed", currency="USD"),
        datetime(2026, 10, 9, tzinfo=UTC),
    )
    customer.orders_made = [first, second, pending, cancelled, dollars]
    customer.products = (lamp, chair)
    return customer


def test_a_customers_orders(manager_client, shopper):
    first, second, pending, cancelled, dollars = shopper.orders_made
    make_order(line(stocked()), customer=CustomerFactory())  # someone else's
    url = f"{CUSTOMERS}/{shopper.pk}/orders"
    body = manager_client.get(url).json()
    assert set(body) == {"orders", "total", "page", "per_page", "total_pages"}
    assert [o["id"] for o in body["orders"]] == [
        pending.pk,
        second.pk,
        dollars.pk,
        cancelled.pk,
        first.pk,
    ]
    assert body["orders"][0]["order_number"] == pending.order_number
    assert body["orders"][0]["total"] == "50.00"
    body = manager_client.get(url, {"status": "completed,cancelled", "per_page": 2}).json()
    assert (body["total"], body["total_pages"]) == (3, 2)
    assert [o["id"] for o in body["orders"]] == [dollars.pk, cancelled.pk]
    body = manager_client.get(url, {"orderby": "total", "order": "asc"}).json()
    assert body["orders"][-1]["total"] == "60.00"
    error(manager_client.get(url, {"status": "lost"}), 400, "invalid_param")
    error(manager_client.get(f"{CUSTOMERS}/999999/orders"), 404, "customer_not_found")


def test_a_customers_stats(manager_client, shopper):
    pending = shopper.orders_made[2]
    body = manager_client.get(f"{CUSTOMERS}/{shopper.pk}/stats").json()
    assert body["orders_count"] == 5
    assert body["by_status"]["completed"] == 2
    assert body["by_status"]["pending"] == 1
    assert body["by_status"]["shipped"] == 0
    assert (body["currency"], body["paid_orders_count"]) == ("EUR", 2)
    assert (body["total_spent"], body["average_order_value"]) == ("80.00", "40.00")
    assert body["items_purchased"] == 4
    assert body["first_order_at"] == "2026-09-05T00:00:00Z"
    assert (body["last_order_at"], body["last_order_id"]) == ("2026-11-03T00:00:00Z", pending.pk)
    assert body["other_currencies"] == [{"currency": "USD", "orders": 1, "total_spent": "10.00"}]
    empty = manager_client.get(f"{CUSTOMERS}/{CustomerFactory().pk}/stats").json()
    assert (empty["orders_count"], empty["total_spent"], empty["last_order_at"]) == (
        0,
        "0.00",
        None,
    )
    error(manager_client.get(f"{CUSTOMERS}/999999/stats"), 404, "customer_not_found")


def test_top_products(manager_client, shopper):
    lamp, chair = shopper.products
    body = manager_client.get(f"{CUSTOMERS}/{shopper.pk}/top-products").json()
    # sales orders only, every currency: lamp 2 + 1 + 1 (USD), chair 1
    assert body["products"] == [
        {
            "product_id": lamp.pk,
            "title": "Lamp",
            "sku": lamp.sku,
            "quantity": 4,
            "total": "40.00",
            "orders": 3,
        },
        {
            "product_id": chair.pk,
            "title": "Chair",
            "sku": chair.sku,
            "quantity": 1,
            "total": "50.00",
            "orders": 1,
        },
    ]
    one = manager_client.get(f"{CUSTOMERS}/{shopper.pk}/top-products", {"limit": 1}).json()
    assert [p["title"] for p in one["products"]] == ["Lamp"]
    for bad in ("0", "51", "x", "99999999999999999999"):
        error(manager_client.get(f"{CUSTOMERS}/{shopper.pk}/top-products", {"limit": bad}), 400)


def test_a_deleted_product_counts_under_its_title(manager_client, shopper):
    lamp, _chair = shopper.products
    lamp.delete()
    body = manager_client.get(f"{CUSTOMERS}/{shopper.pk}/top-products").json()
    assert body["products"][0]["product_id"] is None
    assert body["products"][0]["title"] == "Lamp"


@time_machine.travel(datetime(2026, 11, 20, 12, tzinfo=UTC), tick=False)
def test_spending_history_per_month(manager_client, shopper):
    url = f"{CUSTOMERS}/{shopper.pk}/spending-history"
    body = manager_client.get(url, {"months": 4}).json()
    assert body == {
        "currency": "EUR",
        "months": [
            {"month": "2026-08", "orders": 0, "paid_orders": 0, "total_spent": "0.00"},
            {"month": "2026-09", "orders": 1, "paid_orders": 1, "total_spent": "20.00"},
            {"month": "2026-10", "orders": 2, "paid_orders": 0, "total_spent": "0.00"},
            {"month": "2026-11", "orders": 2, "paid_orders": 1, "total_spent": "60.00"},
        ],
    }
    default = manager_client.get(url).json()["months"]
    assert (len(default), default[0]["month"], default[-1]["month"]) == (12, "2025-12", "2026-11")
    for bad in ("0", "121", "-1", "1.5"):
        error(manager_client.get(url, {"months": bad}), 400, "invalid_param")


def test_the_profile(manager_client, shopper):
    CustomerAddress.objects.create(
        customer=shopper, type="billing", is_default=True, address={"city": "Athens"}
    )
    body = manager_client.get(f"{CUSTOMERS}/{shopper.pk}/profile").json()
    assert body["customer"]["id"] == shopper.pk
    assert body["customer"]["billing"]["city"] == "Athens"
    assert [a["city"] for a in body["addresses"]] == ["Athens"]
    assert body["stats"]["orders_count"] == 5
    assert len(body["recent_orders"]) == 5
    assert body["recent_orders"][0]["id"] == shopper.orders_made[2].pk
    error(manager_client.get(f"{CUSTOMERS}/999999/profile"), 404, "customer_not_found")


def test_the_list_with_stats(manager_client, shopper):
    quiet = CustomerFactory()
    big = CustomerFactory()
    make_order(line(stocked(title="Sofa", price="500.00")), customer=big, status="shipped")
    url = f"{API}/customers-with-stats"
    body = manager_client.get(url, {"orderby": "total_spent"}).json()
    rows = {c["id"]: c for c in body["customers"]}
    assert [c["id"] for c in body["customers"]] == [big.pk, shopper.pk, quiet.pk]
    assert rows[shopper.pk]["orders_count"] == 5
    assert rows[shopper.pk]["total_spent"] == "80.00"
    assert rows[shopper.pk]["currency"] == "EUR"
    assert rows[shopper.pk]["last_order_at"] == "2026-11-03T00:00:00Z"
    assert rows[shopper.pk]["last_order_id"] == shopper.orders_made[2].pk
    assert (rows[quiet.pk]["orders_count"], rows[quiet.pk]["total_spent"]) == (0, "0.00")
    assert rows[quiet.pk]["last_order_at"] is None
    by_count = manager_client.get(url, {"orderby": "orders_count", "order": "asc"}).json()
    assert [c["id"] for c in by_count["customers"]] == [quiet.pk, big.pk, shopper.pk]
    by_last = manager_client.get(url, {"orderby": "last_order"}).json()
    assert [c["id"] for c in by_last["customers"]] == [big.pk, shopper.pk, quiet.pk]
    by_last = manager_client.get(url, {"orderby": "last_order", "order": "asc"}).json()
    assert [c["id"] for c in by_last["customers"]] == [shopper.pk, big.pk, quiet.pk]
    filtered = manager_client.get(url, {"has_orders": "false"}).json()
    assert [c["id"] for c in filtered["customers"]] == [quiet.pk]
    error(manager_client.get(url, {"orderby": "spent"}), 400, "invalid_param")


# --- Query ceilings ------------------------------------------------------------------------------


def test_a_customers_orders_cost_the_same_for_3_orders_as_for_30(manager_client):
    customer = CustomerFactory()
    product = stocked(stock=10_000)
    for _ in range(3):
        make_order(line(product), customer=customer)
    url = f"{CUSTOMERS}/{customer.pk}/orders"
    few = warm_queries(manager_client, url, {"per_page": 100})
    for _ in range(27):
        make_order(line(product), customer=customer)
    assert warm_queries(manager_client, url, {"per_page": 100}) <= few
    assert len(manager_client.get(url, {"per_page": 100}).json()["orders"]) == 30


def test_the_account_overview_costs_the_same_whatever_the_orders(customer_client, customer):
    from store.customers import services

    mine = services.customer_for_user(user=customer)
    product = stocked(stock=10_000)
    make_order(line(product), customer=mine)
    few = warm_queries(customer_client, f"{API}/account", {})
    for _ in range(20):
        make_order(line(product), customer=mine, status="processing")
    assert warm_queries(customer_client, f"{API}/account", {}) == few
