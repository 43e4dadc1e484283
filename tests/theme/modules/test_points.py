"""Loyalty points: earned once per paid order of a customer's account (after the commit),
reversed once on a refund; read by the logged-in customer only, their own."""

import pytest

from store.customers.models import Customer
from store.orders import services as order_services
from tests.accounts.factories import UserFactory
from tests.store.orders.factories import line, make_order, on_commit, stocked
from tests.theme.modules.conftest import BASE, error, modules_off
from theme.modules.points.models import PointsEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def shopper(customer):
    Customer.objects.create(user=customer, email=customer.email)
    return customer


def _order(user, price="42.50", quantity=2):
    with on_commit():
        return make_order(
            line(stocked(price=price), quantity),
            customer_id=Customer.objects.get(user=user).pk,
        )


def _pay(order, amount=None, kind="payment"):
    with on_commit():
        order_services.payment_create(
            order_id=order.pk,
            fields={"amount": str(amount or order.total), "kind": kind, "status": "completed"},
        )
    order.refresh_from_db()
    return order


def _balance(client) -> int:
    response = client.get(f"{BASE}/points/balance")
    assert response.status_code == 200, response.content
    return response.json()["balance"]


def test_a_paid_order_earns_points_once(store_client, shopper):
    client = store_client(shopper)
    order = _order(shopper)
    assert _balance(client) == 0  # placed, not paid
    order = _pay(order)
    assert order.payment_status == "paid"
    assert _balance(client) == 85  # 85.00 total, 1 point per unit
    with on_commit():  # more events about the same order change nothing
        order_services.order_status_set(order_id=order.pk, status="completed")
    assert _balance(client) == 85
    assert PointsEntry.objects.filter(order=order).count() == 1
    body = client.get(f"{BASE}/points/transactions").json()
    assert body["total"] == 1
    entry = body["transactions"][0]
    assert (entry["kind"], entry["points"], entry["order_id"]) == ("earned", 85, order.pk)
    assert entry["order_number"] == order.order_number


def test_a_refund_reverses_the_points_once(store_client, shopper):
    client = store_client(shopper)
    order = _pay(_order(shopper))
    assert _balance(client) == 85
    order = _pay(order, amount=order.total, kind="refund")
    assert order.payment_status == "refunded"
    assert _balance(client) == 0
    with on_commit():
        order_services.order_status_set(order_id=order.pk, status="refunded")
    assert _balance(client) == 0
    kinds = sorted(PointsEntry.objects.filter(order=order).values_list("kind", "points"))
    assert kinds == [("earned", 85), ("reversed", -85)]
    assert client.get(f"{BASE}/points/transactions").json()["total"] == 2


def test_an_order_refunded_in_part_is_reversed(store_client, shopper):
    client = store_client(shopper)
    order = _pay(_order(shopper))
    _pay(order, amount="10.00", kind="refund")
    assert _balance(client) == 0


def test_an_unpaid_or_guest_order_earns_nothing(store_client, shopper):
    guest_order = make_order(line(stocked(price="20.00")))
    _pay(guest_order)
    _order(shopper)
    assert PointsEntry.objects.count() == 0


def test_no_points_while_the_module_is_off(settings, store_client, shopper):
    modules_off(settings, "points")
    _pay(_order(shopper))
    assert PointsEntry.objects.count() == 0


def test_points_are_the_customers_own(store_client, shopper, anon):
    _pay(_order(shopper))
    other = store_client(UserFactory(email="other@example.com"))
    assert _balance(other) == 0
    assert other.get(f"{BASE}/points/transactions").json()["transactions"] == []
    error(anon.get(f"{BASE}/points/balance"), 401)
    error(anon.get(f"{BASE}/points/transactions"), 401)


def test_points_transactions_query_ceiling(store_client, shopper, django_assert_max_num_queries):
    for _ in range(4):
        _pay(_order(shopper, price="5.00", quantity=1))
    client = store_client(shopper)
    client.get(f"{BASE}/points/transactions")
    with django_assert_max_num_queries(8):
        body = client.get(f"{BASE}/points/transactions?per_page=50").json()
    assert body["total"] == 4
    assert _balance(client) == 20


def test_a_status_change_of_an_unpaid_order_costs_the_points_nothing(shopper):
    from unittest import mock

    from theme.modules.points import services as module_services

    order = _order(shopper)
    paid = _pay(_order(shopper))
    real_sync = module_services.points_sync
    with mock.patch.object(module_services, "points_sync", side_effect=real_sync) as sync:
        with on_commit():  # unpaid: no points to earn or reverse, no transaction for them
            order_services.order_status_set(order_id=order.pk, status="cancelled")
        assert sync.call_count == 0
        with on_commit():  # paid: brought up to date
            order_services.order_status_set(order_id=paid.pk, status="completed")
        assert sync.call_count == 1
    assert PointsEntry.objects.filter(order=paid).count() == 1
    assert not PointsEntry.objects.filter(order=order).exists()
