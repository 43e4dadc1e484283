"""Customers and my account while Redis (the cache) is stopped or frozen, and while the broker
refuses: every route answers from the database, quickly; nothing is lost."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import User
from common.models import OutboxMessage
from store.customers import services
from store.customers.models import Customer
from store.emails.models import SentEmail
from store.emails.services import SEND_TASK
from store.orders import selectors as order_selectors
from tests.accounts.factories import PASSWORD, UserFactory
from tests.fixtures.store import API, basic_auth, grant
from tests.outages.conftest import timed
from tests.outbox import broker_down
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.0  # as tests/outages/test_cache_outage.py
ATHENS = {
    "first_name": "Ana",
    "last_name": "Pappas",
    "address_1": "Odos 1",
    "city": "Athens",
    "postcode": "10558",
    "country": "GR",
}


def client_of(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(user))
    return client


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_customer_routes_answer_while_redis_is_out(redis_cache, kind):
    staff = client_of(grant(UserFactory(), "ec_manage_customers"))
    shopper_user = UserFactory()
    shopper = client_of(shopper_user)
    customer = CustomerFactory()
    product = stocked(stock=100)
    for status in ("processing", "completed"):
        make_order(line(product), customer=customer, status=status)
    orders_url = f"{API}/customers/{customer.pk}/orders"
    # Redis up: the customer's order total is cached (the orders list's counts).
    assert staff.get(orders_url).json()["total"] == 2
    counted = dict.fromkeys(order_selectors.COUNTED) | {"customer_id": customer.pk}
    assert order_selectors.COUNTS.get_tagged(counted)[0] == 2

    redis_cache.stop() if kind == "stopped" else redis_cache.freeze()
    calls = {
        "list": lambda: staff.get(f"{API}/customers"),
        "with stats": lambda: staff.get(f"{API}/customers-with-stats"),
        "orders": lambda: staff.get(orders_url),
        "stats": lambda: staff.get(f"{API}/customers/{customer.pk}/stats"),
        "create": lambda: staff.post(
            f"{API}/customers", {"email": "new@example.com", "billing": ATHENS}, format="json"
        ),
        "account": lambda: shopper.get(f"{API}/account"),
        "my address": lambda: shopper.put(
            f"{API}/account/addresses/billing", ATHENS, format="json"
        ),
    }
    answers = {}
    for name, call in calls.items():
        with timed() as elapsed:
            response = call()
        assert response.status_code in (200, 201), (name, response.content)
        assert elapsed() < REQUEST_BOUND, (name, elapsed())
        answers[name] = response.json()
    assert answers["orders"]["total"] == 2
    assert answers["with stats"]["customers"][-1]["total_spent"] == "20.00"
    assert answers["create"]["billing"]["city"] == "Athens"
    assert Customer.objects.get(email="new@example.com").addresses.count() == 1
    assert services.customer_for_user(user=shopper_user).addresses.count() == 1
    assert cache.get("anything") is None


def test_an_email_change_is_kept_while_the_broker_refuses(django_capture_on_commit_callbacks):
    user = UserFactory(email="old@example.com")
    client = client_of(user)
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        response = client.patch(
            f"{API}/account/details",
            {"email": "new@example.com", "current_password": PASSWORD},
            format="json",
        )
    assert response.status_code == 200, response.content
    user = User.objects.get(pk=user.pk)
    assert (user.email, user.email_verified) == ("new@example.com", False)
    # the verification e-mail (a store customer's: through the store's templates) waits in
    # the outbox for the broker
    waiting = OutboxMessage.objects.filter(sent_at__isnull=True)
    assert waiting.filter(task=SEND_TASK).exists()
    assert SentEmail.objects.get(recipient="new@example.com").type == "customer_verify_email"
