"""The theme modules with Redis (the cache) stopped: the database is the truth, so every
module route still answers quickly without a 5xx, promotions still cut the cart totals (their
rules read from the database), and a group member still pays the group's price."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core import mail
from django.utils import timezone
from rest_framework.test import APIClient

from store.cart.models import Cart
from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.outages.conftest import timed
from tests.store.cart.helpers import add
from tests.store.catalog.factories import make_product
from theme.modules.bundles import services as bundles
from theme.modules.promotions import services as promotion_services
from theme.modules.recover_cart import tasks

pytestmark = pytest.mark.django_db
BASE = "/rest/theme/v1"
REQUEST_BOUND = 2.0  # as tests/outages/test_cache_outage.py


@pytest.fixture(autouse=True)
def _all_modules_on(settings):
    settings.THEME_MODULES = list(settings.THEME_MODULES_ALL)


def test_every_module_route_answers_with_redis_stopped(
    redis_cache, django_capture_on_commit_callbacks
):
    lamp = make_product(title="Lamp", regular_price="50.00")
    promotion_services.promotion_save(
        fields={"name": "Ten", "kind": "percent", "value": Decimal(10)}
    )
    bundles.bundle_save(fields={"title": "Duo", "slug": "duo"}, items=[{"product_id": lamp.pk}])
    member = UserFactory(email="member@example.com")
    staff = APIClient()
    staff.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), "manage_options")))
    me = APIClient()
    me.credentials(HTTP_AUTHORIZATION=basic_auth(member))
    guest = APIClient()
    redis_cache.stop()

    def call(method, path, body=None, client=guest):
        with timed() as elapsed:
            response = getattr(client, method)(f"{BASE}/{path}", body, format="json")
        assert response.status_code < 500, (path, response.status_code, response.content[:300])
        assert elapsed() < REQUEST_BOUND, (path, elapsed())
        return response

    add(guest, lamp.pk, 2)
    assert call("get", "promotions").json()["total"] == 1
    promotions = call("get", "promotions/cart").json()
    assert promotions["discount"] == "10.00"
    assert call("get", "cart/totals").json()["cart"]["discount"] == "10.00"
    assert call("post", "recently-viewed", {"product_id": lamp.pk}).status_code == 201
    assert call("get", "recently-viewed").json()["total"] == 1
    assert call("get", "bundles").json()["total"] == 1
    assert call("get", f"products/names?ids={lamp.pk}").json()["names"] == {str(lamp.pk): "Lamp"}
    assert call("get", f"labels/product/{lamp.pk}").status_code == 200
    quote = {
        "name": "A",
        "email": "a@example.com",
        "items": [{"product_id": lamp.pk, "quantity": 3}],
    }
    assert call("post", "quotes", quote).status_code == 201
    assert call("get", "quotes", client=staff).json()["total"] == 1
    group = {"name": "Trade", "discount_percent": 20, "member_ids": [member.pk]}
    assert call("post", "b2b/groups", group, client=staff).status_code == 201
    assert call("get", "b2b/my-group", client=me).json()["group"]["name"] == "Trade"
    add(me, lamp.pk, 1)
    assert call("get", "cart/totals", client=me).json()["cart"]["subtotal"] == "40.00"
    assert call("get", "points/balance", client=me).json()["balance"] == 0
    assert call("get", "points/transactions", client=me).json()["total"] == 0
    Cart.objects.filter(user=member).update(updated_at=timezone.now() - timedelta(hours=5))
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.recover_abandoned_carts.apply().get() == 1  # as a worker runs it
    link = mail.outbox[-1].body.split("/rest/theme/v1/", 1)[1].split()[0]
    assert call("get", link, client=APIClient()).json()["restored"] == 1
