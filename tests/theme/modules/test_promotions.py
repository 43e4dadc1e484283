"""Promotions: the public list of active rules, and the real cart totals (ec/v1 /cart and the
theme's /cart/totals) cut by them through the ec_cart_calculated_totals hook."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.store.cart.helpers import CART, add, cart_of
from tests.store.catalog.factories import make_product
from tests.theme.modules.conftest import BASE, modules_off
from theme.modules import services

pytestmark = pytest.mark.django_db


def rule(**fields):
    fields.setdefault("name", "Ten off")
    fields.setdefault("kind", "percent")
    fields.setdefault("value", Decimal("10"))
    return services.promotion_save(fields=fields)


@pytest.fixture
def shopper():
    client = APIClient()
    lamp = make_product(title="Lamp", regular_price="50.00")
    assert add(client, lamp.pk, 2).status_code == 200
    return client


def test_the_public_list_shows_active_rules_in_their_dates(anon):
    now = timezone.now()
    rule(name="Now", priority=1)
    rule(name="Later", starts_at=now + timedelta(days=1))
    rule(name="Past", ends_at=now - timedelta(days=1))
    rule(name="Off", active=False)
    body = anon.get(f"{BASE}/promotions").json()
    assert [p["name"] for p in body["promotions"]] == ["Now"]
    assert body["promotions"][0]["kind"] == "percent"
    assert body["total"] == 1


def test_promotions_cut_the_real_cart_totals(shopper):
    before = cart_of(shopper)
    assert (before["subtotal"], before["discount"]) == ("100.00", "0.00")
    rule(name="Ten percent", priority=1)
    rule(name="Five off", kind="fixed", value=Decimal("5.00"), priority=2)
    rule(name="Big spenders", kind="fixed", value=Decimal("50"), min_subtotal=Decimal("500"))
    cart = cart_of(shopper)
    assert cart["discount"] == "15.00"
    assert Decimal(cart["total"]) == Decimal(before["total"]) - Decimal("15.00")
    totals = shopper.get(f"{BASE}/cart/totals").json()["cart"]
    assert (totals["discount"], totals["total"]) == ("15.00", cart["total"])
    body = shopper.get(f"{BASE}/promotions/cart").json()
    assert [(p["name"], p["discount"]) for p in body["promotions"]] == [
        ("Ten percent", "10.00"),
        ("Five off", "5.00"),
    ]
    assert body["discount"] == "15.00"
    assert body["totals"]["total"] == cart["total"]


def test_a_rule_never_cuts_more_than_the_cart(shopper):
    rule(kind="fixed", value=Decimal("1000"))
    cart = cart_of(shopper)
    assert cart["discount"] == "100.00"
    assert Decimal(cart["total"]) >= 0


def test_an_off_module_leaves_the_totals_alone(settings, shopper):
    rule()
    assert cart_of(shopper)["discount"] == "10.00"
    modules_off(settings, "promotions")
    assert cart_of(shopper)["discount"] == "0.00"


def test_an_empty_cart_has_no_promotions(anon):
    rule()
    body = anon.get(f"{BASE}/promotions/cart").json()
    assert body["promotions"] == []
    assert body["totals"]["total"] == "0.00"


def test_a_changed_rule_is_seen_at_once(shopper):
    promotion = rule()
    assert cart_of(shopper)["discount"] == "10.00"
    services.promotion_save(promotion=promotion, fields={"value": Decimal("20")})
    assert cart_of(shopper)["discount"] == "20.00"
    services.promotion_delete(promotion=promotion)
    assert cart_of(shopper)["discount"] == "0.00"


def test_bad_rules_are_refused():
    from common.errors import ServiceError

    with pytest.raises(ServiceError):
        rule(value=Decimal("120"))
    now = timezone.now()
    with pytest.raises(ServiceError):
        rule(starts_at=now, ends_at=now - timedelta(hours=1))


def test_the_list_costs_no_query_when_warm(anon, django_assert_max_num_queries):
    for n in range(5):
        rule(name=f"Rule {n}")
    anon.get(f"{BASE}/promotions")
    with django_assert_max_num_queries(1):
        assert anon.get(f"{BASE}/promotions").json()["total"] == 5


def test_cart_route_is_a_cart_session_route(shopper):
    assert shopper.get(CART).status_code == 200
