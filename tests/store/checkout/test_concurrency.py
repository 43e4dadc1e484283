"""Real concurrent requests (PostgreSQL): the last unit, a one-use coupon and a double
complete, each settled by the locks — one order, and a clear refusal for the others."""

import pytest
from rest_framework.test import APIClient

from store.catalog.services import products as product_services
from store.checkout.models import Checkout
from store.checkout.services import expiry
from store.coupons.models import Coupon, CouponUse
from store.inventory.models import StockMovement
from store.orders.models import Order, Payment
from store.payments.models import SandboxCharge
from tests.concurrency import race
from tests.fixtures.store import API
from tests.store.cart.helpers import add
from tests.store.checkout.helpers import DECLINED, Shop, complete, cookie_of, start
from tests.store.coupons.factories import make_coupon

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def same_session(client: APIClient) -> APIClient:
    """Another client (for another thread) carrying the same cart cookie."""
    twin = APIClient()
    twin.cookies.load({"ec_cart_id": cookie_of(client)})
    return twin


def shopper(shop: Shop, *, coupon: str | None = None) -> tuple[APIClient, int]:
    client = APIClient()
    assert add(client, shop.lamp.pk, 1).status_code == 200
    if coupon:
        response = client.post(f"{API}/coupons/apply", {"code": coupon}, format="json")
        assert response.status_code == 200, response.content
    response = start(client)
    assert response.status_code == 201, response.content
    return client, response.json()["id"]


def statuses(results) -> list[int]:
    return sorted(r.status_code for r in results)


def test_two_shoppers_starting_after_the_last_unit_one_holds_it():
    shop = Shop()
    product_services.product_update(product_id=shop.lamp.pk, fields={"stock_quantity": 1})
    clients = [APIClient(), APIClient()]
    for client in clients:
        assert add(client, shop.lamp.pk, 1).status_code == 200
    results = race(*[lambda c=c: start(c) for c in clients])
    assert statuses(results) == [201, 409], [r.content for r in results]
    refused = next(r for r in results if r.status_code == 409)
    assert refused.json()["code"] == "insufficient_stock"
    assert Checkout.objects.count() == 1
    assert shop.stock() == 0


def test_two_shoppers_completing_after_the_last_unit_get_one_order():
    shop = Shop()
    product_services.product_update(product_id=shop.lamp.pk, fields={"stock_quantity": 2})
    (first, first_id), (second, second_id) = shopper(shop), shopper(shop)
    for checkout_id in (first_id, second_id):  # their holds ran out ...
        assert expiry.checkout_hold_expire(checkout_id=checkout_id, force=True)
    # ... and a stocktake found one lamp.
    product_services.product_update(product_id=shop.lamp.pk, fields={"stock_quantity": 1})
    results = race(lambda: complete(first, first_id), lambda: complete(second, second_id))
    assert statuses(results) == [200, 409], [r.content for r in results]
    refused = next(r for r in results if r.status_code == 409)
    assert refused.json()["code"] == "insufficient_stock"
    assert "Lamp: 0 available, 1 wanted" in refused.json()["message"]
    assert Order.objects.count() == 1
    assert SandboxCharge.objects.count() == 1  # the refused one was never charged
    assert shop.stock() == 0
    total = sum(StockMovement.objects.filter(product=shop.lamp).values_list("quantity", flat=True))
    assert total == 0
    assert sorted(Checkout.objects.values_list("status", flat=True)) == ["completed", "expired"]


def test_a_one_use_coupon_is_held_by_one_of_two_simultaneous_checkouts():
    shop = Shop()
    make_coupon("ONCE", "percent", 10, usage_limit=1)
    clients = [APIClient(), APIClient()]
    for client in clients:
        add(client, shop.lamp.pk, 1)
        client.post(f"{API}/coupons/apply", {"code": "ONCE"}, format="json")
    results = race(*[lambda c=c: start(c) for c in clients])
    assert statuses(results) == [201, 400], [r.content for r in results]
    assert next(r for r in results if r.status_code == 400).json()["code"] == (
        "coupon_usage_limit_reached"
    )
    assert list(CouponUse.objects.values_list("status", flat=True)) == ["held"]


def test_a_one_use_coupon_is_used_by_one_of_two_simultaneous_completes():
    shop = Shop()
    make_coupon("ONCE", "percent", 10, usage_limit=1)
    # Each checkout held the coupon's one use in turn, and each hold ran out: both are open
    # without a hold when they complete together.
    first, first_id = shopper(shop, coupon="ONCE")
    second = APIClient()
    add(second, shop.lamp.pk, 1)
    assert expiry.checkout_hold_expire(checkout_id=first_id, force=True)
    second.post(f"{API}/coupons/apply", {"code": "ONCE"}, format="json")
    second_id = start(second).json()["id"]
    assert expiry.checkout_hold_expire(checkout_id=second_id, force=True)
    results = race(lambda: complete(first, first_id), lambda: complete(second, second_id))
    assert statuses(results) == [200, 400], [r.content for r in results]
    assert next(r for r in results if r.status_code == 400).json()["code"] == (
        "coupon_usage_limit_reached"
    )
    assert Order.objects.count() == 1
    assert Order.objects.get().coupon_lines[0]["code"] == "ONCE"
    assert Coupon.objects.get().usage_count == 1
    assert list(CouponUse.objects.exclude(status="released").values_list("status", flat=True)) == [
        "confirmed"
    ]


def test_completing_one_checkout_twice_at_once_places_and_charges_once():
    shop = Shop()
    client, checkout_id = shopper(shop)
    clients = [same_session(client) for _ in range(3)]
    results = race(*[lambda c=c: complete(c, checkout_id) for c in clients])
    assert statuses(results) == [200, 200, 200], [r.content for r in results]
    assert len({r.json()["order_id"] for r in results}) == 1
    assert Order.objects.count() == 1
    assert SandboxCharge.objects.count() == 1
    assert Payment.objects.count() == 1
    assert Order.objects.get().payment_status == "paid"
    assert shop.stock() == 4


def test_an_order_paid_while_the_beat_cancels_it_is_either_paid_or_cancelled():
    shop = Shop()
    client, checkout_id = shopper(shop)
    assert complete(client, checkout_id, payment_data=DECLINED).status_code == 402
    results = race(
        lambda: complete(same_session(client), checkout_id),
        lambda: expiry.checkout_cancel_unpaid(checkout_id=checkout_id, force=True),
    )
    order = Order.objects.get()
    answer, cancelled = results
    if cancelled is True:
        assert answer.status_code == 409, answer.content
        assert (order.status, order.payment_status) == ("cancelled", "unpaid")
    else:
        assert answer.status_code == 200, answer.content
        assert (order.status, order.payment_status) == ("processing", "paid")
    assert Checkout.objects.get().status in ("cancelled", "completed")
