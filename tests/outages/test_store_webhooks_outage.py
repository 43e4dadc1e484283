"""Store webhooks while Redis (cache and broker) is stopped: the routes answer, an order is
placed at once, its event's delivery is recorded from the database (the cached subscriptions
are a miss) and waits in the outbox; when Redis is back it is delivered once, signed."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from common import breaker, outbox
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, basic_auth, grant
from tests.integrations.conftest import HOOKS, store_webhook
from tests.outages.conftest import timed
from tests.outages.test_broker_outage import names, waiting, work_off
from tests.store.orders.factories import stocked
from tests.webhooks.conftest import dns, receiver  # noqa: F401
from webhooks import services
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.5  # as tests/outages/test_broker_outage.py


def test_store_webhooks_while_redis_is_stopped(
    redis_broker,
    receiver,  # noqa: F811
    settings,
    django_capture_on_commit_callbacks,
):
    settings.WEBHOOKS_ALLOW_PRIVATE_URLS = True
    staff = APIClient()
    staff.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), "manage_options")))
    hook = store_webhook(url=receiver.url, events=["order.created"])
    receiver.secret = hook.secret
    lamp = stocked(stock=5)
    services.store_events_subscribed()  # cached while Redis is up
    redis_broker.stop()

    with timed() as elapsed:
        listed = staff.get(HOOKS)
        read = staff.get(f"{HOOKS}/{hook.pk}/deliveries")
    assert (listed.status_code, read.status_code) == (200, 200)
    assert elapsed() < 2 * REQUEST_BOUND

    with timed() as elapsed, django_capture_on_commit_callbacks(execute=True):
        placed = staff.post(
            f"{API}/orders", {"items": [{"product_id": lamp.pk, "quantity": 1}]}, format="json"
        )
    assert placed.status_code == 201, placed.content
    assert elapsed() < REQUEST_BOUND
    delivery = Delivery.objects.get(event="order.created")
    assert delivery.payload["data"]["order"]["order_id"] == placed.json()["id"]
    assert waiting("webhooks.deliver").count() == 1
    assert receiver.received == []

    redis_broker.start()
    breaker.reset_all()
    assert outbox.drain() >= 1
    assert "webhooks.deliver" in names(work_off())
    (received,) = receiver.received
    assert received.verified
    assert received.headers["X-Hub-Event"] == "order.created"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Delivery.Status.SUCCEEDED, 1)
