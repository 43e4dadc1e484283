"""Payments while the broker refuses and while Redis is out: a refund with restock and a
signed webhook still answer from the database, correctly; the stock release waits in the
outbox until the broker is back."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from common.models import OutboxMessage
from store.orders.models import Order
from store.orders.services.stock import RELEASE_TASK
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, basic_auth, grant
from tests.outbox import broker_down
from tests.store.payments.helpers import deliver, enable, order_for, pay, signed, start

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def online(settings):
    settings.PAYMENT_SANDBOX_ALLOWED = True
    enable("stripe")


def staff() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), "ec_manage_payments")))
    return client


def test_a_refund_with_restock_while_the_broker_refuses(online):
    shopper = APIClient()
    order, _product = order_for("stripe", price="10.00")
    pay(shopper, "stripe", order)
    with broker_down():
        response = staff().post(
            f"{API}/payment/refund/{order.pk}", {"restock": True}, format="json"
        )
    assert response.status_code == 201, response.content
    order = Order.objects.get(pk=order.pk)
    assert (order.payment_status, order.status) == ("refunded", "refunded")
    # The stock release is kept (outbox row and the order's flag), to run once it is back.
    assert OutboxMessage.objects.filter(task=RELEASE_TASK).exists()
    assert order.stock_release_pending


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_a_webhook_while_redis_is_out(online, redis_cache, kind):
    shopper = APIClient()
    order, _ = order_for("stripe")
    started = start(shopper, "stripe", order)
    body, header = signed("stripe", started["id"])
    redis_cache.stop() if kind == "stopped" else redis_cache.freeze()
    answer = deliver(shopper, "stripe", body, header)
    assert answer.status_code == 200, answer.content
    assert answer.json()["outcome"] == "recorded"
    assert deliver(shopper, "stripe", body, header).json()["outcome"] == "replayed"
    assert Order.objects.get(pk=order.pk).payment_status == "paid"
    assert django_settings.PAYMENT_SANDBOX_ALLOWED
