"""The theme storefront with Redis (the cache) stopped: the database is the truth, so every
route still answers (settings, menus, search, cart totals, wishlist, VAT, newsletter, icons),
quickly, without a 5xx; the theme settings written during the outage are read back."""

from __future__ import annotations

import pytest
from django.core import mail
from rest_framework.test import APIClient

from store.common.capabilities import MANAGE_SETTINGS
from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.outages.conftest import timed
from tests.store.cart.helpers import add
from tests.store.catalog.factories import make_product
from theme.storefront import services
from theme.storefront.models import NewsletterSubscription, WishlistItem

pytestmark = pytest.mark.django_db
BASE = "/rest/theme/v1"
REQUEST_BOUND = 2.0  # as tests/outages/test_cache_outage.py


def test_every_storefront_route_answers_with_redis_stopped(
    redis_cache, django_capture_on_commit_callbacks
):
    lamp = make_product(title="Lamp", regular_price="10.00")
    menu = services.menu_save(fields={"location": "primary", "name": "Main"})
    services.menu_item_save(fields={"menu": menu, "label": "Shop", "url": "/shop"})
    stylist = APIClient()
    stylist.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), MANAGE_SETTINGS)))
    guest = APIClient()
    redis_cache.stop()

    def call(method, path, body=None, client=guest):
        with timed() as elapsed:
            response = getattr(client, method)(f"{BASE}/{path}", body, format="json")
        assert response.status_code < 500, (path, response.status_code, response.content[:300])
        assert elapsed() < REQUEST_BOUND, (path, elapsed())
        return response

    assert call("patch", "settings", {"tagline": "Down"}, stylist).status_code == 200
    assert call("get", "settings").json()["settings"]["tagline"] == "Down"
    assert call("get", "menus/primary").json()["items"][0]["label"] == "Shop"
    assert call("get", "search?q=lamp").json()["products"]["total"] == 1
    add(guest, lamp.pk, 2)
    assert call("get", "cart/totals").json()["cart"]["item_count"] == 2
    assert call("post", "wishlist", {"product_id": lamp.pk}).status_code == 201
    assert call("get", f"wishlist/{lamp.pk}").json()["in_wishlist"] is True
    assert WishlistItem.objects.count() == 1
    assert call("post", "validate-vat", {"vat_number": "EL094014201"}).json()["valid"] is True
    with django_capture_on_commit_callbacks(execute=True):
        assert call("post", "newsletter/subscribe", {"email": "a@example.com"}).status_code == 202
    assert NewsletterSubscription.objects.get().status == "pending"
    assert len(mail.outbox) == 1
    assert call("get", "icons").status_code == 200
    assert call("delete", "wishlist").json() == {"deleted": 1}
