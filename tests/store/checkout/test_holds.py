"""Holds end with their time (beat), unpaid orders are cancelled (beat), coupon uses follow
their order's status, and a checkout follows its cart when a guest logs in."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery import app
from store.checkout import tasks
from store.checkout.models import Checkout
from store.coupons.models import Coupon, CouponUse
from store.inventory.models import StockMovement
from store.orders import services as order_services
from store.orders.models import Order
from store.settings import services as settings_services
from tests.fixtures.store import API, error
from tests.store.cart.helpers import add
from tests.store.checkout.helpers import CHECKOUT, DECLINED, complete, start, started
from tests.store.coupons.factories import make_coupon

pytestmark = pytest.mark.django_db


def later(**delta):
    return time_machine.travel(timezone.now() + timedelta(**delta), tick=False)


@pytest.fixture
def with_coupon(anon, shop):
    """A checkout of 2 lamps and a mug with a 10% coupon limited to 3 uses."""
    make_coupon("TEN", "percent", 10, usage_limit=3)
    add(anon, shop.lamp.pk, 2)
    add(anon, shop.mug.pk, 1)
    anon.post(f"{API}/coupons/apply", {"code": "TEN"}, format="json")
    response = start(anon)
    assert response.status_code == 201, response.content
    return response.json()


def use_status() -> list[str]:
    return list(CouponUse.objects.values_list("status", flat=True))


def test_the_beat_runs_both_jobs_every_minute():
    entries = {entry["task"]: entry["schedule"] for entry in app.conf.beat_schedule.values()}
    assert entries["store_checkout.expire_holds"] == 60.0
    assert entries["store_checkout.cancel_unpaid_orders"] == 60.0


def test_a_hold_ends_after_its_minutes_and_the_stock_and_coupon_come_back(anon, shop, with_coupon):
    assert shop.stock() == 3
    assert use_status() == ["held"]
    with later(minutes=9):
        assert tasks.expire_holds() == 0
    assert shop.stock() == 3
    with later(minutes=10, seconds=1):
        assert tasks.expire_holds() == 1
        assert tasks.expire_holds() == 0  # a second beat changes nothing
    assert shop.stock() == 5
    assert use_status() == ["released"]
    checkout = Checkout.objects.get()
    assert (checkout.status, checkout.hold_cart_id) == ("expired", None)
    released = StockMovement.objects.get(product=shop.lamp, reason="checkout_hold_released")
    assert released.quantity == 2
    read = anon.get(f"{CHECKOUT}/{with_coupon['id']}").json()
    assert read["status"] == "expired"
    assert read["hold"] == {"active": False, "stock_held": False, "expires_at": None, "minutes": 10}


def test_each_write_extends_the_hold(anon, shop, with_coupon):
    with later(minutes=8):
        assert anon.patch(f"{CHECKOUT}/{with_coupon['id']}", {}, format="json").status_code == 200
    with later(minutes=12):
        assert tasks.expire_holds() == 0
    with later(minutes=18, seconds=1):
        assert tasks.expire_holds() == 1


def test_an_expired_checkout_holds_again_when_touched(anon, shop, with_coupon):
    with later(minutes=11):
        tasks.expire_holds()
    assert shop.stock() == 5
    response = anon.patch(f"{CHECKOUT}/{with_coupon['id']}", {}, format="json")
    assert response.status_code == 200
    assert response.json()["status"] == "open"
    assert shop.stock() == 3
    assert use_status() == ["held"]


def test_an_expired_checkout_completes_when_the_stock_is_still_there(anon, shop, with_coupon):
    with later(minutes=11):
        tasks.expire_holds()
    response = complete(anon, with_coupon["id"])
    assert response.status_code == 200, response.content
    assert shop.stock() == 3
    assert use_status() == ["confirmed"]


def test_an_order_left_unpaid_is_cancelled_and_gives_everything_back(
    anon, shop, with_coupon, django_capture_on_commit_callbacks
):
    error(complete(anon, with_coupon["id"], payment_data=DECLINED), 402, "payment_declined")
    order = Order.objects.get()
    assert shop.stock() == 3
    assert use_status() == ["confirmed"]
    assert Coupon.objects.get().usage_count == 1
    with later(minutes=59):
        assert tasks.cancel_unpaid_orders() == 0
    with later(minutes=60, seconds=1), django_capture_on_commit_callbacks(execute=True):
        assert tasks.cancel_unpaid_orders() == 1  # stock: the orders' release task, on commit
        assert tasks.cancel_unpaid_orders() == 0
    order.refresh_from_db()
    assert (order.status, order.payment_status) == ("cancelled", "unpaid")
    history = order.history.filter(field="status").last()
    assert (history.to_value, history.source) == ("cancelled", "system")
    assert shop.stock() == 5  # the release task ran (eagerly here)
    assert use_status() == ["released"]
    assert Coupon.objects.get().usage_count == 0
    checkout = Checkout.objects.get()
    assert (checkout.status, checkout.payment_due_at) == ("cancelled", None)
    error(complete(anon, with_coupon["id"]), 409, "checkout_cancelled")


def test_an_order_paid_by_the_deadline_is_not_cancelled(anon, shop, with_coupon):
    response = complete(anon, with_coupon["id"], payment_method="bank_transfer", payment_data=None)
    assert response.json()["status"] == "on_hold"
    order = Order.objects.get()
    order_services.payment_create(order_id=order.pk, fields={"amount": order.total})
    with later(hours=24, minutes=1):
        assert tasks.cancel_unpaid_orders() == 0
    order.refresh_from_db()
    assert (order.status, order.payment_status) == ("on_hold", "paid")
    assert Checkout.objects.get().payment_due_at is None
    assert use_status() == ["confirmed"]


def test_a_bank_transfer_left_unpaid_for_2_hours_is_cancelled(
    anon, shop, with_coupon, django_capture_on_commit_callbacks
):
    """Stock hoarding: an unpaid bank-transfer order holds its stock 2 hours by default
    (checkout.offline_payment_hold_minutes, shorter than payments.bank_transfer_hold_hours'
    24), then the beat cancels it and gives it back."""
    complete(anon, with_coupon["id"], payment_method="bank_transfer", payment_data=None)
    assert shop.stock() == 3
    with later(hours=1, minutes=59):
        assert tasks.cancel_unpaid_orders() == 0
    assert Order.objects.get().status == "on_hold"
    with later(hours=2, minutes=1), django_capture_on_commit_callbacks(execute=True):
        assert tasks.cancel_unpaid_orders() == 1
    assert Order.objects.get().status == "cancelled"
    assert shop.stock() == 5
    assert use_status() == ["released"]


@pytest.mark.parametrize(
    ("values", "hours"),
    [
        ({"payments": {"bank_transfer_hold_hours": 1}}, 1),  # the gateway's, when shorter
        ({"checkout": {"offline_payment_hold_minutes": 600}}, 10),  # under the gateway's 24
        ({"checkout": {"offline_payment_hold_minutes": 3000}}, 24),  # the gateway's 24
    ],
)
def test_the_bank_transfer_hold_is_the_shorter_of_two_settings(
    anon, shop, with_coupon, django_capture_on_commit_callbacks, values, hours
):
    for section, changed in values.items():
        settings_services.settings_update(section=section, values=changed)
    complete(anon, with_coupon["id"], payment_method="bank_transfer", payment_data=None)
    with later(hours=hours, minutes=-1):
        assert tasks.cancel_unpaid_orders() == 0
    with later(hours=hours, minutes=1), django_capture_on_commit_callbacks(execute=True):
        assert tasks.cancel_unpaid_orders() == 1
    assert shop.stock() == 5


def test_cash_on_delivery_orders_are_never_cancelled_for_being_unpaid(anon, shop, with_coupon):
    complete(anon, with_coupon["id"], payment_method="cash_on_delivery", payment_data=None)
    with later(days=30):
        assert tasks.cancel_unpaid_orders() == 0
    assert Order.objects.get().status == "processing"


def test_coupon_uses_follow_the_orders_status(anon, shop, with_coupon):
    order_id = complete(anon, with_coupon["id"]).json()["order_id"]
    assert Coupon.objects.get().usage_count == 1
    order_services.order_status_set(order_id=order_id, status="cancelled")
    assert (use_status(), Coupon.objects.get().usage_count) == (["released"], 0)
    order_services.order_status_set(order_id=order_id, status="processing")
    assert (use_status(), Coupon.objects.get().usage_count) == (["confirmed"], 1)
    order_services.order_delete(order_id=order_id)
    assert (use_status(), Coupon.objects.get().usage_count) == (["released"], 0)


def test_staff_may_end_a_hold_or_cancel_an_unpaid_order_early(anon, shop, with_coupon):
    from store.checkout.services import expiry

    assert expiry.checkout_hold_expire(checkout_id=with_coupon["id"]) is False  # not yet due
    assert expiry.checkout_hold_expire(checkout_id=with_coupon["id"], force=True) is True
    assert shop.stock() == 5
    complete(anon, with_coupon["id"], payment_data=DECLINED)
    assert expiry.checkout_cancel_unpaid(checkout_id=with_coupon["id"]) is False
    assert expiry.checkout_cancel_unpaid(checkout_id=with_coupon["id"], force=True) is True
    assert Order.objects.get().status == "cancelled"


def test_a_guests_checkout_follows_the_cart_into_the_account(anon, shop, store_client, customer):
    body = started(anon, shop)
    assert shop.stock() == 3
    # The customer's own cart on another device, with an open checkout of its own.
    own = store_client(customer)
    add(own, shop.lamp.pk, 1)
    assert start(own).status_code == 201
    own_checkout = Checkout.objects.get(user=customer)
    assert shop.stock() == 2
    # The guest logs in at the checkout: the carts merge, the guest's checkout moves.
    response = anon.post(
        f"{CHECKOUT}/login",
        {"email": customer.email, "password": "Sturdy-Passphrase-2026"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["checkout_id"] == body["id"]
    items = {i["title"]: i["quantity"] for i in response.json()["cart"]["items"]}
    assert items == {"Lamp": 3, "Mug": 1}
    moved = Checkout.objects.get(pk=body["id"])
    own_checkout.refresh_from_db()
    assert (moved.user, moved.cart.user, moved.status, moved.hold_cart_id) == (
        customer,
        customer,
        "open",
        None,
    )
    assert own_checkout.status == "cancelled"
    assert shop.stock() == 5  # both holds given back; the next write holds the merged cart
    nonce = response.json()["nonce"]
    response = anon.patch(
        f"{CHECKOUT}/{body['id']}", {}, format="json", HTTP_X_PLATFORM_NONCE=nonce
    )
    assert response.status_code == 200, response.content
    assert response.json()["hold"]["stock_held"] is True
    assert shop.stock() == 2
    # Without the login (cookie alone, no nonce) the checkout is no longer reachable.
    error(APIClient().get(f"{CHECKOUT}/{body['id']}"), 404, "checkout_not_found")
