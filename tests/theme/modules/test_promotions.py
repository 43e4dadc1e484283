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
from theme.modules.promotions import services

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


def _tax_case(client, shop):
    from tests.store.checkout.helpers import started

    body = started(client, shop, lamps=2, mugs=1)  # a Greek address: 24% VAT
    return body["id"]


@pytest.mark.parametrize("inclusive", [False, True], ids=["prices-without-tax", "with-tax"])
def test_the_tax_is_recomputed_on_the_promoted_amounts_and_the_order_carries_it(
    inclusive, django_capture_on_commit_callbacks
):
    """Goods 48.00 as entered (two lamps at 20.00, a mug at 8.00), 24% VAT, a 5.00 courier.
    Ten percent off cuts 4.80 as entered, like a cart-wide coupon: without tax in the prices
    the goods' tax falls from 11.52 to 10.37 (24% of 43.20) and the total by 4.80 + 1.15;
    with tax in them the total falls by 4.80, of which 0.93 is tax. The order made from the
    cart carries the same tax, line by line."""
    from store.orders.models import Order
    from store.settings import services as settings_services
    from tests.store.checkout.helpers import Shop, complete

    settings_services.settings_update(section="tax", values={"prices_include_tax": inclusive})
    shop = Shop()
    client = APIClient()
    checkout_id = _tax_case(client, shop)
    before = cart_of(client)
    rule()
    cart = cart_of(client)
    tax_cut = Decimal("0.93") if inclusive else Decimal("1.15")
    assert Decimal(cart["tax"]) == Decimal(before["tax"]) - tax_cut
    assert Decimal(cart["discount_tax"]) == Decimal(before["discount_tax"]) + tax_cut
    paid_less = Decimal("4.80") if inclusive else Decimal("4.80") + tax_cut
    assert Decimal(cart["total"]) == Decimal(before["total"]) - paid_less
    assert sum(Decimal(line["amount"]) for line in cart["tax_lines"]) == Decimal(cart["tax"])
    if not inclusive:
        assert (cart["discount"], cart["tax"], cart["total"]) == ("4.80", "11.57", "59.77")
    with django_capture_on_commit_callbacks(execute=True):
        response = complete(client, checkout_id)
    assert response.status_code == 200, response.content
    order = Order.objects.get()
    assert order.total == Decimal(cart["total"])
    assert order.discount_total == Decimal(cart["discount"])
    line_tax = sum(item.tax for item in order.items.all())
    assert line_tax + order.shipping_tax == Decimal(cart["tax"])
