"""PATCH/PUT /checkout/{id}: fields, the hold following the cart, and what cannot change."""

import pytest

from store.cart.models import Cart
from store.checkout.models import Checkout
from store.inventory.models import StockMovement
from tests.fixtures.store import error
from tests.store.cart.helpers import CART, cart_of
from tests.store.checkout.helpers import ADDRESS, CHECKOUT, complete, started
from tests.store.shipping.factories import make_method, make_zone
from tests.store.tax.factories import make_rate

pytestmark = pytest.mark.django_db


def patch(client, checkout_id, body, method="patch"):
    return getattr(client, method)(f"{CHECKOUT}/{checkout_id}", body, format="json")


@pytest.mark.parametrize("method", ["patch", "put"])
def test_changing_fields(anon, shop, method):
    body = started(anon, shop)
    response = patch(
        anon,
        body["id"],
        {
            "email": "new@example.com",
            "customer_note": "Leave at the door.",
            "payment_method": "cash_on_delivery",
        },
        method,
    )
    assert response.status_code == 200, response.content
    changed = response.json()
    assert (changed["email"], changed["customer_note"], changed["payment_method"]) == (
        "new@example.com",
        "Leave at the door.",
        "cash_on_delivery",
    )
    assert changed["billing_address"]["city"] == "Athens"  # not sent: unchanged
    checkout = Checkout.objects.get()
    assert checkout.email == "new@example.com"


def test_an_address_in_another_country_reprices_the_cart(anon, shop):
    zone = make_zone("Cyprus", countries=["CY"])
    make_method(zone, "flat_rate", "CY post", cost="9.00")
    make_rate("19", country="CY", name="VAT CY")
    body = started(anon, shop)
    cyprus = {**ADDRESS, "region": "", "city": "Nicosia", "postcode": "1010", "country": "CY"}
    response = patch(anon, body["id"], {"shipping_address": cyprus})
    assert response.status_code == 200, response.content
    changed = response.json()
    assert changed["ship_to_billing"] is False
    assert changed["shipping_method"]["title"] == "CY post"
    cart = changed["cart"]
    assert (cart["shipping"], cart["tax"], cart["total"]) == ("9.00", "10.83", "67.83")
    assert Cart.objects.get().shipping_country == "CY"
    # Back to the billing address.
    response = patch(anon, body["id"], {"shipping_address": None})
    assert response.json()["ship_to_billing"] is True
    assert response.json()["cart"]["total"] == "65.72"


def test_a_blank_shipping_address_ships_to_the_billing_address(anon, shop):
    body = started(anon, shop, shipping_address={**ADDRESS, "city": "Patras"})
    assert body["ship_to_billing"] is False
    blank = dict.fromkeys(ADDRESS, "  ")
    response = patch(anon, body["id"], {"shipping_address": blank})
    assert response.status_code == 200, response.content
    changed = response.json()
    # An address is stored as its non-empty keys: one with none is no address.
    assert changed["ship_to_billing"] is True
    assert changed["shipping_address"]["city"] == "Athens"
    assert Checkout.objects.get().shipping_address == {}


def test_choosing_the_shipping_method(anon, shop):
    body = started(anon, shop)
    response = patch(anon, body["id"], {"shipping_method": shop.pickup.pk})
    assert response.status_code == 200
    assert response.json()["shipping_method"]["id"] == shop.pickup.pk
    assert response.json()["cart"]["shipping"] == "0.00"
    assert Cart.objects.get().shipping_method_id == shop.pickup.pk


def test_a_refused_update_changes_nothing(anon, shop):
    body = started(anon, shop)
    before = Checkout.objects.get()
    response = patch(
        anon,
        body["id"],
        {"email": "kept@example.com", "billing_address": {**ADDRESS, "country": "XX"}},
    )
    error(response, 400, "invalid_param")
    response = patch(anon, body["id"], {"email": "kept@example.com", "payment_method": "nope"})
    error(response, 400, "payment_method_unavailable")
    after = Checkout.objects.get()
    assert (after.email, after.billing_address, after.payment_method) == (
        before.email,
        before.billing_address,
        before.payment_method,
    )


def test_the_hold_follows_the_cart_at_each_write(anon, shop):
    body = started(anon, shop, lamps=2)
    assert shop.stock() == 3
    # The shopper may raise the line beyond what others can buy: their held units count.
    line = cart_of(anon)["items"][0]
    response = anon.patch(f"{CART}/items/{line['id']}", {"quantity": 4}, format="json")
    assert response.status_code == 200, response.content
    assert shop.stock() == 3  # not held yet
    assert patch(anon, body["id"], {}).status_code == 200
    assert shop.stock() == 1
    anon.delete(f"{CART}/items/{line['id']}")
    assert patch(anon, body["id"], {}).status_code == 200
    assert shop.stock() == 5
    reasons = list(
        StockMovement.objects.filter(product=shop.lamp, reference_type="cart")
        .order_by("id")
        .values_list("reason", "quantity")
    )
    assert reasons == [
        ("checkout_hold", -2),
        ("checkout_hold", -2),
        ("checkout_hold_released", 4),
    ]
    assert Cart.objects.get().stock_held is False


def test_the_hold_of_the_own_cart_counts_when_raising_a_quantity(anon, shop):
    started(anon, shop, lamps=4, mugs=0)
    line = cart_of(anon)["items"][0]
    assert line["max_quantity"] == 5
    response = anon.patch(f"{CART}/items/{line['id']}", {"quantity": 5}, format="json")
    assert response.status_code == 200, response.content
    error(
        anon.patch(f"{CART}/items/{line['id']}", {"quantity": 6}, format="json"),
        400,
        "insufficient_stock",
    )


def test_a_placed_checkout_cannot_change(anon, shop):
    body = started(anon, shop)
    assert complete(anon, body["id"]).status_code == 200
    error(patch(anon, body["id"], {"email": "late@example.com"}), 409, "checkout_not_editable")
    error(anon.post(f"{CHECKOUT}/{body['id']}/validate"), 409, "checkout_not_editable")
    assert Checkout.objects.get().email == "ana@example.com"
