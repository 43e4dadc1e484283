"""POST /checkout, GET /checkout: starting from the cart, its fields, holds and refusals."""

import pytest
from rest_framework.test import APIClient

from store.cart.models import Cart
from store.checkout.models import Checkout
from store.coupons.models import CouponUse
from store.inventory.models import StockMovement
from store.settings import services as settings_services
from tests.fixtures.store import API, error
from tests.store.cart.helpers import CART, add, cart_of
from tests.store.checkout.helpers import ADDRESS, CHECKOUT, details, start, started
from tests.store.coupons.factories import make_coupon

pytestmark = pytest.mark.django_db

CHECKOUT_KEYS = {
    "id",
    "status",
    "email",
    "billing_address",
    "shipping_address",
    "ship_to_billing",
    "shipping_method",
    "payment_method",
    "payment_method_title",
    "customer_note",
    "vat_number",
    "reverse_charge",
    "needs_payment",
    "needs_shipping_address",
    "hold",
    "cart",
    "order",
    "payment",
    "created_at",
    "updated_at",
    "completed_at",
}


def test_starting_answers_the_checkout_and_holds_the_stock(anon, shop):
    add(anon, shop.lamp.pk, 2)
    add(anon, shop.mug.pk, 1)
    response = start(anon, customer_note="Ring twice.")
    assert response.status_code == 201, response.content
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert set(body) == CHECKOUT_KEYS
    checkout = Checkout.objects.get()
    assert body["id"] == checkout.pk
    assert (body["status"], body["email"], body["customer_note"]) == (
        "open",
        "ana@example.com",
        "Ring twice.",
    )
    assert body["billing_address"] == {**ADDRESS, "company": "", "address_2": "", "email": ""}
    assert body["shipping_address"] == body["billing_address"]
    assert body["ship_to_billing"] is True
    assert body["shipping_method"] == {
        "id": shop.courier.pk,
        "type": "flat_rate",
        "title": "Courier",
        "cost": "5.00",
    }
    assert (body["payment_method"], body["payment_method_title"]) == (
        "sandbox_card",
        "Credit or debit card",
    )
    assert (body["needs_payment"], body["needs_shipping_address"]) == (True, True)
    assert body["hold"]["active"] is True
    assert body["hold"]["stock_held"] is True
    assert body["hold"]["minutes"] == 10
    assert body["order"] is None
    assert body["payment"] == {"due_at": None, "attempts": 0, "last_error": None}
    assert (body["vat_number"], body["reverse_charge"]) == ("", False)
    cart = body["cart"]
    assert (cart["subtotal"], cart["tax"], cart["shipping"], cart["total"]) == (
        "48.00",
        "12.72",
        "5.00",
        "65.72",
    )
    # Two lamps are held for this cart: out of the catalog's stock, still this cart's to raise.
    assert shop.stock() == 3
    lamp_line = next(item for item in cart["items"] if item["product_id"] == shop.lamp.pk)
    assert lamp_line["max_quantity"] == 5
    movement = StockMovement.objects.get(product=shop.lamp, reason="checkout_hold")
    assert (movement.quantity, movement.reason, movement.reference_type) == (
        -2,
        "checkout_hold",
        "cart",
    )
    assert movement.reference_id == str(checkout.cart_id)
    assert movement.idempotency_key.startswith(f"checkout:{checkout.pk}:1:take:")
    assert not StockMovement.objects.filter(product=shop.mug).exists()  # untracked: not held
    assert Cart.objects.get().stock_held is True


def test_the_shipping_address_becomes_the_carts_destination(anon, shop):
    started(anon, shop, shipping_address={**ADDRESS, "city": "Piraeus", "postcode": "18531"})
    cart = Cart.objects.get()
    assert (cart.shipping_country, cart.shipping_region, cart.shipping_postcode) == (
        "GR",
        "I",
        "18531",
    )
    assert cart_of(anon)["shipping_address"] == {
        "country": "GR",
        "region": "I",
        "postcode": "18531",
    }


def test_starting_again_updates_the_carts_open_checkout(anon, shop):
    first = started(anon, shop)
    response = start(anon, email="other@example.com", payment_method="bank_transfer")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["id"] == first["id"]
    assert (body["email"], body["payment_method"]) == ("other@example.com", "bank_transfer")
    assert Checkout.objects.count() == 1
    assert shop.stock() == 3  # held once, not twice


def test_field_names_of_either_spelling(anon, shop):
    add(anon, shop.lamp.pk, 1)
    response = anon.post(
        CHECKOUT,
        {
            "email": "ANA@Example.com",
            "billing": ADDRESS,
            "shipping": {**ADDRESS, "first_name": "Eleni"},
            "shipping_method_id": shop.pickup.pk,
            "note": "Hi",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["email"] == "ana@example.com"
    assert body["shipping_address"]["first_name"] == "Eleni"
    assert body["ship_to_billing"] is False
    assert body["shipping_method"]["id"] == shop.pickup.pk
    assert body["needs_shipping_address"] is False  # local pickup
    assert body["customer_note"] == "Hi"


def test_an_empty_cart_cannot_be_checked_out(anon, shop):
    error(start(anon), 400, "cart_empty")
    add(anon, shop.lamp.pk, 1)
    anon.post(f"{CART}/clear")
    error(start(anon), 400, "cart_empty")
    assert not Checkout.objects.exists()


@pytest.mark.parametrize(
    ("changes", "param"),
    [
        ({"email": "not-an-address"}, "email"),
        ({"billing_address": {**ADDRESS, "country": "XX"}}, "billing_address.country"),
        ({"billing_address": {**ADDRESS, "region": "ZZ"}}, "billing_address.region"),
        ({"billing_address": {**ADDRESS, "postcode": "10431!"}}, "billing_address.postcode"),
        ({"shipping_address": {**ADDRESS, "region": "Attica"}}, "shipping_address.region"),
        ({"customer_note": "x" * 2001}, "customer_note"),
        ({"shipping_method": "two"}, "shipping_method"),
    ],
)
def test_invalid_fields_are_named_and_nothing_is_made(anon, shop, changes, param):
    add(anon, shop.lamp.pk, 2)
    body = error(start(anon, **changes), 400, "invalid_param")
    assert param in body["data"]["params"], body
    assert not Checkout.objects.exists()
    assert shop.stock() == 5
    assert not StockMovement.objects.filter(reason="checkout_hold").exists()


def test_an_unknown_payment_method_is_refused(anon, shop):
    add(anon, shop.lamp.pk, 1)
    body = error(start(anon, payment_method="bitcoin"), 400, "payment_method_unavailable")
    assert "sandbox_card" in body["message"]
    settings_services.settings_update(section="payments", values={"bank_transfer_enabled": False})
    error(start(anon, payment_method="bank_transfer"), 400, "payment_method_unavailable")
    assert not Checkout.objects.exists()


def test_the_sandbox_card_is_refused_outside_development(anon, shop, settings):
    settings.PAYMENT_SANDBOX_ALLOWED = False
    add(anon, shop.lamp.pk, 1)
    error(start(anon), 503, "payments_not_configured")
    assert not Checkout.objects.exists()
    assert start(anon, payment_method="bank_transfer").status_code == 201


def test_a_shipping_method_must_serve_the_address(anon, shop):
    from tests.store.shipping.factories import make_method, make_zone

    cyprus = make_method(make_zone("Cyprus", countries=["CY"]), "flat_rate", "CY post", cost=9)
    add(anon, shop.lamp.pk, 1)
    error(start(anon, shipping_method=cyprus.pk), 400, "shipping_method_unavailable")
    error(start(anon, shipping_method=99999), 400, "shipping_method_not_found")
    assert not Checkout.objects.exists()
    assert Cart.objects.get().shipping_method_id is None


def test_stock_held_by_another_checkout_is_not_for_sale(anon, shop):
    started(anon, shop, lamps=4, mugs=0)
    # Other shoppers: the hoarding limit counts one address's checkouts together.
    other, third = APIClient(REMOTE_ADDR="192.0.2.2"), APIClient(REMOTE_ADDR="192.0.2.3")
    error(add(other, shop.lamp.pk, 2), 400, "insufficient_stock")  # 1 left for sale
    assert add(other, shop.lamp.pk, 1).status_code == 200
    assert add(third, shop.lamp.pk, 1).status_code == 200
    assert start(third).status_code == 201  # holds the last one
    assert shop.stock() == 0
    body = error(start(other), 409, "insufficient_stock")
    key = cart_of(other)["items"][0]["id"]
    assert list(body["data"]["params"]) == [f"items.{key}.quantity"]
    assert "Lamp: 0 available, 1 wanted" in body["message"]
    assert Checkout.objects.count() == 2


def test_a_coupon_used_up_by_other_checkouts_refuses_the_start(anon, shop):
    make_coupon("ONCE", "percent", 10, usage_limit=1)
    other = APIClient()
    for client in (anon, other):
        add(client, shop.lamp.pk, 1)
        response = client.post(f"{API}/coupons/apply", {"code": "once"}, format="json")
        assert response.status_code == 200, response.content
    assert start(anon).status_code == 201  # holds the coupon's one use
    error(start(other), 400, "coupon_usage_limit_reached")
    assert list(CouponUse.objects.values_list("status", flat=True)) == ["held"]
    assert Checkout.objects.count() == 1
    assert shop.stock() == 4  # the refused start holds nothing


def test_guest_checkout_can_be_turned_off(anon, customer_client, shop):
    settings_services.settings_update(section="checkout", values={"guest_checkout": False})
    add(anon, shop.lamp.pk, 1)
    error(start(anon), 400, "login_required")
    add(customer_client, shop.lamp.pk, 1)
    response = start(customer_client)
    assert response.status_code == 201, response.content
    assert Checkout.objects.get().user.email == "shopper@example.com"


def test_a_logged_in_shoppers_email_is_the_default(customer_client, shop):
    add(customer_client, shop.lamp.pk, 1)
    body = details()
    del body["email"]
    response = customer_client.post(CHECKOUT, body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["email"] == "shopper@example.com"


def test_bodies_are_json_only(anon, shop):
    add(anon, shop.lamp.pk, 1)
    error(anon.post(CHECKOUT, {"email": "a@example.com"}, format="multipart"), 415)
    assert not Checkout.objects.exists()


def test_reading_the_carts_open_checkout(anon, shop):
    error(anon.get(CHECKOUT), 404, "checkout_not_found")
    body = started(anon, shop)
    response = anon.get(CHECKOUT)
    assert response.status_code == 200
    assert response.json()["id"] == body["id"]


@pytest.mark.parametrize(
    "body",
    [
        {"email": "a" * 250 + "@example.com"},
        {"billing_address": {"first_name": "x" * 500}},
        {"billing_address": "Ermou 12"},
        {"billing_address": None},
        {"shipping_method": True},
        {"shipping_method": 10**30},
        {"payment_method": ["sandbox_card"]},
        {"customer_note": {"a": 1}},
        ["not", "an", "object"],
    ],
)
def test_odd_bodies_are_refused_never_crash(anon, shop, body):
    add(anon, shop.lamp.pk, 1)
    error(anon.post(CHECKOUT, body, format="json"), 400)
    assert not Checkout.objects.exists()


def test_odd_ids_and_payment_data_never_crash(anon, shop):
    checkout = started(anon, shop)
    error(anon.get(f"{CHECKOUT}/{10**30}"), 404, "no_route")  # no bigint: no route
    for payment_data in ("4242", [1], {"card_number": 4242424242424242}, {"exp_year": "x" * 99}):
        response = anon.post(
            f"{CHECKOUT}/{checkout['id']}/complete", {"payment_data": payment_data}, format="json"
        )
        error(response, 400)
    error(
        anon.post(f"{CHECKOUT}/{checkout['id']}/complete", {"expected_total": "-1"}, format="json"),
        400,
        "invalid_param",
    )
