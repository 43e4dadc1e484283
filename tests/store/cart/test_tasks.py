"""Old carts are cleaned by a beat task."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from config.celery import app
from store.cart.models import Cart, CartItem
from store.cart.services import items as item_services
from store.cart.tasks import purge_stale_carts
from store.settings import services as settings_services
from tests.accounts.factories import UserFactory
from tests.store.catalog.factories import make_product

pytestmark = pytest.mark.django_db


def test_the_beat_schedule_runs_the_cleaning():
    tasks = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert {"store_cart.purge_stale_carts", "store_coupons.expire_holds"} <= tasks


def test_idle_carts_are_deleted_after_their_keep_time():
    lamp = make_product(title="Lamp")
    start = timezone.now()
    with time_machine.travel(start - timedelta(days=31)):
        old_guest = item_services.cart_item_add(token=None, product_id=lamp.pk)
        old_customer = item_services.cart_item_add(
            token=None, user=UserFactory(), product_id=lamp.pk
        )
    with time_machine.travel(start - timedelta(days=29)):
        recent_guest = item_services.cart_item_add(token=None, product_id=lamp.pk)
    with time_machine.travel(start - timedelta(days=181)):
        ancient_customer = item_services.cart_item_add(
            token=None, user=UserFactory(), product_id=lamp.pk
        )
    assert purge_stale_carts.delay().get() == 2
    assert set(Cart.objects.values_list("pk", flat=True)) == {old_customer.pk, recent_guest.pk}
    assert not Cart.objects.filter(pk__in=[old_guest.pk, ancient_customer.pk]).exists()
    assert CartItem.objects.count() == 2
    assert purge_stale_carts.delay().get() == 0


def test_a_change_keeps_a_cart_and_the_keep_times_are_settings():
    lamp = make_product(title="Lamp")
    start = timezone.now()
    with time_machine.travel(start - timedelta(days=40)):
        cart = item_services.cart_item_add(token=None, product_id=lamp.pk)
    with time_machine.travel(start - timedelta(days=1)):
        item_services.cart_item_add(token=cart.token, product_id=lamp.pk)
    assert purge_stale_carts.delay().get() == 0
    settings_services.settings_update(section="cart", values={"guest_cart_days": 1})
    assert purge_stale_carts.delay().get() == 1
