"""The customer's own orders, the order-received page, stats and statuses."""

import pytest
from django.test import Client

from store.customers import services as customer_services
from store.orders import services
from store.orders.choices import TRANSITIONS
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

STAFF_ONLY = {"admin_note", "order_key", "payments", "status_history", "source"}


@pytest.fixture
def mine(customer):
    me = customer_services.customer_for_user(user=customer)
    return make_order(line(stocked(title="Lamp")), customer=me, admin_note="secret")


def test_my_orders_lists_only_mine(customer_client, customer, mine):
    other = make_order(customer=CustomerFactory())
    second = make_order(customer=mine.customer, status="processing")
    body = customer_client.get(f"{API}/account/orders").json()
    assert [o["id"] for o in body["orders"]] == [second.pk, mine.pk]
    assert (body["total"], body["page"], body["per_page"], body["total_pages"]) == (2, 1, 20, 1)
    assert other.pk not in [o["id"] for o in body["orders"]]
    body = customer_client.get(f"{API}/account/orders", {"status": "processing"}).json()
    assert [o["id"] for o in body["orders"]] == [second.pk]
    error(customer_client.get(f"{API}/account/orders", {"status": "x"}), 400, "invalid_param")


def test_a_customer_without_orders_gets_an_empty_list(store_client):
    body = store_client(UserFactory()).get(f"{API}/account/orders").json()
    assert (body["orders"], body["total"]) == ([], 0)


def test_my_order_shows_no_staff_fields(customer_client, mine):
    body = customer_client.get(f"{API}/account/orders/{mine.pk}").json()
    assert body["id"] == mine.pk
    assert body["items"][0]["title"] == "Lamp"
    assert not STAFF_ONLY & set(body)


def test_someone_elses_order_is_404(customer_client, store_client, mine):
    other = make_order(customer=CustomerFactory(user=UserFactory()))
    error(customer_client.get(f"{API}/account/orders/{other.pk}"), 404, "order_not_found")
    error(customer_client.get(f"{API}/account/orders/999"), 404, "order_not_found")
    stranger = store_client(UserFactory())
    error(stranger.get(f"{API}/account/orders/{mine.pk}"), 404, "order_not_found")


def test_my_orders_need_a_login(anon, mine):
    error(anon.get(f"{API}/account/orders"), 401, "not_logged_in")
    error(anon.get(f"{API}/account/orders/{mine.pk}"), 401, "not_logged_in")


def test_my_orders_work_with_the_session_and_nonce(customer, mine):
    browser = Client()
    browser.force_login(customer)
    nonce = browser.get(f"{API}/auth/nonce").json()["nonce"]
    body = browser.get(f"{API}/account/orders", HTTP_X_PLATFORM_NONCE=nonce).json()
    assert [o["id"] for o in body["orders"]] == [mine.pk]


def test_a_customer_gets_linked_to_the_account_with_their_email(store_client):
    user = UserFactory(email="late@example.com")
    guest = CustomerFactory(email="late@example.com")
    order = make_order(customer=guest)
    body = store_client(user).get(f"{API}/account/orders").json()
    assert body["orders"] == []  # not linked yet: the checkout links it
    customer_services.customer_for_user(user=user)
    body = store_client(user).get(f"{API}/account/orders").json()
    assert [o["id"] for o in body["orders"]] == [order.pk]


# --- Order received -----------------------------------------------------------------------------


def received(client, order_id, key=None):
    params = {"key": key} if key is not None else {}
    return client.get(f"{API}/order-received/{order_id}", params)


def test_the_key_opens_the_order_to_anyone(anon, mine):
    body = received(anon, mine.pk, mine.order_key).json()
    assert (body["id"], body["order_number"]) == (mine.pk, mine.order_number)
    assert not STAFF_ONLY & set(body)


def test_without_a_valid_key_ownership_or_staff_it_is_403(anon, store_client, mine):
    stranger = store_client(UserFactory())
    for client in (anon, stranger):
        for key in (None, "", "wrong", mine.order_key[:-1]):
            error(received(client, mine.pk, key), 403, "invalid_order_key")
    other = make_order()
    error(received(anon, other.pk, mine.order_key), 403, "invalid_order_key")  # another's key
    error(received(anon, 999, "any"), 403, "invalid_order_key")  # no probing for ids


def test_the_owner_and_staff_need_no_key(customer_client, manager_client, admin_client_api, mine):
    for client in (customer_client, manager_client, admin_client_api):
        assert received(client, mine.pk).status_code == 200
    error(received(manager_client, 999), 404, "order_not_found")


# --- Stats and statuses -------------------------------------------------------------------------


def test_stats(manager_client):
    lamp = stocked(price="10.00", stock=100)
    paid = make_order(line(lamp, 2), status="processing")
    services.payment_create(order_id=paid.pk, fields={"amount": "20.00"})
    make_order(line(lamp, 1), status="completed")
    make_order(line(lamp, 5), status="cancelled")
    make_order(line(lamp, 1))
    make_order(line(lamp, 3), status="shipped", currency="USD")
    body = manager_client.get(f"{API}/orders/stats").json()
    assert body["total_orders"] == 5
    assert body["by_status"] == {
        "pending": 1,
        "on_hold": 0,
        "processing": 1,
        "shipped": 1,
        "completed": 1,
        "cancelled": 1,
        "refunded": 0,
        "failed": 0,
    }
    assert body["by_payment_status"]["paid"] == 1
    assert body["by_payment_status"]["unpaid"] == 4
    assert body["by_fulfillment_status"]["unfulfilled"] == 5
    assert body["sales"] == [
        {
            "currency": "EUR",
            "orders": 2,
            "total_sales": "30.00",
            "average_order_value": "15.00",
            "net_paid": "20.00",
            "items_sold": 3,
        },
        {
            "currency": "USD",
            "orders": 1,
            "total_sales": "30.00",
            "average_order_value": "30.00",
            "net_paid": "0.00",
            "items_sold": 3,
        },
    ]
    body = manager_client.get(f"{API}/orders/stats", {"status": "cancelled,pending"}).json()
    assert (body["total_orders"], body["sales"]) == (2, [])
    error(manager_client.get(f"{API}/orders/stats", {"date_from": "x"}), 400, "invalid_param")


def test_statuses(manager_client):
    body = manager_client.get(f"{API}/orders/statuses").json()
    assert [s["value"] for s in body["statuses"]] == [
        "pending",
        "on_hold",
        "processing",
        "shipped",
        "completed",
        "cancelled",
        "refunded",
        "failed",
    ]
    cancelled = next(s for s in body["statuses"] if s["value"] == "cancelled")
    assert cancelled == {
        "value": "cancelled",
        "label": "Cancelled",
        "terminal": True,
        "editable": False,
        "transitions": ["pending", "on_hold", "processing", "refunded"],
    }
    assert all(set(s["transitions"]) == TRANSITIONS[s["value"]] for s in body["statuses"])
    assert [s["value"] for s in body["payment_statuses"]] == [
        "unpaid",
        "partially_paid",
        "paid",
        "partially_refunded",
        "refunded",
    ]
    assert [s["value"] for s in body["fulfillment_statuses"]] == [
        "unfulfilled",
        "partially_fulfilled",
        "fulfilled",
        "returned",
    ]


def test_stats_and_statuses_need_the_orders_capability(anon, customer_client):
    for path in ("stats", "statuses"):
        error(anon.get(f"{API}/orders/{path}"), 401)
        error(customer_client.get(f"{API}/orders/{path}"), 403)
