"""Marketplace sync while the broker refuses and while Redis is stopped: the signed webhook
is answered 200 from the database at once, its event waits `pending` in the outbox, and is
imported once when the broker is back (a second delivery meanwhile is a replay)."""

from __future__ import annotations

import pytest

from common import breaker, outbox
from store.marketplace.models import EventStatus, MarketplaceEvent, MarketplaceOrder
from store.marketplace.services import PROCESS_TASK
from store.orders.models import Order
from tests.outages.conftest import timed
from tests.outages.test_broker_outage import names, waiting, work_off
from tests.outbox import broker_down
from tests.store.marketplace.helpers import deliver, enable, skroutz_event, staff
from tests.store.orders.factories import stock_of, stocked

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.5  # as tests/outages/test_broker_outage.py


@pytest.fixture
def lamp(db):
    return stocked(title="Lamp", stock=10, price="10.40", sku="LAMP-1")


def test_a_webhook_while_the_broker_refuses(lamp):
    enable()
    with broker_down():
        answer = deliver(skroutz_event())
        again = deliver(skroutz_event())
    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "pending"
    assert again.json()["replayed"] is True
    event = MarketplaceEvent.objects.get()
    assert event.status == EventStatus.PENDING
    assert waiting(PROCESS_TASK).count() == 1
    assert not Order.objects.exists()
    # The broker is back: the beat's drain publishes it, the eager worker imports it.
    breaker.reset_all()
    assert outbox.drain() == 1
    event.refresh_from_db()
    assert (event.status, event.outcome) == (EventStatus.PROCESSED, "imported")
    assert MarketplaceOrder.objects.get().order is not None
    assert stock_of(lamp) == 8


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_a_webhook_and_the_staff_routes_while_redis_is_out(lamp, redis_broker, kind):
    enable()
    redis_broker.stop() if kind == "stopped" else redis_broker.freeze()
    with timed() as elapsed:
        answer = deliver(skroutz_event())
    assert answer.status_code == 200, answer.content
    assert elapsed() < REQUEST_BOUND
    assert MarketplaceEvent.objects.get().status == EventStatus.PENDING
    client = staff()
    listed = client.get("/rest/ec/v1/marketplace/orders")
    settings_read = client.get("/rest/ec/v1/marketplace/settings")
    assert (listed.status_code, settings_read.status_code) == (200, 200)
    assert waiting(PROCESS_TASK).count() == 1
    if kind == "frozen":
        redis_broker.thaw()
    else:
        redis_broker.start()
    breaker.reset_all()
    assert outbox.drain() == 1
    assert PROCESS_TASK in names(work_off())
    assert MarketplaceOrder.objects.get().import_status == "imported"
    assert stock_of(lamp) == 8
