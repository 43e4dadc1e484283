"""Shipping: zones matched by country, region and postcode in order; the four method types;
the cart's address, methods and chosen method."""

from decimal import Decimal

import pytest

from store.cart.models import Cart
from store.common.locations import Location, postcode_matches
from store.settings import services as settings_services
from store.shipping import selectors
from store.shipping.calculation import Package, method_cost
from tests.fixtures.store import error
from tests.store.cart.helpers import CART, add, cart_of
from tests.store.catalog.factories import make_product
from tests.store.coupons.factories import make_coupon
from tests.store.shipping.factories import make_method, make_zone

pytestmark = pytest.mark.django_db


def where(country, region="", postcode=""):
    return Location(country, region, postcode)


@pytest.mark.parametrize(
    ("pattern", "postcode", "expected"),
    [
        ("10431", "10431", True),
        ("10431", "10432", False),
        ("104*", "10431", True),
        ("104*", "11431", False),
        ("10000...19999", "15000", True),
        ("10000...19999", "20000", False),
        ("SW1A 1AA", "SW1A1AA", True),
        ("SW*", "SW1A1AA", True),
        ("AA...AZ", "AM", True),
        ("104*", "", False),
    ],
)
def test_postcode_patterns(pattern, postcode, expected):
    assert postcode_matches(pattern, postcode) is expected


def test_zones_are_tried_in_order_and_the_first_match_wins():
    athens = make_zone("Athens", countries=["GR"], postcodes=["10*", "11*"], order=1)
    crete = make_zone("Crete", regions=["GR:M"], order=2)
    greece = make_zone("Greece", countries=["GR"], order=3)
    eu = make_zone("EU", countries=["DE", "FR", "GR"], order=4)
    world = make_zone("World", fallback=True, order=0)
    empty = make_zone("Nowhere", order=0)
    assert selectors.zone_for(where("GR", postcode="10431")) == athens
    assert selectors.zone_for(where("GR", "M", "71201")) == crete
    assert selectors.zone_for(where("GR", "I", "15123")) == greece
    assert selectors.zone_for(where("DE", postcode="10115")) == eu
    assert selectors.zone_for(where("US", "CA")) == world  # the fallback is tried last
    world.delete()
    assert selectors.zone_for(where("US")) is None
    assert empty not in [selectors.zone_for(where(c)) for c in ("GR", "DE", "US")]


def test_a_zone_of_postcodes_only_matches_them_in_any_country():
    zone = make_zone("Postcodes", postcodes=["75*"])
    assert selectors.zone_for(where("FR", postcode="75001")) == zone
    assert selectors.zone_for(where("FR", postcode="69001")) is None


def package(total="0", count=1, weight="0", coupon=False):
    cents = int(Decimal(total) * 100)
    return Package(
        items_total=cents, item_count=count, weight=Decimal(weight), free_shipping_coupon=coupon
    )


def test_flat_rate_adds_a_cost_per_item():
    zone = make_zone(countries=["GR"])
    method = make_method(zone, cost="4.00", cost_per_item="0.50")
    assert method_cost(method, package(count=3)) == 550


def test_free_shipping_requirements():
    zone = make_zone(countries=["GR"])
    always = make_method(zone, "free_shipping")
    amount = make_method(zone, "free_shipping", min_amount="50", requires="min_amount")
    coupon = make_method(zone, "free_shipping", requires="coupon")
    either = make_method(zone, "free_shipping", min_amount="50", requires="either")
    both = make_method(zone, "free_shipping", min_amount="50", requires="both")
    cases = {
        ("49.99", False): [always],
        ("50.00", False): [always, amount, either],
        ("10.00", True): [always, coupon, either],
        ("60.00", True): [always, amount, coupon, either, both],
    }
    for (total, has_coupon), available in cases.items():
        got = [
            m
            for m in (always, amount, coupon, either, both)
            if method_cost(m, package(total, coupon=has_coupon)) == 0
        ]
        assert got == available, (total, has_coupon)


def test_local_pickup_and_by_weight():
    zone = make_zone(countries=["GR"])
    pickup = make_method(zone, "local_pickup", cost="1.00")
    weight = make_method(
        zone,
        "weight_based",
        cost="1.00",
        weight_rates=[{"max_weight": "1", "cost": "3.00"}, {"max_weight": "5", "cost": "7.50"}],
    )
    assert method_cost(pickup, package(weight="100")) == 100
    assert method_cost(weight, package(weight="0.5")) == 400
    assert method_cost(weight, package(weight="1")) == 400
    assert method_cost(weight, package(weight="1.001")) == 850
    assert method_cost(weight, package(weight="5.01")) is None


def test_a_disabled_method_is_never_offered():
    zone = make_zone(countries=["GR"])
    make_method(zone, cost="4.00", enabled=False)
    assert selectors.quotes(selectors.zone_for(where("GR")), package()) == []


# --- Through the cart -------------------------------------------------------------------------


@pytest.fixture
def zones():
    greece = make_zone("Greece", countries=["GR"], order=1)
    flat = make_method(greece, title="Courier", cost="3.50")
    free = make_method(
        greece, "free_shipping", title="Free", min_amount="50", requires="min_amount"
    )
    pickup = make_method(greece, "local_pickup", title="Pickup")
    germany = make_zone("Germany", countries=["DE"], order=2)
    heavy = make_method(
        germany,
        "weight_based",
        title="DHL",
        weight_rates=[{"max_weight": "2", "cost": "9.00"}, {"max_weight": "10", "cost": "15.00"}],
    )
    return {"flat": flat, "free": free, "pickup": pickup, "heavy": heavy}


@pytest.fixture
def lamp():
    return make_product(title="Lamp", regular_price="20.00", weight="1.5")


def test_without_an_address_the_store_country_is_used(anon, zones, lamp):
    add(anon, lamp.pk)
    body = anon.get(f"{CART}/shipping-methods").json()
    assert body["address"] is None
    assert body["location"] == {"country": "GR", "region": "", "postcode": ""}
    assert [(m["title"], m["cost"], m["selected"]) for m in body["methods"]] == [
        ("Courier", "3.50", True),
        ("Pickup", "0.00", False),
    ]
    cart = cart_of(anon)
    assert (cart["shipping"], cart["total"]) == ("3.50", "23.50")
    assert cart["shipping_method"] == {
        "id": zones["flat"].pk,
        "type": "flat_rate",
        "title": "Courier",
        "cost": "3.50",
    }


def test_methods_entries_have_cost_and_tax(anon, zones, lamp):
    add(anon, lamp.pk, 3)
    entry = anon.get(f"{CART}/shipping-methods").json()["methods"][1]
    assert entry == {
        "id": zones["free"].pk,
        "type": "free_shipping",
        "title": "Free",
        "description": "",
        "cost": "0.00",
        "tax": "0.00",
        "selected": False,
    }


def test_setting_the_address_changes_zone_and_cost(anon, zones, lamp):
    add(anon, lamp.pk, 2)  # 3 kg
    response = anon.post(
        f"{CART}/shipping-address", {"country": "de", "postcode": "10115"}, format="json"
    )
    assert response.status_code == 200, response.content
    cart = response.json()["cart"]
    assert cart["shipping_address"] == {"country": "DE", "region": "", "postcode": "10115"}
    assert (cart["shipping_method"]["title"], cart["shipping"]) == ("DHL", "15.00")
    assert Cart.objects.get().shipping_country == "DE"


@pytest.mark.parametrize(
    ("body", "bad"),
    [
        ({}, "country"),
        ({"country": "XX"}, "country"),
        ({"country": "GRC"}, "country"),
        ({"country": "GR", "region": "ZZ"}, "region"),
        ({"country": "GR", "postcode": "<script>"}, "postcode"),
        ({"country": 12}, "country"),
    ],
)
def test_a_bad_address_is_refused_and_changes_nothing(anon, lamp, body, bad):
    add(anon, lamp.pk)
    response = anon.post(f"{CART}/shipping-address", body, format="json")
    assert bad in error(response, 400, "invalid_param")["data"]["params"]
    assert Cart.objects.get().shipping_country == ""


def test_a_region_is_an_iso_subdivision_with_or_without_the_country(anon, lamp):
    for region in ("I", "GR-I", "gr-i"):
        cart = anon.post(
            f"{CART}/shipping-address", {"country": "GR", "region": region}, format="json"
        ).json()["cart"]
        assert cart["shipping_address"]["region"] == "I"


def test_setting_an_address_makes_a_cart(anon):
    response = anon.post(f"{CART}/shipping-address", {"country": "GR"}, format="json")
    assert response.status_code == 200
    assert Cart.objects.get().shipping_country == "GR"


def test_choosing_an_available_method(anon, zones, lamp):
    add(anon, lamp.pk)
    response = anon.post(
        f"{CART}/shipping-method", {"method_id": zones["pickup"].pk}, format="json"
    )
    assert response.status_code == 200
    cart = response.json()["cart"]
    assert (cart["shipping_method"]["title"], cart["shipping"], cart["total"]) == (
        "Pickup",
        "0.00",
        "20.00",
    )
    selected = [
        m["title"] for m in anon.get(f"{CART}/shipping-methods").json()["methods"] if m["selected"]
    ]
    assert selected == ["Pickup"]


def test_only_a_method_available_for_the_address_can_be_chosen(anon, zones, lamp):
    add(anon, lamp.pk)
    error(
        anon.post(f"{CART}/shipping-method", {"method_id": zones["heavy"].pk}, format="json"),
        400,
        "shipping_method_unavailable",
    )
    error(
        anon.post(f"{CART}/shipping-method", {"method_id": zones["free"].pk}, format="json"),
        400,
        "shipping_method_unavailable",
    )
    error(
        anon.post(f"{CART}/shipping-method", {"method_id": 999_999}, format="json"),
        400,
        "shipping_method_not_found",
    )
    error(anon.post(f"{CART}/shipping-method", {}, format="json"), 400, "invalid_param")
    assert Cart.objects.get().shipping_method is None


def test_choosing_a_method_needs_items(anon, zones):
    error(
        anon.post(f"{CART}/shipping-method", {"method_id": zones["flat"].pk}, format="json"),
        400,
        "cart_empty",
    )


def test_a_chosen_method_that_stops_fitting_falls_back_to_the_first(anon, zones, lamp):
    add(anon, lamp.pk, 3)  # 60.00: free shipping is available
    anon.post(f"{CART}/shipping-method", {"method_id": zones["free"].pk}, format="json")
    assert cart_of(anon)["shipping_method"]["title"] == "Free"
    item_id = cart_of(anon)["items"][0]["id"]
    cart = anon.patch(f"{CART}/items/{item_id}", {"quantity": 1}, format="json").json()["cart"]
    assert (cart["shipping_method"]["title"], cart["shipping"]) == ("Courier", "3.50")


def test_no_zone_means_no_methods_and_no_shipping(anon, zones, lamp):
    add(anon, lamp.pk)
    anon.post(f"{CART}/shipping-address", {"country": "JP"}, format="json")
    assert anon.get(f"{CART}/shipping-methods").json()["methods"] == []
    cart = cart_of(anon)
    assert (cart["shipping_method"], cart["shipping"], cart["needs_shipping"]) == (
        None,
        "0.00",
        True,
    )


def test_an_empty_cart_pays_no_shipping_but_lists_methods(anon, zones):
    anon.post(f"{CART}/shipping-address", {"country": "GR"}, format="json")
    cart = cart_of(anon)
    assert (cart["shipping"], cart["needs_shipping"], cart["shipping_method"]) == (
        "0.00",
        False,
        None,
    )
    assert len(anon.get(f"{CART}/shipping-methods").json()["methods"]) == 2


def test_a_free_shipping_coupon_makes_shipping_free(anon, zones, lamp):
    make_coupon("SHIPFREE", "fixed_cart", 0, free_shipping=True)
    add(anon, lamp.pk)
    cart = anon.post("/rest/ec/v1/coupons/apply", {"code": "shipfree"}, format="json").json()[
        "cart"
    ]
    assert (cart["shipping"], cart["total"]) == ("0.00", "20.00")
    methods = anon.get(f"{CART}/shipping-methods").json()["methods"]
    assert {m["cost"] for m in methods} == {"0.00"}


def test_weights_come_from_the_variant_or_the_product(anon, zones):
    heavy = make_product(title="Anvil", regular_price="5.00", weight="12")
    add(anon, heavy.pk)
    anon.post(f"{CART}/shipping-address", {"country": "DE"}, format="json")
    assert anon.get(f"{CART}/shipping-methods").json()["methods"] == []  # over 10 kg


def test_the_store_country_setting_is_the_default_location(anon, zones, lamp):
    settings_services.settings_update(section="general", values={"store_country": "DE"})
    add(anon, lamp.pk)
    assert cart_of(anon)["shipping_method"]["title"] == "DHL"


def test_zone_and_method_changes_are_seen_at_once_despite_the_cache(anon, zones, lamp):
    add(anon, lamp.pk)
    assert cart_of(anon)["shipping"] == "3.50"
    zones["flat"].cost = Decimal("4.25")
    zones["flat"].save()
    assert cart_of(anon)["shipping"] == "4.25"
    zones["flat"].zone.locations.all().delete()
    assert cart_of(anon)["shipping_method"] is None


def test_reading_zones_twice_costs_no_query(zones, django_assert_num_queries):
    selectors.zones()
    with django_assert_num_queries(0):
        assert len(selectors.zones()) == 2


# --- Deletions take their locks in one order ---------------------------------------------------


def _locks(captured) -> list[str]:
    return [
        "zone" if "store_shipping_shippingzone" in sql.split("FROM", 1)[-1][:60] else "method"
        for sql in (q["sql"] for q in captured)
        if sql.rstrip().endswith("FOR UPDATE") and "store_shipping_shipping" in sql
    ]


@pytest.mark.postgresql_only
def test_a_method_deletion_locks_its_zone_first_as_a_zone_deletion_does():
    """A zone's deletion and one of its methods' ran concurrently into a deadlock (each holding
    what the other's cascade needed): both now lock the zone, then the method(s)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from store.shipping import services

    zone = make_zone("Locks")
    first, second = make_method(zone), make_method(zone)
    with CaptureQueriesContext(connection) as captured:
        services.method_delete(method_id=first.pk)
    assert _locks(captured) == ["zone", "method"]
    with CaptureQueriesContext(connection) as captured:
        services.zone_delete(zone_id=zone.pk)
    assert _locks(captured) == ["zone", "method"]
    assert not type(second).objects.filter(pk=second.pk).exists()
