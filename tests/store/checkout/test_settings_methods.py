"""GET /checkout/settings and GET /checkout/payment-methods."""

import pytest

from store.settings import services as settings_services
from tests.fixtures.store import API
from tests.store.cart.helpers import add
from tests.store.checkout.helpers import CHECKOUT
from tests.store.coupons.factories import make_coupon

pytestmark = pytest.mark.django_db

REQUIRED = ["first_name", "last_name", "address_1", "city", "postcode", "country"]


def test_the_settings_of_the_checkout(anon):
    response = anon.get(f"{CHECKOUT}/settings")
    assert response.status_code == 200
    assert response.json() == {
        "guest_checkout": True,
        "account_creation": True,
        "require_phone": False,
        "required_fields": {
            "email": True,
            "billing_address": REQUIRED,
            "shipping_address": REQUIRED,
        },
        "hold_minutes": 10,
        "unpaid_order_hold_minutes": 60,
        "bank_transfer_hold_hours": 24,
        "offline_payment_hold_minutes": 120,
        "max_quantity": 100,
        "guest_order_max_units": 100,
        "shopper_hold_percent": 10,
        "shopper_hold_min_units": 5,
        "terms_url": "",
        "currency": "EUR",
        "prices_include_tax": False,
        "payment_methods": ["sandbox_card", "bank_transfer", "cash_on_delivery"],
    }


def test_the_settings_follow_the_store_settings(anon, settings):
    settings_services.settings_update(
        section="checkout",
        values={"require_phone": True, "hold_minutes": 15, "terms_url": "https://x.test/terms"},
    )
    settings_services.settings_update(
        section="payments", values={"cash_on_delivery_enabled": False}
    )
    settings.PAYMENT_SANDBOX_ALLOWED = False
    body = anon.get(f"{CHECKOUT}/settings").json()
    assert body["required_fields"]["billing_address"] == [*REQUIRED, "phone"]
    assert (body["hold_minutes"], body["terms_url"]) == (15, "https://x.test/terms")
    assert body["payment_methods"] == ["bank_transfer"]


def test_the_order_received_page_setting_takes_only_known_placeholders(admin_client_api):
    response = admin_client_api.patch(
        f"{API}/settings/checkout", {"order_received_page": "https://x.test/{nope}"}, format="json"
    )
    assert response.status_code == 400
    assert "order_received_page" in response.json()["data"]["params"]


def test_the_payment_methods_of_the_cart(anon, shop):
    add(anon, shop.lamp.pk, 1)
    response = anon.get(f"{CHECKOUT}/payment-methods")
    assert response.status_code == 200
    body = response.json()
    assert (body["needs_payment"], body["total"], body["currency"]) == (True, "31.00", "EUR")
    methods = {method["id"]: method for method in body["payment_methods"]}
    assert list(methods) == ["sandbox_card", "bank_transfer", "cash_on_delivery"]
    card = methods["sandbox_card"]
    assert (card["type"], card["title"]) == ("card", "Credit or debit card")
    assert card["test_cards"][0] == {
        "number": "4242 4242 4242 4242",
        "brand": "visa",
        "result": "approved",
    }
    assert methods["bank_transfer"]["type"] == "offline"
    assert methods["bank_transfer"]["instructions"] == (
        "Reference: your order number\nUnpaid orders are cancelled after 2 hours."
    )
    assert methods["cash_on_delivery"]["test_cards"] == []


def test_a_free_cart_needs_no_payment(anon, shop):
    make_coupon("ALL", "percent", 100, free_shipping=True)
    add(anon, shop.lamp.pk, 1)
    anon.post(f"{API}/coupons/apply", {"code": "ALL"}, format="json")
    body = anon.get(f"{CHECKOUT}/payment-methods").json()
    assert (body["needs_payment"], body["total"]) == (False, "0.00")


def test_the_sandbox_is_not_offered_outside_development(anon, settings):
    settings.PAYMENT_SANDBOX_ALLOWED = False
    body = anon.get(f"{CHECKOUT}/payment-methods").json()
    assert [method["id"] for method in body["payment_methods"]] == [
        "bank_transfer",
        "cash_on_delivery",
    ]
