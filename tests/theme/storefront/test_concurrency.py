"""Real concurrent transactions (PostgreSQL): simultaneous wishlist adds keep it unique and
within its bound."""

import pytest

from common.errors import ServiceError
from tests.accounts.factories import UserFactory
from tests.concurrency import race
from tests.store.catalog.factories import make_product
from theme.storefront import services
from theme.storefront.models import WishlistItem

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def test_simultaneous_adds_of_one_product_make_one_row():
    lamp = make_product(title="Lamp")
    user = UserFactory()
    results = race(*[lambda: services.wishlist_add(user=user, product_id=lamp.pk)] * 4)
    assert all(isinstance(r, tuple) for r in results), results
    assert sorted(created for _item, created in results) == [False, False, False, True]
    assert WishlistItem.objects.count() == 1


def test_simultaneous_adds_cannot_pass_the_bound_together(settings):
    settings.THEME_WISHLIST_MAX_ITEMS = 2
    user = UserFactory()
    services.wishlist_add(user=user, product_id=make_product(title="First").pk)
    products = [make_product(title=f"P{n}") for n in range(3)]
    results = race(
        *[lambda p=p: services.wishlist_add(user=user, product_id=p.pk) for p in products]
    )
    refusals = [r for r in results if isinstance(r, ServiceError)]
    assert {r.code for r in refusals} == {"wishlist_full"}, results
    assert len(refusals) == 2
    assert WishlistItem.objects.filter(user=user).count() == 2
