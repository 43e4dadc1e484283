"""POST /checkout/{id}/validate: every problem at once, holds taken afresh where possible."""

import pytest
from rest_framework.test import APIClient

from store.catalog.services import products as product_services
from store.checkout.services import expiry
from store.settings import services as settings_services
from tests.store.cart.helpers import add
from tests.store.checkout.helpers import ADDRESS, CHECKOUT, start, started
from tests.store.coupons.factories import make_coupon
from tests.store.shipping.factories import make_method, make_zone

pytestmark = pytest.mark.django_db


def validate(client, checkout_id):
    response = client.post(f"{CHECKOUT}/{checkout_id}/validate")
    assert response.status_code == 200, response.content
    return response.json()


def codes(result) -> list[str]:
    return [problem["code"] for problem in result["problems"]]


def test_a_ready_checkout_is_valid(anon, shop):
    body = started(anon, shop)
    result = validate(anon, body["id"])
    assert set(result) == {"valid", "problems", "notices", "checkout"}
    assert (result["valid"], result["problems"], result["notices"]) == (True, [], [])
    assert result["checkout"]["id"] == body["id"]
    assert result["checkout"]["hold"]["active"] is True


def test_missing_fields_are_named(anon, shop):
    add(anon, shop.lamp.pk, 1)
    response = anon.post(CHECKOUT, {}, format="json")
    assert response.status_code == 201
    result = validate(anon, response.json()["id"])
    assert result["valid"] is False
    assert codes(result) == ["checkout_incomplete"]
    assert set(result["problems"][0]["params"]) == {
        "email",
        "billing_address.first_name",
        "billing_address.last_name",
        "billing_address.address_1",
        "billing_address.city",
        "billing_address.postcode",
        "billing_address.country",
        "payment_method",
    }


def test_a_separate_shipping_address_must_be_complete_unless_picked_up(anon, shop):
    body = started(anon, shop, shipping_address={"first_name": "Eleni", "country": "GR"})
    result = validate(anon, body["id"])
    assert set(result["problems"][0]["params"]) == {
        "shipping_address.last_name",
        "shipping_address.address_1",
        "shipping_address.city",
        "shipping_address.postcode",
    }
    anon.patch(f"{CHECKOUT}/{body['id']}", {"shipping_method": shop.pickup.pk}, format="json")
    assert validate(anon, body["id"])["valid"] is True


def test_the_phone_when_the_store_requires_it(anon, shop):
    settings_services.settings_update(section="checkout", values={"require_phone": True})
    body = started(anon, shop, billing_address={**ADDRESS, "phone": ""})
    result = validate(anon, body["id"])
    assert result["problems"][0]["params"] == {"billing_address.phone": "Required."}


def test_no_postcode_is_needed_where_the_country_has_none(anon, shop):
    make_method(make_zone("World", fallback=True), "flat_rate", "World post", cost="20")
    hong_kong = {**ADDRESS, "region": "", "postcode": "", "city": "Hong Kong", "country": "HK"}
    body = started(anon, shop, billing_address=hong_kong)
    assert validate(anon, body["id"])["valid"] is True


def test_an_address_no_method_ships_to(anon, shop):
    japan = {**ADDRESS, "region": "", "city": "Tokyo", "postcode": "100-0001", "country": "JP"}
    body = started(anon, shop, billing_address=japan)
    result = validate(anon, body["id"])
    assert codes(result) == ["no_shipping_method"]
    assert (
        result["problems"][0]["message"] == "No shipping method delivers this cart to JP 100-0001."
    )


def test_stock_and_other_problems_together(anon, shop):
    body = started(anon, shop, lamps=3, email="")
    # The stock fell while the checkout's hold was given back: a stocktake found one lamp.
    expiry.checkout_hold_expire(checkout_id=body["id"], force=True)
    product_services.product_update(product_id=shop.lamp.pk, fields={"stock_quantity": 1})
    result = validate(anon, body["id"])
    assert codes(result) == ["insufficient_stock", "checkout_incomplete"]
    stock = result["problems"][0]
    assert stock["message"].startswith("Not enough stock: Lamp: 1 available, 3 wanted")
    assert list(stock["params"]) == [
        f"items.{result['checkout']['cart']['items'][0]['id']}.quantity"
    ]
    assert result["checkout"]["hold"]["stock_held"] is False
    assert shop.stock() == 1  # nothing taken


def test_a_coupon_that_cannot_be_held_again(anon, shop):
    make_coupon("ONCE", "percent", 10, usage_limit=1)
    other = APIClient()
    for client in (anon, other):
        add(client, shop.lamp.pk, 1)
        client.post("/rest/ec/v1/coupons/apply", {"code": "ONCE"}, format="json")
    first = start(anon).json()
    assert validate(anon, first["id"])["valid"] is True
    # The first hold is given back (its time ran out); another checkout takes the one use.
    expiry.checkout_hold_expire(checkout_id=first["id"], force=True)
    assert start(other).status_code == 201
    result = validate(anon, first["id"])
    assert codes(result) == ["coupon_usage_limit_reached"]
    assert result["checkout"]["hold"]["stock_held"] is True  # the stock was held again


def test_a_payment_method_turned_off_meanwhile(anon, shop):
    body = started(anon, shop, payment_method="bank_transfer")
    settings_services.settings_update(section="payments", values={"bank_transfer_enabled": False})
    result = validate(anon, body["id"])
    assert codes(result) == ["payment_method_unavailable"]


def test_an_item_gone_from_sale_is_reported_as_a_notice(anon, shop):
    body = started(anon, shop)
    product_services.product_update(product_id=shop.mug.pk, fields={"status": "archived"})
    result = validate(anon, body["id"])
    assert result["valid"] is True
    assert [notice["code"] for notice in result["notices"]] == ["item_removed"]
    assert [item["title"] for item in result["checkout"]["cart"]["items"]] == ["Lamp"]
