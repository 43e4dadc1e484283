"""Real concurrent deliveries (PostgreSQL): a marketplace order is imported exactly once."""

from __future__ import annotations

import pytest

from store.marketplace import services
from store.marketplace.models import MarketplaceCall, MarketplaceEvent, MarketplaceOrder
from store.orders.models import Order
from tests.concurrency import race
from tests.store.marketplace.helpers import deliver, enable, generic_event, skroutz_event
from tests.store.orders.factories import stock_of, stocked

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


@pytest.fixture
def lamp():
    return stocked(title="Lamp", stock=10, price="10.40", sku="LAMP-1")


def test_one_webhook_delivered_four_times_at_once_imports_once(lamp):
    enable()
    answers = race(*[lambda: deliver(skroutz_event())] * 4)
    assert [a.status_code for a in answers] == [200] * 4, answers
    assert [a.json()["replayed"] for a in answers].count(False) == 1
    assert MarketplaceEvent.objects.count() == 1
    assert MarketplaceOrder.objects.count() == 1
    assert Order.objects.count() == 1
    assert stock_of(lamp) == 8


def test_events_of_one_order_under_different_ids_at_once_import_it_once(lamp):
    enable("generic")
    answers = race(*[lambda n=n: deliver(generic_event(f"evt-{n}"), "generic") for n in range(4)])
    assert [a.status_code for a in answers] == [200] * 4, answers
    assert MarketplaceEvent.objects.count() == 4
    outcomes = sorted(MarketplaceEvent.objects.values_list("outcome", flat=True))
    assert outcomes == ["duplicate", "duplicate", "duplicate", "imported"]
    assert MarketplaceOrder.objects.get().order is not None
    assert Order.objects.count() == 1
    assert stock_of(lamp) == 9


def test_acknowledging_at_once_calls_the_marketplace_once(lamp):
    enable()
    deliver(skroutz_event())
    row = MarketplaceOrder.objects.get()
    results = race(*[lambda: services.order_acknowledge(marketplace_order_id=row.pk)] * 3)
    assert all(isinstance(r, MarketplaceOrder) for r in results), results
    assert MarketplaceCall.objects.filter(action="acknowledge").count() == 1
