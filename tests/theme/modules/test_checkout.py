"""End to end through the store's checkout: a promoted cart's order carries the promotion in
its discount and total, and the customer's card payment earns loyalty points once."""

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from store.customers.models import Customer
from store.orders.models import Order
from tests.fixtures.store import basic_auth
from tests.store.checkout.helpers import Shop, complete, started
from tests.theme.modules.conftest import BASE
from theme.modules.points.models import PointsEntry
from theme.modules.promotions import services

pytestmark = pytest.mark.django_db


def test_a_promoted_paid_checkout_orders_the_cut_and_earns_points(
    customer, django_capture_on_commit_callbacks
):
    shop = Shop()
    services.promotion_save(fields={"name": "Ten", "kind": "percent", "value": Decimal(10)})
    Customer.objects.get_or_create(user=customer, defaults={"email": customer.email})
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(customer))
    body = started(client, shop, email=customer.email)
    cart = client.get(f"{BASE}/promotions/cart").json()
    assert cart["discount"] != "0.00"
    with django_capture_on_commit_callbacks(execute=True):
        response = complete(client, body["id"])
    assert response.status_code == 200, response.content
    order = Order.objects.get()
    assert order.payment_status == "paid"
    assert order.discount_total >= Decimal(cart["discount"])
    assert order.total == Decimal(cart["totals"]["total"])
    entry = PointsEntry.objects.get()
    assert entry.user_id == customer.pk
    assert entry.points == int(order.total)
    assert client.get(f"{BASE}/points/balance").json()["balance"] == int(order.total)
