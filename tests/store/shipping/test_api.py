"""The Shipping routes: zones (regions by country, region, postcode pattern), their order,
methods with settings checked against their type, the public calculation (the cart's own),
countries, counts and method types; every refusal changes nothing."""

import json
from decimal import Decimal

import pytest
from django.test import Client

from store.orders.models import Order
from store.settings import services as settings_services
from store.shipping.models import ShippingMethod, ShippingZone, ShippingZoneLocation
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error, grant
from tests.store.cart.helpers import CART, add
from tests.store.catalog.factories import TermFactory, make_product, make_variant
from tests.store.coupons.factories import make_coupon
from tests.store.orders.factories import line, make_order, stocked
from tests.store.shipping.factories import make_method, make_zone
from tests.store.tax.factories import make_rate

pytestmark = pytest.mark.django_db

SHIPPING = f"{API}/shipping"
ZONES = f"{SHIPPING}/zones"
CALCULATE = f"{SHIPPING}/calculate"


@pytest.fixture
def staff(store_client):
    return store_client(grant(UserFactory(), "ec_manage_shipping"))


def zone_url(zone_id) -> str:
    return f"{ZONES}/{zone_id}"


def method_url(method_id) -> str:
    return f"{SHIPPING}/methods/{method_id}"


def create_zone(client, **body):
    response = client.post(ZONES, body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def create_method(client, zone_id, **body):
    response = client.post(f"{zone_url(zone_id)}/methods", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def snapshot():
    return (
        list(ShippingZone.objects.values_list("id", "name", "sort_order", "is_fallback")),
        list(ShippingZoneLocation.objects.values_list("zone_id", "type", "code")),
        list(ShippingMethod.objects.values_list("id", "type", "title", "cost", "weight_rates")),
    )


# --- Access -------------------------------------------------------------------------------


def test_staff_routes_need_the_shipping_capability(anon, customer_client, manager_client, staff):
    zone = make_zone("Greece", countries=["GR"])
    method = make_method(zone, cost="3")
    staff_reads = [
        ZONES,
        zone_url(zone.pk),
        f"{zone_url(zone.pk)}/methods",
        method_url(method.pk),
        f"{SHIPPING}/stats",
        f"{SHIPPING}/method-types",
    ]
    for path in staff_reads:
        error(anon.get(path), 401)
        error(customer_client.get(path), 403, "insufficient_capability")
        assert staff.get(path).status_code == 200, path
        assert manager_client.get(path).status_code == 200, path  # shop managers hold it
    for method_name, path, body in [
        ("post", ZONES, {"name": "X"}),
        ("patch", zone_url(zone.pk), {"name": "X"}),
        ("delete", zone_url(zone.pk), None),
        ("post", f"{ZONES}/reorder", {"ids": [zone.pk]}),
        ("post", f"{zone_url(zone.pk)}/methods", {"type": "flat_rate", "title": "X"}),
        ("put", method_url(method.pk), {"title": "X"}),
        ("delete", method_url(method.pk), None),
    ]:
        call = getattr(customer_client, method_name)
        error(call(path, body, format="json"), 403, "insufficient_capability")
    assert snapshot()[0] == [(zone.pk, "Greece", 0, False)]
    # The calculation and the countries are public.
    assert anon.get(f"{SHIPPING}/countries?country=GR").status_code == 200


# --- Zones --------------------------------------------------------------------------------


def test_a_zone_with_countries_regions_and_postcode_patterns(staff):
    body = create_zone(
        staff,
        name="  Athens and Crete ",
        regions=[
            {"type": "country", "code": " gr"},
            {"type": "region", "code": "gr-m"},
            {"type": "REGION", "code": "US:CA"},
            {"type": "postcode", "code": "104*"},
            {"type": "postcode", "code": "10000...19999"},
            {"type": "postcode", "code": "sw1a 1aa"},
            {"type": "postcode", "code": "AA...AZ"},
            {"type": "country", "code": "GR"},  # a repeat is dropped
        ],
    )
    assert body["name"] == "Athens and Crete"
    assert body["sort_order"] == 1
    assert body["is_fallback"] is False
    assert body["methods"] == []
    assert sorted((r["type"], r["code"]) for r in body["regions"]) == [
        ("country", "GR"),
        ("postcode", "10000...19999"),
        ("postcode", "104*"),
        ("postcode", "AA...AZ"),
        ("postcode", "SW1A 1AA"),
        ("region", "GR:M"),
        ("region", "US:CA"),
    ]
    names = {r["code"]: r["name"] for r in body["regions"]}
    assert names["GR"] == "Greece"
    assert names["US:CA"] == "California, United States of America"
    assert names["104*"] is None
    assert staff.get(zone_url(body["id"])).json() == body
    # The next zone goes after it.
    assert create_zone(staff, name="Second")["sort_order"] == 2


@pytest.mark.parametrize(
    ("region", "param"),
    [
        ({"type": "country", "code": "XX"}, "regions.0.code"),
        ({"type": "country", "code": "GRC"}, "regions.0.code"),
        ({"type": "country", "code": ""}, "regions.0.code"),
        ({"type": "region", "code": "GR:ZZ"}, "regions.0.code"),
        ({"type": "region", "code": "I"}, "regions.0.code"),
        ({"type": "region", "code": "XX:CA"}, "regions.0.code"),
        ({"type": "postcode", "code": "1*4"}, "regions.0.code"),
        ({"type": "postcode", "code": "<script>"}, "regions.0.code"),
        ({"type": "postcode", "code": "104%"}, "regions.0.code"),
        ({"type": "postcode", "code": "20000...10000"}, "regions.0.code"),
        ({"type": "postcode", "code": "B...A"}, "regions.0.code"),
        ({"type": "postcode", "code": "10*...19*"}, "regions.0.code"),
        ({"type": "postcode", "code": "..."}, "regions.0.code"),
        ({"type": "postcode", "code": "1" * 101}, "regions.0.code"),
        ({"type": "planet", "code": "Mars"}, "regions.0.type"),
        ({"type": "country", "code": 12}, "regions.0.code"),
        ({"type": "country"}, "regions"),
    ],
)
def test_bad_regions_are_refused_and_nothing_is_made(staff, region, param):
    response = staff.post(ZONES, {"name": "Z", "regions": [region]}, format="json")
    # 422 invalid_shape for a region without its code, 400 for bad values
    body = error(response, 422 if "code" not in region else 400)
    assert any(name.startswith(param) for name in body["data"]["params"]), body
    assert not ShippingZone.objects.exists()


def test_regions_must_be_a_list_of_objects(staff):
    for regions in ({"type": "country", "code": "GR"}, ["GR"], "GR"):
        response = staff.post(ZONES, {"name": "Z", "regions": regions}, format="json")
        assert response.status_code in (400, 422), response.content
        assert "regions" in response.json()["data"]["params"]
    assert not ShippingZone.objects.exists()


def test_a_zone_needs_a_name(staff):
    for body in ({}, {"name": ""}, {"name": "   "}, {"name": "x" * 201}, {"name": 5}):
        assert "name" in error(staff.post(ZONES, body, format="json"), 400)["data"]["params"]
    assert not ShippingZone.objects.exists()


def test_one_fallback_zone_without_regions(staff):
    fallback = create_zone(staff, name="World", is_fallback=True)
    assert fallback["is_fallback"] is True
    error(
        staff.post(ZONES, {"name": "World 2", "is_fallback": True}, format="json"),
        409,
        "fallback_zone_exists",
    )
    other = create_zone(staff, name="Greece", regions=[{"type": "country", "code": "GR"}])
    error(staff.patch(zone_url(other["id"]), {"is_fallback": True}, format="json"), 400)
    error(
        staff.patch(
            zone_url(fallback["id"]),
            {"regions": [{"type": "country", "code": "DE"}]},
            format="json",
        ),
        400,
        "invalid_param",
    )
    # Saving the fallback itself again is fine.
    response = staff.patch(zone_url(fallback["id"]), {"is_fallback": True}, format="json")
    assert response.status_code == 200
    assert ShippingZone.objects.filter(is_fallback=True).count() == 1


def test_a_fallback_zone_with_regions_is_refused(staff):
    response = staff.post(
        ZONES,
        {"name": "X", "is_fallback": True, "regions": [{"type": "country", "code": "GR"}]},
        format="json",
    )
    assert "regions" in error(response, 400, "invalid_param")["data"]["params"]
    assert not ShippingZone.objects.exists()


def test_updating_and_deleting_a_zone(staff):
    zone = create_zone(staff, name="Greece", regions=[{"type": "country", "code": "GR"}])
    method = create_method(staff, zone["id"], type="flat_rate", title="Courier")
    for verb in ("patch", "put"):
        response = getattr(staff, verb)(
            zone_url(zone["id"]),
            {"name": f"Hellas {verb}", "regions": [{"type": "region", "code": "GR:I"}]},
            format="json",
        )
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["name"] == f"Hellas {verb}"
        assert [(r["type"], r["code"]) for r in body["regions"]] == [("region", "GR:I")]
        assert [m["id"] for m in body["methods"]] == [method["id"]]
    # Only what is sent changes.
    body = staff.patch(zone_url(zone["id"]), {"sort_order": 7}, format="json").json()
    assert (body["sort_order"], body["name"], len(body["regions"])) == (7, "Hellas put", 1)
    before = snapshot()
    error(
        staff.patch(
            zone_url(zone["id"]), {"regions": [{"type": "country", "code": "XX"}]}, format="json"
        ),
        400,
    )
    assert snapshot() == before
    assert staff.delete(zone_url(zone["id"])).status_code == 204
    assert not ShippingZone.objects.exists()
    assert not ShippingMethod.objects.exists()
    for verb in ("get", "patch", "delete"):
        error(getattr(staff, verb)(zone_url(zone["id"]), {}, format="json"), 404)
    error(staff.get(zone_url(zone["id"])), 404, "shipping_zone_not_found")
    error(staff.get(f"{zone_url(zone['id'])}/methods"), 404, "shipping_zone_not_found")


def test_zones_list_in_matching_order_with_pagination(staff, django_assert_max_num_queries):
    world = make_zone("World", fallback=True)
    second = make_zone("Second", countries=["DE"], order=2)
    first = make_zone("First", countries=["GR"], order=1)
    make_method(first, cost="1")
    body = staff.get(ZONES).json()
    assert [z["id"] for z in body["zones"]] == [first.pk, second.pk, world.pk]
    assert (body["total"], body["page"], body["per_page"], body["total_pages"]) == (3, 1, 50, 1)
    assert body["zones"][0]["methods"][0]["settings"] == {"cost": "1.00", "cost_per_item": "0.00"}
    page = staff.get(f"{ZONES}?per_page=2&page=2").json()
    assert [z["id"] for z in page["zones"]] == [world.pk]
    assert staff.get(f"{ZONES}?per_page=1000").json()["per_page"] == 100
    for query in ("per_page=0", "page=0", "page=abc", "page=99999999999999999999"):
        error(staff.get(f"{ZONES}?{query}"), 400, "invalid_param")


def test_the_lists_cost_the_same_queries_whatever_they_hold(staff, django_assert_max_num_queries):
    def fill(count):
        for index in range(count):
            zone = make_zone(f"Z{index}", countries=["GR", "DE"], postcodes=["1*"], order=index)
            make_method(zone, cost="1")
            make_method(zone, "free_shipping", min_amount="50", requires="min_amount")

    fill(2)
    staff.get(ZONES)  # the capability lookups are compiled once
    with django_assert_max_num_queries(8) as few:
        assert staff.get(ZONES).status_code == 200
    fill(20)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert len(staff.get(ZONES).json()["zones"]) == 22
    zone = ShippingZone.objects.first()
    for _ in range(10):
        make_method(zone, cost="2")
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert staff.get(f"{zone_url(zone.pk)}/methods").json()["total"] == 12
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert staff.get(f"{SHIPPING}/stats").status_code == 200


# --- Reorder --------------------------------------------------------------------------------


def test_reordering_zones_changes_which_one_matches(staff, anon):
    lamp = make_product(title="Lamp", regular_price="20.00")
    greece = make_zone("Greece", countries=["GR"], order=1)
    make_method(greece, title="Greek courier", cost="3")
    athens = make_zone("Athens", countries=["GR"], postcodes=["10*"], order=2)
    make_method(athens, title="Athens courier", cost="2")
    world = make_zone("World", fallback=True)
    where = {"address": {"country": "GR", "postcode": "10431"}, "lines": [{"product_id": lamp.pk}]}
    assert anon.post(CALCULATE, where, format="json").json()["zone"]["name"] == "Greece"
    response = staff.post(f"{ZONES}/reorder", {"ids": [world.pk, athens.pk]}, format="json")
    assert response.status_code == 200, response.content
    # The fallback stays last; Greece, not named, follows the named ones.
    assert [z["name"] for z in response.json()["zones"]] == ["Athens", "Greece", "World"]
    assert anon.post(CALCULATE, where, format="json").json()["zone"]["name"] == "Athens"
    assert (
        anon.post(CALCULATE, {**where, "address": {"country": "GR"}}, format="json").json()["zone"][
            "name"
        ]
        == "Greece"
    )


@pytest.mark.parametrize(
    "body",
    [
        {"ids": "UNKNOWN"},
        {"ids": [1, 999_999]},
        {"ids": "DUPLICATE"},
        {"ids": []},
        {"ids": ["a"]},
        {"ids": [0]},
        {"ids": [2**63]},
        {"ids": {"a": 1}},
        {},
    ],
)
def test_a_bad_reorder_changes_nothing(staff, body):
    a = make_zone("A", countries=["GR"], order=1)
    b = make_zone("B", countries=["DE"], order=2)
    if body.get("ids") == "UNKNOWN":
        body = {"ids": [b.pk, a.pk, b.pk + a.pk + 100]}
    elif body.get("ids") == "DUPLICATE":
        body = {"ids": [b.pk, a.pk, b.pk]}
    before = snapshot()
    response = staff.post(f"{ZONES}/reorder", body, format="json")
    params = error(response, 400, "invalid_param")["data"]["params"]
    assert all(name.split(".")[0] == "ids" for name in params), params
    assert snapshot() == before


# --- Methods -----------------------------------------------------------------------------


def test_method_types_describe_their_settings(staff):
    types = {t["type"]: t for t in staff.get(f"{SHIPPING}/method-types").json()["method_types"]}
    assert set(types) == {"flat_rate", "free_shipping", "weight_based", "local_pickup"}
    flat = types["flat_rate"]["settings_schema"]
    assert flat["type"] == "object"
    assert flat["additionalProperties"] is False
    assert set(flat["properties"]) == {"cost", "cost_per_item"}
    free = types["free_shipping"]["settings_schema"]["properties"]
    assert free["requires"]["enum"] == ["none", "min_amount", "coupon", "either", "both"]
    weight = types["weight_based"]["settings_schema"]
    assert weight["required"] == ["weight_rates"]
    assert weight["properties"]["weight_rates"]["items"]["required"] == ["max_weight", "cost"]
    assert set(types["local_pickup"]["settings_schema"]["properties"]) == {"cost"}


def test_creating_each_method_type(staff):
    zone = create_zone(staff, name="Greece", regions=[{"type": "country", "code": "GR"}])
    flat = create_method(
        staff,
        zone["id"],
        type="FLAT_RATE",
        title=" Courier ",
        settings={"cost": 3.5, "cost_per_item": "0.5"},
    )
    assert (flat["type"], flat["title"], flat["sort_order"], flat["enabled"]) == (
        "flat_rate",
        "Courier",
        0,
        True,
    )
    assert flat["settings"] == {"cost": "3.50", "cost_per_item": "0.50"}
    free = create_method(
        staff,
        zone["id"],
        type="free_shipping",
        title="Free",
        settings={"requires": "min_amount", "min_amount": "50"},
    )
    assert free["settings"] == {"requires": "min_amount", "min_amount": "50.00"}
    assert free["sort_order"] == 1
    weight = create_method(
        staff,
        zone["id"],
        type="weight_based",
        title="By weight",
        taxable=False,
        settings={
            "cost": "1",
            "weight_rates": [{"max_weight": 1, "cost": 3}, {"max_weight": "2.5", "cost": "5"}],
        },
    )
    assert weight["settings"] == {
        "cost": "1.00",
        "weight_rates": [
            {"max_weight": "1", "cost": "3.00"},
            {"max_weight": "2.5", "cost": "5.00"},
        ],
    }
    assert weight["taxable"] is False
    pickup = create_method(staff, zone["id"], type="local_pickup", title="Pickup", enabled=False)
    assert pickup["settings"] == {"cost": "0.00"}
    assert pickup["enabled"] is False
    always = create_method(staff, zone["id"], type="free_shipping", title="Always")
    assert always["settings"] == {"requires": "none", "min_amount": None}
    listed = staff.get(f"{zone_url(zone['id'])}/methods").json()
    assert [m["id"] for m in listed["methods"]] == [
        flat["id"],
        free["id"],
        weight["id"],
        pickup["id"],
        always["id"],
    ]
    assert staff.get(method_url(weight["id"])).json() == weight
    error(staff.get(method_url(999_999)), 404, "shipping_method_not_found")
    error(
        staff.post(
            f"{zone_url(999_999)}/methods", {"type": "flat_rate", "title": "X"}, format="json"
        ),
        404,
        "shipping_zone_not_found",
    )


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"type": "teleport", "title": "X"}, "type"),
        ({"title": "X"}, "type"),
        ({"type": "flat_rate"}, "title"),
        ({"type": "flat_rate", "title": " "}, "title"),
        ({"type": "flat_rate", "title": "X", "settings": {"bogus": 1}}, "settings.bogus"),
        ({"type": "flat_rate", "title": "X", "settings": {"cost": "-1"}}, "settings.cost"),
        ({"type": "flat_rate", "title": "X", "settings": {"cost": "1.001"}}, "settings.cost"),
        ({"type": "flat_rate", "title": "X", "settings": {"cost": "NaN"}}, "settings.cost"),
        ({"type": "flat_rate", "title": "X", "settings": {"cost": "1e400"}}, "settings.cost"),
        ({"type": "flat_rate", "title": "X", "settings": {"cost": True}}, "settings.cost"),
        ({"type": "flat_rate", "title": "X", "settings": {"cost": [1]}}, "settings.cost"),
        ({"type": "flat_rate", "title": "X", "settings": {"cost": 10**30}}, "settings.cost"),
        ({"type": "flat_rate", "title": "X", "settings": "cheap"}, "settings"),
        ({"type": "flat_rate", "title": "X", "settings": [1]}, "settings"),
        (
            {"type": "free_shipping", "title": "X", "settings": {"requires": "min_amount"}},
            "settings.min_amount",
        ),
        (
            {"type": "free_shipping", "title": "X", "settings": {"requires": "always"}},
            "settings.requires",
        ),
        (
            {"type": "free_shipping", "title": "X", "settings": {"cost_per_item": "1"}},
            "settings.cost_per_item",
        ),
        ({"type": "weight_based", "title": "X"}, "settings.weight_rates"),
        (
            {"type": "weight_based", "title": "X", "settings": {"weight_rates": []}},
            "settings.weight_rates",
        ),
        (
            {
                "type": "weight_based",
                "title": "X",
                "settings": {
                    "weight_rates": [{"max_weight": 5, "cost": 1}, {"max_weight": 2, "cost": 1}]
                },
            },
            "settings.weight_rates",
        ),
        (
            {
                "type": "weight_based",
                "title": "X",
                "settings": {"weight_rates": [{"max_weight": 0, "cost": 1}]},
            },
            "settings.weight_rates.0.max_weight",
        ),
        (
            {
                "type": "weight_based",
                "title": "X",
                "settings": {"weight_rates": [{"max_weight": "heavy", "cost": 1}]},
            },
            "settings.weight_rates.0.max_weight",
        ),
        (
            {
                "type": "weight_based",
                "title": "X",
                "settings": {"weight_rates": [{"max_weight": 1}]},
            },
            "settings.weight_rates.0.cost",
        ),
        (
            {"type": "weight_based", "title": "X", "settings": {"weight_rates": [[1, 2]]}},
            "settings.weight_rates.0",
        ),
        (
            {
                "type": "weight_based",
                "title": "X",
                "settings": {"weight_rates": [{"max_weight": 1, "cost": 1}] * 51},
            },
            "settings.weight_rates",
        ),
        (
            {"type": "local_pickup", "title": "X", "settings": {"weight_rates": []}},
            "settings.weight_rates",
        ),
        ({"type": "flat_rate", "title": "X", "enabled": "yes"}, "enabled"),
        ({"type": "flat_rate", "title": "X", "sort_order": 2**40}, "sort_order"),
    ],
)
def test_settings_invalid_for_the_type_are_refused(staff, body, param):
    zone = make_zone("Greece", countries=["GR"])
    response = staff.post(f"{zone_url(zone.pk)}/methods", body, format="json")
    params = error(response, 400, "invalid_param")["data"]["params"]
    assert param in params, params
    assert not ShippingMethod.objects.exists()


def test_updating_a_method(staff):
    zone = make_zone("Greece", countries=["GR"])
    other = make_zone("Germany", countries=["DE"])
    method = create_method(
        staff,
        zone.pk,
        type="flat_rate",
        title="Courier",
        settings={"cost": "3", "cost_per_item": "1"},
    )
    url = method_url(method["id"])
    # Settings sent replace only those keys while the type stays.
    body = staff.patch(url, {"settings": {"cost": "4"}}, format="json").json()
    assert body["settings"] == {"cost": "4.00", "cost_per_item": "1.00"}
    body = staff.put(url, {"title": "Express", "enabled": False}, format="json").json()
    assert (body["title"], body["enabled"], body["settings"]["cost"]) == ("Express", False, "4.00")
    # A new type starts from its defaults (nothing of the old one kept).
    body = staff.patch(
        url,
        {"type": "weight_based", "settings": {"weight_rates": [{"max_weight": 2, "cost": 6}]}},
        format="json",
    ).json()
    assert body["type"] == "weight_based"
    assert body["settings"] == {
        "cost": "0.00",
        "weight_rates": [{"max_weight": "2", "cost": "6.00"}],
    }
    assert ShippingMethod.objects.get().cost_per_item == 0
    body = staff.patch(url, {"zone_id": other.pk}, format="json").json()
    assert body["zone_id"] == other.pk
    before = snapshot()
    error(
        staff.patch(
            url, {"type": "free_shipping", "settings": {"requires": "both"}}, format="json"
        ),
        400,
    )
    error(
        staff.patch(url, {"type": "local_pickup", "settings": {"weight_rates": []}}, format="json"),
        400,
    )
    error(staff.patch(url, {"zone_id": 999_999}, format="json"), 404, "shipping_zone_not_found")
    error(staff.patch(url, {"settings": {"weight_rates": "heavy"}}, format="json"), 400)
    assert snapshot() == before
    assert staff.delete(url).status_code == 204
    error(staff.delete(url), 404, "shipping_method_not_found")
    error(staff.patch(url, {"title": "x"}, format="json"), 404)


def test_a_deleted_method_chosen_by_a_cart_falls_back(staff, anon):
    zone = make_zone("Greece", countries=["GR"])
    courier = make_method(zone, title="Courier", cost="3")
    pickup = make_method(zone, "local_pickup", title="Pickup")
    add(anon, make_product(title="Lamp", regular_price="20.00").pk)
    anon.post(f"{CART}/shipping-method", {"method_id": pickup.pk}, format="json")
    assert staff.delete(method_url(pickup.pk)).status_code == 204
    cart = anon.get(CART).json()["cart"]
    assert cart["shipping_method"]["id"] == courier.pk


# --- The calculation ----------------------------------------------------------------------


@pytest.fixture
def lamp():
    return make_product(title="Lamp", regular_price="20.00", weight="1.5")


@pytest.fixture
def greece_zones():
    greece = make_zone("Greece", countries=["GR"], order=1)
    flat = make_method(greece, title="Courier", cost="3.00", cost_per_item="0.50")
    free = make_method(
        greece, "free_shipping", title="Free", min_amount="50", requires="min_amount"
    )
    coupon_free = make_method(greece, "free_shipping", title="With coupon", requires="coupon")
    weight = make_method(
        greece,
        "weight_based",
        title="By weight",
        cost="1.00",
        weight_rates=[{"max_weight": "2", "cost": "4.00"}, {"max_weight": "10", "cost": "9.00"}],
    )
    pickup = make_method(greece, "local_pickup", title="Pickup", cost="0.00")
    make_method(greece, title="Off", cost="1", enabled=False)
    return {"flat": flat, "free": free, "coupon": coupon_free, "weight": weight, "pickup": pickup}


def calc(client, lines, country="GR", **extra):
    body = {"address": {"country": country, **extra.pop("address", {})}, "lines": lines, **extra}
    return client.post(CALCULATE, body, format="json")


def test_calculate_computes_every_method_type(anon, greece_zones, lamp):
    response = calc(anon, [{"product_id": lamp.pk, "quantity": 1}])
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["zone"] == {"id": greece_zones["flat"].zone_id, "name": "Greece"}
    assert body["package"] == {
        "items_total": "20.00",
        "item_count": 1,
        "weight": "1.5",
        "free_shipping_coupon": False,
    }
    assert [(m["title"], m["cost"]) for m in body["methods"]] == [
        ("Courier", "3.50"),
        ("By weight", "5.00"),
        ("Pickup", "0.00"),
    ]
    # 3 lamps: 60.00 (free shipping over 50), 4.5 kg (the second band), 3 x 0.50 per item.
    body = calc(anon, [{"product_id": lamp.pk, "quantity": 3}]).json()
    assert [(m["title"], m["cost"]) for m in body["methods"]] == [
        ("Courier", "4.50"),
        ("Free", "0.00"),
        ("By weight", "10.00"),
        ("Pickup", "0.00"),
    ]
    # Heavier than the last band: no by-weight method.
    body = calc(anon, [{"product_id": lamp.pk, "quantity": 7}]).json()
    assert "By weight" not in [m["title"] for m in body["methods"]]


def test_calculate_with_a_free_shipping_coupon(anon, greece_zones, lamp):
    make_coupon("SHIPFREE", "fixed_cart", 0, free_shipping=True)
    body = calc(anon, [{"product_id": lamp.pk}], coupon="shipfree").json()
    assert "With coupon" in [m["title"] for m in body["methods"]]
    assert {m["cost"] for m in body["methods"]} == {"0.00"}
    assert body["package"]["free_shipping_coupon"] is True
    error(calc(anon, [{"product_id": lamp.pk}], coupon="NOPE"), 400, "coupon_not_found")
    make_coupon("OFF", "fixed_cart", 0, free_shipping=True, enabled=False)
    error(calc(anon, [{"product_id": lamp.pk}], coupon="OFF"), 400, "coupon_disabled")


def test_calculate_weighs_variants_and_refuses_as_the_cart(anon, greece_zones):
    shirt = make_product(title="Shirt", type="variable", regular_price="25.00", weight="1")
    heavy = make_variant(shirt, TermFactory(name="XXL"), regular_price="30.00", weight="3")
    light = make_variant(shirt, TermFactory(name="S"), regular_price="25.00")
    body = calc(
        anon,
        [
            {"product_id": shirt.pk, "variant_id": heavy.pk, "quantity": 1},
            {"product_id": shirt.pk, "variant_id": light.pk, "quantity": 2},
        ],
    ).json()
    assert body["package"]["weight"] == "5"  # 3 + 2 x the product's 1
    assert body["package"]["items_total"] == "80.00"
    simple = make_product(title="Mug", regular_price="5.00")
    unpriced = make_product(title="Soon", regular_price=None)
    draft = make_product(title="Draft", status="draft")
    error(calc(anon, [{"product_id": shirt.pk}]), 400, "variant_required")
    error(calc(anon, [{"product_id": shirt.pk, "variant_id": 999_999}]), 404, "variant_not_found")
    error(
        calc(anon, [{"product_id": simple.pk, "variant_id": heavy.pk}]), 400, "not_variable_product"
    )
    error(calc(anon, [{"product_id": 999_999}]), 404, "product_not_found")
    error(calc(anon, [{"product_id": draft.pk}]), 404, "product_not_found")
    error(calc(anon, [{"product_id": unpriced.pk}]), 400, "product_not_purchasable")


def test_calculate_without_a_matching_zone(anon, greece_zones, lamp):
    body = calc(anon, [{"product_id": lamp.pk}], country="JP").json()
    assert (body["zone"], body["methods"]) == (None, [])
    assert body["location"] == {"country": "JP", "region": "", "postcode": ""}


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"lines": [{"product_id": 1}]}, "address"),
        ({"address": {}, "lines": [{"product_id": 1}]}, "address.country"),
        ({"address": {"country": "XX"}, "lines": [{"product_id": 1}]}, "address.country"),
        (
            {"address": {"country": "GR", "region": "ZZ"}, "lines": [{"product_id": 1}]},
            "address.region",
        ),
        (
            {"address": {"country": "GR", "postcode": "<b>"}, "lines": [{"product_id": 1}]},
            "address.postcode",
        ),
        ({"address": {"country": "GR"}}, "lines"),
        ({"address": {"country": "GR"}, "lines": []}, "lines"),
        ({"address": {"country": "GR"}, "lines": [{"product_id": 1, "quantity": 0}]}, "lines"),
        ({"address": {"country": "GR"}, "lines": [{"product_id": 2**63}]}, "lines"),
        ({"address": {"country": "GR"}, "lines": [{"product_id": 1}] * 101}, "lines"),
        ({"address": {"country": "GR"}, "lines": {"product_id": 1}}, "lines"),
        ({"address": ["GR"], "lines": [{"product_id": 1}]}, "address"),
        ({"address": {"country": "GR"}, "lines": [{"product_id": 1}], "coupon": 5}, "coupon"),
    ],
)
def test_calculate_refuses_bad_bodies(anon, body, param):
    response = anon.post(CALCULATE, body, format="json")
    assert response.status_code in (400, 422), response.content
    params = response.json()["data"]["params"]
    assert any(name.startswith(param) for name in params), params


def test_calculate_with_tax_on_shipping(anon, lamp):
    make_rate(24, country="GR")
    make_rate(19, country="DE")
    zone = make_zone("All", fallback=True)
    make_method(zone, title="Courier", cost="5.00")
    make_method(zone, "local_pickup", title="Pickup", cost="2.00", taxable=False)
    body = calc(anon, [{"product_id": lamp.pk}]).json()
    assert [(m["cost"], m["tax"]) for m in body["methods"]] == [("5.00", "1.20"), ("2.00", "0.00")]
    body = calc(anon, [{"product_id": lamp.pk}], country="DE").json()
    assert body["methods"][0]["tax"] == "0.95"
    settings_services.settings_update(section="tax", values={"prices_include_tax": True})
    body = calc(anon, [{"product_id": lamp.pk}]).json()
    assert (body["prices_include_tax"], body["methods"][0]["tax"]) == (True, "0.97")


@pytest.mark.parametrize("inclusive", [False, True])
def test_the_cart_and_the_calculation_agree(anon, greece_zones, lamp, inclusive):
    make_rate(24, country="GR")
    make_rate(13, country="GR", region="M")
    settings_services.settings_update(section="tax", values={"prices_include_tax": inclusive})
    mug = make_product(title="Mug", regular_price="7.25", weight="0.4")
    make_coupon("SHIPFREE", "fixed_cart", 0, free_shipping=True)
    cases = [
        ({"country": "GR"}, [(lamp, 1)], None),
        ({"country": "GR", "region": "M", "postcode": "71201"}, [(lamp, 2), (mug, 3)], None),
        ({"country": "GR"}, [(lamp, 3)], None),
        ({"country": "GR"}, [(mug, 1)], "SHIPFREE"),
        ({"country": "FR"}, [(lamp, 1)], None),
    ]
    for address, items, coupon in cases:
        shopper = type(anon)()
        for product, quantity in items:
            add(shopper, product.pk, quantity)
        shopper.post(f"{CART}/shipping-address", address, format="json")
        if coupon:
            shopper.post(f"{API}/coupons/apply", {"code": coupon}, format="json")
        cart_methods = shopper.get(f"{CART}/shipping-methods").json()["methods"]
        lines = [{"product_id": p.pk, "quantity": q} for p, q in items]
        body = {"address": address, "lines": lines}
        if coupon:
            body["coupon"] = coupon
        calculated = anon.post(CALCULATE, body, format="json").json()["methods"]
        assert [(m["id"], m["cost"], m["tax"]) for m in cart_methods] == [
            (m["id"], m["cost"], m["tax"]) for m in calculated
        ], (address, coupon)


# --- Countries, stats ---------------------------------------------------------------------


def test_countries_with_subdivisions(anon):
    body = anon.get(f"{SHIPPING}/countries").json()["countries"]
    assert len(body) > 200
    greece = next(c for c in body if c["code"] == "GR")
    assert (greece["name"], greece["subdivisions"]) == ("Greece", None)
    assert greece["subdivision_count"] > 10
    body = anon.get(f"{SHIPPING}/countries?country=gr,US&subdivisions=true").json()["countries"]
    assert [c["code"] for c in body] == ["GR", "US"]
    attica = next(s for s in body[0]["subdivisions"] if s["code"] == "I")
    assert attica["region"] == "GR:I"
    assert "US:CA" in {s["region"] for s in body[1]["subdivisions"]}
    error(anon.get(f"{SHIPPING}/countries?country=XX"), 400, "invalid_param")
    error(anon.get(f"{SHIPPING}/countries?subdivisions=maybe"), 400, "invalid_param")


def test_stats_count_zones_methods_and_orders(staff):
    greece = make_zone("Greece", countries=["GR"])
    make_zone("Nowhere")
    make_zone("World", fallback=True)
    flat = make_method(greece, cost="3")
    make_method(greece, "free_shipping", enabled=False)
    product = stocked(stock=100)
    for _ in range(2):
        make_order(line(product), shipping_method=f"flat_rate:{flat.pk}", shipping_method_title="C")
    make_order(line(product), shipping_method="local_pickup:999999")
    make_order(line(product))
    body = staff.get(f"{SHIPPING}/stats").json()
    assert body["zones"] == {"total": 3, "fallback": True, "without_regions": 1}
    assert body["methods"]["total"] == 2
    assert (body["methods"]["enabled"], body["methods"]["disabled"]) == (1, 1)
    assert body["methods"]["by_type"]["flat_rate"] == {"total": 1, "enabled": 1, "orders": 2}
    assert body["methods"]["by_type"]["local_pickup"] == {"total": 0, "enabled": 0, "orders": 1}
    assert body["orders"]["with_shipping"] == 3
    assert body["orders"]["by_method"] == [
        {
            "method_id": flat.pk,
            "type": "flat_rate",
            "orders": 2,
            "title": flat.title,
            "zone_id": greece.pk,
            "exists": True,
        },
        {
            "method_id": 999999,
            "type": "local_pickup",
            "orders": 1,
            "title": None,
            "zone_id": None,
            "exists": False,
        },
    ]
    assert Order.objects.count() == 4


# --- Hostile input, CSRF, idempotency -----------------------------------------------------


def deep(levels: int):
    value: object = 1
    for _ in range(levels):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    "payload",
    [
        '{"name": "Z", "regions": [{"type": "country", "code": "\\ud800"}]}',
        '{"name": "\\ud800"}',
        '{"name": "a\\u0000b"}',
        json.dumps({"name": "Z", "regions": [{"type": "country", "code": "GR\x00"}]}),
        json.dumps({"name": "Z", "sort_order": 10**40}),
        json.dumps({"name": "Z", "regions": deep(200)}),
        json.dumps({"name": ["Z"]}),
        json.dumps([{"name": "Z"}]),
        "not json",
        "",
    ],
)
def test_hostile_zone_bodies_never_break_the_server(staff, payload):
    response = staff.generic("POST", ZONES, payload, content_type="application/json")
    assert response.status_code in (400, 422), response.content
    assert set(response.json()) == {"code", "message", "data"}
    assert not ShippingZone.objects.exists()


@pytest.mark.parametrize(
    "bad_settings",
    [
        deep(300),
        {"cost": "\ud800"},
        {"cost": "1\x00"},
        {"\x00": 1},
        {"cost": 1e308},
        {"x" * 5000: 1},
    ],
)
def test_hostile_method_settings(staff, bad_settings):
    zone = make_zone("Greece", countries=["GR"])
    payload = json.dumps({"type": "flat_rate", "title": "X", "settings": bad_settings})
    response = staff.generic(
        "POST", f"{zone_url(zone.pk)}/methods", payload, content_type="application/json"
    )
    assert response.status_code in (400, 422), response.content
    assert not ShippingMethod.objects.exists()


def test_hostile_calculate_bodies(anon):
    for payload in (
        json.dumps({"address": deep(300), "lines": [{"product_id": 1}]}),
        '{"address": {"country": "\\ud800"}, "lines": [{"product_id": 1}]}',
        json.dumps(
            {"address": {"country": "GR"}, "lines": [{"product_id": 1, "quantity": 10**30}]}
        ),
        json.dumps({"address": {"country": "GR"}, "lines": [{"product_id": "1; DROP"}]}),
        json.dumps({"address": {"country": "GR\x00"}, "lines": [{"product_id": 1}]}),
    ):
        response = anon.generic("POST", CALCULATE, payload, content_type="application/json")
        assert response.status_code in (400, 422), response.content


def test_session_writes_need_the_nonce_and_answer_json(admin_user):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(admin_user)
    zone = make_zone("Greece", countries=["GR"])
    calls = [
        ("post", ZONES, {"name": "X"}),
        ("patch", zone_url(zone.pk), {"name": "X"}),
        ("post", f"{ZONES}/reorder", {"ids": [zone.pk]}),
        ("post", f"{zone_url(zone.pk)}/methods", {"type": "flat_rate", "title": "X"}),
        ("delete", zone_url(zone.pk), None),
    ]
    for verb, path, body in calls:
        response = getattr(browser, verb)(
            path, json.dumps(body) if body is not None else None, content_type="application/json"
        )
        assert response.status_code == 401, (verb, path, response.content)
        assert response.json()["code"]
    assert snapshot()[0] == [(zone.pk, "Greece", 0, False)]
    assert not ShippingMethod.objects.exists()
    nonce = browser.get(f"{API}/auth/nonce").json()["nonce"]
    response = browser.post(
        ZONES,
        json.dumps({"name": "X"}),
        content_type="application/json",
        HTTP_X_PLATFORM_NONCE=nonce,
    )
    assert response.status_code == 201, response.content
    # The public calculation takes a browser's POST without a session (no CSRF to pass).
    shopper = Client(enforce_csrf_checks=True)
    lamp = make_product(title="Lamp", regular_price="20.00")
    response = shopper.post(
        CALCULATE,
        json.dumps({"address": {"country": "GR"}, "lines": [{"product_id": lamp.pk}]}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["zone"]["name"] == "Greece"
    # A form post is refused with a JSON answer.
    response = browser.post(ZONES, {"name": "Y"})
    assert response.status_code in (401, 403, 415)
    assert response.json()["code"]


def test_creating_posts_honour_the_idempotency_key(staff):
    headers = {"HTTP_IDEMPOTENCY_KEY": "zone-key-1"}
    first = staff.post(ZONES, {"name": "Greece"}, format="json", **headers)
    again = staff.post(ZONES, {"name": "Greece"}, format="json", **headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert first.json() == again.json()
    assert ShippingZone.objects.count() == 1
    zone_id = first.json()["id"]
    headers = {"HTTP_IDEMPOTENCY_KEY": "method-key-1"}
    body = {"type": "flat_rate", "title": "Courier"}
    for _ in range(2):
        response = staff.post(f"{zone_url(zone_id)}/methods", body, format="json", **headers)
        assert response.status_code == 201
    assert ShippingMethod.objects.count() == 1


def test_money_settings_are_stored_as_decimals(staff):
    zone = make_zone("Greece", countries=["GR"])
    create_method(staff, zone.pk, type="flat_rate", title="X", settings={"cost": 0.1})
    assert ShippingMethod.objects.get().cost == Decimal("0.10")
