"""The coupon use ledger the checkout calls: hold, confirm, release, expiry of holds."""

from datetime import timedelta

import pytest
from django.utils import timezone

from common.errors import ServiceError
from store.coupons import services
from store.coupons.models import CouponUse
from store.coupons.selectors import Customer
from store.coupons.tasks import expire_holds
from tests.accounts.factories import UserFactory
from tests.store.coupons.factories import make_coupon

pytestmark = pytest.mark.django_db

ALICE = Customer(email="alice@example.com")
BOB = Customer(email="bob@example.com")


def statuses(coupon):
    return sorted(coupon.uses.values_list("order_reference", "status"))


def refused(code, call):
    with pytest.raises(ServiceError) as info:
        call()
    assert info.value.code == code
    return info.value


def test_hold_then_confirm_counts_one_use():
    coupon = make_coupon("ONE", usage_limit=1)
    uses = services.coupon_uses_reserve(codes=["one"], order_reference="o1", customer=ALICE)
    assert [u.status for u in uses] == ["held"]
    coupon.refresh_from_db()
    assert coupon.usage_count == 0
    refused(
        "coupon_usage_limit_reached",
        lambda: services.coupon_uses_reserve(codes=["ONE"], order_reference="o2", customer=BOB),
    )
    services.coupon_uses_confirm(order_reference="o1")
    services.coupon_uses_confirm(order_reference="o1")  # idempotent
    coupon.refresh_from_db()
    assert coupon.usage_count == 1
    assert statuses(coupon) == [("o1", "confirmed")]


def test_reserving_again_refreshes_and_releases_codes_left_out():
    a, b = make_coupon("A"), make_coupon("B")
    services.coupon_uses_reserve(codes=["A", "B"], order_reference="o1", customer=ALICE)
    services.coupon_uses_reserve(codes=["A"], order_reference="o1", customer=ALICE)
    assert statuses(a) == [("o1", "held")]
    assert statuses(b) == [("o1", "released")]
    assert CouponUse.objects.count() == 2


def test_reserve_is_all_or_nothing():
    make_coupon("GOOD")
    make_coupon("OFF", enabled=False)
    refused(
        "coupon_disabled",
        lambda: services.coupon_uses_reserve(
            codes=["GOOD", "OFF"], order_reference="o1", customer=ALICE
        ),
    )
    refused(
        "coupon_not_found",
        lambda: services.coupon_uses_reserve(
            codes=["GOOD", "NOPE"], order_reference="o1", customer=ALICE
        ),
    )
    make_coupon("OLD", expires_at=timezone.now() - timedelta(seconds=1))
    refused(
        "coupon_expired",
        lambda: services.coupon_uses_reserve(codes=["OLD"], order_reference="o1", customer=ALICE),
    )
    assert not CouponUse.objects.exists()


def test_per_customer_limit_counts_account_and_email():
    coupon = make_coupon("ONCE", usage_limit_per_user=1)
    user = UserFactory(email="carol@example.com")
    services.coupon_uses_reserve(
        codes=["ONCE"], order_reference="o1", customer=Customer(user_id=user.pk)
    )
    services.coupon_uses_confirm(order_reference="o1")
    refused(
        "coupon_user_usage_limit_reached",
        lambda: services.coupon_uses_reserve(
            codes=["ONCE"], order_reference="o2", customer=Customer.of(user)
        ),
    )
    refused(  # the same person by e-mail only (a guest checkout)
        "coupon_user_usage_limit_reached",
        lambda: services.coupon_uses_reserve(
            codes=["ONCE"], order_reference="o3", customer=Customer(email="carol@example.com")
        ),
    )
    services.coupon_uses_reserve(codes=["ONCE"], order_reference="o4", customer=BOB)
    assert statuses(coupon) == [("o1", "confirmed"), ("o4", "held")]


def test_an_expired_hold_stops_counting_and_the_task_releases_it():
    coupon = make_coupon("ONE", usage_limit=1)
    past = timezone.now() - timedelta(minutes=30)
    services.coupon_uses_reserve(codes=["ONE"], order_reference="o1", customer=ALICE, now=past)
    services.coupon_uses_reserve(codes=["ONE"], order_reference="o2", customer=BOB)
    assert expire_holds.delay().get() == 1
    assert statuses(coupon) == [("o1", "released"), ("o2", "held")]


def test_confirming_an_expired_hold_rechecks_the_limit():
    coupon = make_coupon("ONE", usage_limit=1)
    past = timezone.now() - timedelta(minutes=30)
    services.coupon_uses_reserve(codes=["ONE"], order_reference="o1", customer=ALICE, now=past)
    services.coupon_uses_reserve(codes=["ONE"], order_reference="o2", customer=BOB)
    refused(
        "coupon_usage_limit_reached", lambda: services.coupon_uses_confirm(order_reference="o1")
    )
    coupon.refresh_from_db()
    assert coupon.usage_count == 0
    services.coupon_uses_confirm(order_reference="o2")
    coupon.refresh_from_db()
    assert coupon.usage_count == 1


def test_release_gives_uses_back():
    coupon = make_coupon("ONE", usage_limit=1)
    services.coupon_uses_reserve(codes=["ONE"], order_reference="o1", customer=ALICE)
    services.coupon_uses_confirm(order_reference="o1")
    assert services.coupon_uses_release(order_reference="o1") == 1
    assert services.coupon_uses_release(order_reference="o1") == 0  # idempotent
    coupon.refresh_from_db()
    assert coupon.usage_count == 0
    services.coupon_uses_reserve(codes=["ONE"], order_reference="o2", customer=BOB)
    services.coupon_uses_confirm(order_reference="o2")
    coupon.refresh_from_db()
    assert coupon.usage_count == 1


def test_a_released_reference_can_be_reserved_again():
    coupon = make_coupon("A")
    services.coupon_uses_reserve(codes=["A"], order_reference="o1", customer=ALICE)
    services.coupon_uses_release(order_reference="o1")
    services.coupon_uses_reserve(codes=["A"], order_reference="o1", customer=ALICE)
    assert statuses(coupon) == [("o1", "held")]


def test_confirm_without_uses_does_nothing():
    assert services.coupon_uses_confirm(order_reference="none") == []
