"""Real concurrent transactions (PostgreSQL): a coupon's uses are counted once, atomically."""

import pytest
from django.db import transaction

from common.errors import ServiceError
from store.coupons import services
from store.coupons.models import Coupon, CouponUse
from store.coupons.selectors import Customer
from tests.concurrency import race
from tests.store.coupons.factories import make_coupon

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def checkout(reference: str, customer: Customer, codes=("ONCE",)):
    """What the checkout does when an order is placed: hold, then confirm, in one transaction."""

    def place():
        with transaction.atomic():
            services.coupon_uses_reserve(
                codes=list(codes), order_reference=reference, customer=customer
            )
            return services.coupon_uses_confirm(order_reference=reference)

    return place


def test_a_single_use_coupon_is_used_once_by_simultaneous_checkouts():
    make_coupon("ONCE", usage_limit=1)
    results = race(*[checkout(f"order-{n}", Customer(email=f"c{n}@example.com")) for n in range(4)])
    placed = [r for r in results if isinstance(r, list)]
    refusals = [r for r in results if isinstance(r, ServiceError)]
    assert len(placed) == 1, results
    assert {r.code for r in refusals} == {"coupon_usage_limit_reached"}
    assert Coupon.objects.get().usage_count == 1
    assert CouponUse.objects.filter(status="confirmed").count() == 1


def test_a_per_customer_limit_holds_under_simultaneous_checkouts():
    make_coupon("ONCE", usage_limit_per_user=1)
    alice = Customer(email="alice@example.com")
    results = race(*[checkout(f"order-{n}", alice) for n in range(3)])
    assert sum(isinstance(r, list) for r in results) == 1, results
    assert {r.code for r in results if isinstance(r, ServiceError)} == {
        "coupon_user_usage_limit_reached"
    }
    assert Coupon.objects.get().usage_count == 1


def test_simultaneous_holds_of_two_coupons_in_opposite_orders_do_not_deadlock():
    make_coupon("A", usage_limit=1)
    make_coupon("B", usage_limit=1)
    results = race(
        checkout("order-1", Customer(email="a@example.com"), codes=("A", "B")),
        checkout("order-2", Customer(email="b@example.com"), codes=("B", "A")),
    )
    assert sum(isinstance(r, list) for r in results) == 1, results
    assert list(Coupon.objects.order_by("code").values_list("usage_count", flat=True)) == [1, 1]


def test_simultaneous_holds_then_confirms_count_each_use_once():
    make_coupon("MANY", usage_limit=3)
    results = race(
        *[checkout(f"order-{n}", Customer(email=f"c{n}@example.com"), ("MANY",)) for n in range(5)]
    )
    assert sum(isinstance(r, list) for r in results) == 3, results
    assert Coupon.objects.get().usage_count == 3


def test_a_release_racing_a_confirm_leaves_a_consistent_count():
    coupon = make_coupon("ONCE", usage_limit=1)
    services.coupon_uses_reserve(codes=["ONCE"], order_reference="o1", customer=Customer())
    race(
        lambda: services.coupon_uses_confirm(order_reference="o1"),
        lambda: services.coupon_uses_release(order_reference="o1"),
    )
    coupon.refresh_from_db()
    confirmed = CouponUse.objects.filter(status="confirmed").count()
    assert coupon.usage_count == confirmed
