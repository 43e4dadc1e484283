"""Real concurrent transactions (PostgreSQL): one cart's writes queue, a customer gets one cart."""

import pytest

from common.errors import ServiceError
from store.cart.models import Cart, CartItem
from store.cart.services import items as item_services
from store.cart.services.session import cart_merge_on_login
from tests.accounts.factories import UserFactory
from tests.concurrency import race
from tests.store.catalog.factories import make_product

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def test_simultaneous_adds_of_one_item_to_one_cart_make_one_line():
    lamp = make_product(title="Lamp")
    cart = item_services.cart_item_add(token=None, product_id=lamp.pk, quantity=1)
    results = race(*[lambda: item_services.cart_item_add(token=cart.token, product_id=lamp.pk)] * 4)
    assert all(isinstance(r, Cart) for r in results), results
    assert list(CartItem.objects.values_list("quantity", flat=True)) == [5]


def test_simultaneous_adds_cannot_pass_the_stock_together():
    vase = make_product(title="Vase", track_inventory=True, stock_quantity=2)
    cart = item_services.cart_item_add(token=None, product_id=vase.pk, quantity=1)
    results = race(*[lambda: item_services.cart_item_add(token=cart.token, product_id=vase.pk)] * 3)
    refusals = [r for r in results if isinstance(r, ServiceError)]
    assert {r.code for r in refusals} == {"insufficient_stock"}, results
    assert len(refusals) == 2
    assert CartItem.objects.get().quantity == 2


def test_a_customers_first_simultaneous_adds_make_one_cart():
    lamp = make_product(title="Lamp")
    user = UserFactory()
    results = race(
        *[lambda: item_services.cart_item_add(token=None, user=user, product_id=lamp.pk)] * 3
    )
    assert all(isinstance(r, Cart) for r in results), results
    assert Cart.objects.count() == 1
    assert CartItem.objects.get().quantity == 3


def test_two_guest_carts_merging_at_once_end_in_one_customer_cart():
    lamp, mug = make_product(title="Lamp"), make_product(title="Mug")
    first = item_services.cart_item_add(token=None, product_id=lamp.pk)
    second = item_services.cart_item_add(token=None, product_id=mug.pk)
    user = UserFactory()
    results = race(
        lambda: cart_merge_on_login(user=user, token=first.token),
        lambda: cart_merge_on_login(user=user, token=second.token),
    )
    assert all(isinstance(r, Cart) for r in results), results
    cart = Cart.objects.get()
    assert cart.user == user
    assert sorted(cart.items.values_list("product__title", flat=True)) == ["Lamp", "Mug"]
