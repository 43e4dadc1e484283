"""Shipping while Redis (the cache) is stopped or frozen: the calculation, the cart's methods
and zone writes answer from the database, quickly; nothing is lost. (The redis fixtures are
tests/outages' own.)"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from store.shipping.models import ShippingMethod, ShippingZone
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, basic_auth, grant
from tests.outages.conftest import redis_cache, redis_server, timed  # noqa: F401 - fixtures
from tests.store.cart.helpers import CART, add
from tests.store.catalog.factories import make_product
from tests.store.shipping.factories import make_method, make_zone

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.0  # as tests/outages/test_cache_outage.py


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_shipping_answers_while_redis_is_out(redis_cache, kind):  # noqa: F811
    staff = APIClient()
    staff.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), "ec_manage_shipping")))
    shopper = APIClient()
    greece = make_zone("Greece", countries=["GR"], order=1)
    make_method(greece, title="Courier", cost="3.00")
    lamp = make_product(title="Lamp", regular_price="20.00")
    body = {"address": {"country": "GR"}, "lines": [{"product_id": lamp.pk}]}
    # Redis up: the zone table is cached by the first calculation.
    assert shopper.post(f"{API}/shipping/calculate", body, format="json").status_code == 200
    add(shopper, lamp.pk)

    redis_cache.stop() if kind == "stopped" else redis_cache.freeze()
    calls = {
        "calculate": lambda: shopper.post(f"{API}/shipping/calculate", body, format="json"),
        "create zone": lambda: staff.post(
            f"{API}/shipping/zones",
            {"name": "Germany", "regions": [{"type": "country", "code": "DE"}]},
            format="json",
        ),
        "change method": lambda: staff.patch(
            f"{API}/shipping/methods/{greece.methods.get().pk}",
            {"settings": {"cost": "4.25"}},
            format="json",
        ),
        "reorder": lambda: staff.post(
            f"{API}/shipping/zones/reorder",
            {"ids": [ShippingZone.objects.get(name="Germany").pk]},
            format="json",
        ),
        "add method": lambda: staff.post(
            f"{API}/shipping/zones/{greece.pk}/methods",
            {"type": "local_pickup", "title": "Pickup"},
            format="json",
        ),
        "calculate again": lambda: shopper.post(f"{API}/shipping/calculate", body, format="json"),
        "cart methods": lambda: shopper.get(f"{CART}/shipping-methods"),
        "zones": lambda: staff.get(f"{API}/shipping/zones"),
    }
    answers = {}
    for name, call in calls.items():
        with timed() as elapsed:
            response = call()
        assert response.status_code in (200, 201), (name, response.content)
        assert elapsed() < REQUEST_BOUND, (name, elapsed())
        answers[name] = response.json()
    # The writes are seen at once (the database is the truth while the cache is out).
    assert [(m["title"], m["cost"]) for m in answers["calculate again"]["methods"]] == [
        ("Courier", "4.25"),
        ("Pickup", "0.00"),
    ]
    assert [m["cost"] for m in answers["cart methods"]["methods"]] == ["4.25", "0.00"]
    assert [z["name"] for z in answers["zones"]["zones"]] == ["Germany", "Greece"]
    assert ShippingMethod.objects.count() == 2
