"""One address rule on every route that takes an address (store.common.addresses), through the
HTTP API: the cart's address, the checkout's billing and shipping addresses, /shipping/calculate,
/tax/calculate, the customers' saved addresses (staff and my account) and a customer's default
addresses; the orders' are tests/store/orders/test_addresses_rule.py. And the same address gives
the same region to the tax and shipping calculators, the cart and the checkout."""

from __future__ import annotations

import itertools

import pytest

from tests.fixtures.store import API, error
from tests.store.cart.helpers import CART, add, cart_of
from tests.store.catalog.factories import make_product
from tests.store.checkout.helpers import CHECKOUT, Shop
from tests.store.common.address_rule import FULL, Route, check_route, stored
from tests.store.customers.factories import CustomerFactory
from tests.store.shipping.factories import make_method, make_zone
from tests.store.tax.factories import make_rate

pytestmark = pytest.mark.django_db

TAX_CALCULATE = f"{API}/tax/calculate"
SHIPPING_CALCULATE = f"{API}/shipping/calculate"


# --- The rule on each route ----------------------------------------------------------------------


def test_the_carts_shipping_address(anon):
    check_route(
        Route(
            "POST /cart/shipping-address",
            send=lambda address: anon.post(f"{CART}/shipping-address", address, format="json"),
            answered=lambda response: response.json()["cart"]["shipping_address"],
            destination=True,
        )
    )
    assert cart_of(anon)["shipping_address"] == {
        "country": "GR",
        "region": "M",
        "postcode": "71202",
    }


def test_the_tax_calculation(anon):
    check_route(
        Route(
            "POST /tax/calculate",
            send=lambda address: anon.post(
                TAX_CALCULATE,
                {"address": address, "lines": [{"amount": "10.00"}]},
                format="json",
            ),
            answered=lambda response: response.json()["location"],
            prefix="address.",
            destination=True,
        )
    )


def test_the_shipping_calculation(anon):
    lamp = make_product(title="Lamp", regular_price="10.00")
    check_route(
        Route(
            "POST /shipping/calculate",
            send=lambda address: anon.post(
                SHIPPING_CALCULATE,
                {"address": address, "lines": [{"product_id": lamp.pk}]},
                format="json",
            ),
            answered=lambda response: response.json()["location"],
            prefix="address.",
            destination=True,
        )
    )


def test_the_checkouts_billing_address_at_the_start(anon):
    shop = Shop()
    assert add(anon, shop.lamp.pk).status_code == 200
    check_route(
        Route(
            "POST /checkout",
            send=lambda address: anon.post(
                CHECKOUT, {"email": "eleni@example.com", "billing_address": address}, format="json"
            ),
            answered=lambda response: response.json()["billing_address"],
            prefix="billing_address.",
        )
    )


def test_the_checkouts_shipping_address_on_update(anon):
    shop = Shop()
    assert add(anon, shop.lamp.pk).status_code == 200
    started = anon.post(CHECKOUT, {"email": "eleni@example.com"}, format="json")
    assert started.status_code == 201, started.content
    url = f"{CHECKOUT}/{started.json()['id']}"
    check_route(
        Route(
            "PATCH /checkout/{id}",
            send=lambda address: anon.patch(url, {"shipping": address}, format="json"),
            answered=lambda response: response.json()["shipping_address"],
            prefix="shipping_address.",
        )
    )
    assert anon.get(url).json()["shipping_address"]["region"] == "M"
    # The checkout's shipping address is the cart's destination too.
    assert cart_of(anon)["shipping_address"]["region"] == "M"


def test_a_customers_saved_address(manager_client):
    person = CustomerFactory()
    url = f"{API}/customers/{person.pk}/addresses"
    check_route(
        Route(
            "POST /customers/{id}/addresses",
            send=lambda address: manager_client.post(
                url, {"type": "billing", **address}, format="json"
            ),
            answered=lambda response: response.json(),
        )
    )
    listed = manager_client.get(url).json()["addresses"]
    assert {row["region"] for row in listed} == {"M"}


def test_a_saved_address_updated(manager_client):
    person = CustomerFactory()
    made = manager_client.post(
        f"{API}/customers/{person.pk}/addresses",
        {"type": "billing", **FULL, "region": "I"},
        format="json",
    )
    assert made.status_code == 201, made.content
    url = f"{API}/addresses/{made.json()['id']}"
    check_route(
        Route(
            "PATCH /addresses/{id}",
            send=lambda address: manager_client.patch(url, address, format="json"),
            answered=lambda response: response.json(),
            bad_state_named="region",
        )
    )
    assert manager_client.get(url).json()["region"] == "M"


def test_a_partial_update_takes_state_alone(manager_client):
    person = CustomerFactory()
    made = manager_client.post(
        f"{API}/customers/{person.pk}/addresses", {"type": "billing", **FULL}, format="json"
    ).json()
    url = f"{API}/addresses/{made['id']}"
    assert manager_client.patch(url, {"state": "Kríti"}, format="json").json()["region"] == "M"
    before = stored()
    body = error(manager_client.patch(url, {"region": "M", "state": "I"}, format="json"), 400)
    assert set(body["data"]["params"]) == {"region"}
    assert stored() == before


def test_a_customers_default_addresses(manager_client):
    emails = (f"eleni{n}@example.com" for n in itertools.count())
    check_route(
        Route(
            "POST /customers",
            send=lambda address: manager_client.post(
                f"{API}/customers", {"email": next(emails), "billing": address}, format="json"
            ),
            answered=lambda response: response.json()["billing"],
            prefix="billing.",
        )
    )


def test_my_address(customer_client):
    check_route(
        Route(
            "PUT /account/addresses/{type}",
            send=lambda address: customer_client.put(
                f"{API}/account/addresses/shipping", address, format="json"
            ),
            answered=lambda response: response.json(),
        )
    )
    assert customer_client.get(f"{API}/account/addresses").json()["shipping"]["region"] == "M"


# --- One address, one region, for every calculator -----------------------------------------------


@pytest.fixture
def crete():
    """Greek VAT of 13% with 9% in Crete (the test's own rates), and a Crete shipping zone
    before the mainland's."""
    mainland_vat = make_rate(13, country="GR", name="VAT")
    island_vat = make_rate(9, country="GR", region="M", name="VAT (Crete)")
    island = make_method(make_zone("Crete", regions=["GR:M"], order=1), cost="7.00")
    mainland = make_method(make_zone("Greece", countries=["GR"], order=2), cost="5.00")
    lamp = make_product(title="Lamp", regular_price="100.00")
    return {
        "lamp": lamp,
        "rates": (mainland_vat, island_vat),
        "methods": (island, mainland),
    }


SPELLINGS = [
    {"region": "M"},
    {"state": "M"},
    {"state": "GR-M"},
    {"region": "Kríti"},
    {"region": "m", "state": "GR-M"},
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_the_same_address_gives_the_same_tax_and_zone(anon, crete, spelling):
    address = {"country": "GR", "postcode": "71202", **spelling}
    tax = anon.post(
        TAX_CALCULATE, {"address": address, "lines": [{"amount": "100.00"}]}, format="json"
    )
    assert tax.status_code == 200, tax.content
    assert (tax.json()["tax"], [line["rate"] for line in tax.json()["tax_lines"]]) == (
        "9.00",
        ["9"],
    )
    shipping = anon.post(
        SHIPPING_CALCULATE,
        {"address": address, "lines": [{"product_id": crete["lamp"].pk}]},
        format="json",
    )
    assert shipping.status_code == 200, shipping.content
    assert shipping.json()["zone"]["name"] == "Crete"
    assert [m["cost"] for m in shipping.json()["methods"]] == ["7.00"]

    assert add(anon, crete["lamp"].pk).status_code == 200
    response = anon.post(f"{CART}/shipping-address", address, format="json")
    assert response.status_code == 200, response.content
    cart = response.json()["cart"]
    assert cart["shipping_address"]["region"] == "M"
    assert (cart["shipping"], cart["shipping_method"]["id"]) == ("7.00", crete["methods"][0].pk)
    # 9% of the lamp (9.00) and of the shipping (0.63).
    assert ([line["rate"] for line in cart["tax_lines"]], cart["tax"]) == (["9"], "9.63")


def test_the_checkouts_address_prices_the_cart_for_crete(anon, crete):
    assert add(anon, crete["lamp"].pk).status_code == 200
    response = anon.post(
        CHECKOUT,
        {"email": "eleni@example.com", "billing_address": {**FULL, "state": "GR-M"}},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["billing_address"]["region"] == "M"
    assert body["cart"]["tax"] == "9.63"
    assert body["cart"]["shipping_address"] == {
        "country": "GR",
        "region": "M",
        "postcode": "71202",
    }


def test_the_mainland_keeps_the_countrys_rate_and_zone(anon, crete):
    address = {"country": "GR", "region": "Attikí", "postcode": "10431"}
    tax = anon.post(
        TAX_CALCULATE, {"address": address, "lines": [{"amount": "100.00"}]}, format="json"
    ).json()
    assert (tax["location"]["region"], tax["tax"]) == ("I", "13.00")
    shipping = anon.post(
        SHIPPING_CALCULATE,
        {"address": address, "lines": [{"product_id": crete["lamp"].pk}]},
        format="json",
    ).json()
    assert shipping["zone"]["name"] == "Greece"


def test_free_text_where_the_country_has_no_subdivisions(anon):
    """Hong Kong has no ISO 3166-2 subdivisions: its region is free text, kept as sent and
    matched without regard to case against rates and zones."""
    make_rate(5, country="HK", region="KOWLOON", name="Kowloon levy")
    make_method(make_zone("Kowloon", regions=["HK:KOWLOON"]), cost="3.00")
    lamp = make_product(title="Lamp", regular_price="100.00")
    address = {"country": "HK", "region": "Kowloon"}
    tax = anon.post(
        TAX_CALCULATE, {"address": address, "lines": [{"amount": "100.00"}]}, format="json"
    ).json()
    assert tax["tax"] == "5.00"
    shipping = anon.post(
        SHIPPING_CALCULATE, {"address": address, "lines": [{"product_id": lamp.pk}]}, format="json"
    ).json()
    assert shipping["zone"]["name"] == "Kowloon"
    cart = anon.post(f"{CART}/shipping-address", address, format="json").json()["cart"]
    assert cart["shipping_address"]["region"] == "Kowloon"
    body = error(
        anon.post(f"{CART}/shipping-address", {**address, "region": "K" * 101}, format="json"),
        400,
    )
    assert set(body["data"]["params"]) == {"region"}
