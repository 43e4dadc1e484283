"""The VAT number and the EU B2B reverse charge shown by the cart and the checkout, kept on
the order the checkout places, and kept when a guest cart is merged on login."""

import pytest
from rest_framework.test import APIClient

from store.cart.models import Cart
from store.orders.models import Order
from store.settings import services as settings_services
from tests.fixtures.store import API, basic_auth
from tests.store.cart.helpers import CART, add, cart_of
from tests.store.checkout.helpers import ADDRESS, CHECKOUT, complete, start, started
from tests.store.shipping.factories import make_method, make_zone
from tests.store.tax.factories import make_rate

pytestmark = pytest.mark.django_db

DE_VAT = "DE136695976"  # valid per python-stdnum, another member state than the store's GR
BERLIN = {**ADDRESS, "country": "DE", "region": "", "postcode": "10115", "city": "Berlin"}


@pytest.fixture
def germany(shop):
    settings_services.settings_update(section="tax", values={"eu_reverse_charge": True})
    make_rate("19", country="DE", name="MwSt")
    make_method(make_zone("Germany", countries=["DE"]), "flat_rate", "Courier DE", cost="5.00")


def test_the_cart_and_the_checkout_show_the_number_and_the_reverse_charge(anon, shop, germany):
    add(anon, shop.lamp.pk, 1)
    cart = cart_of(anon)
    assert (cart["vat_number"], cart["reverse_charge"]) == ("", False)
    body = start(anon, billing_address=BERLIN, vat_number="de 136 695 976").json()
    assert (body["vat_number"], body["reverse_charge"]) == (DE_VAT, True)
    assert (body["cart"]["vat_number"], body["cart"]["reverse_charge"]) == (DE_VAT, True)
    assert body["cart"]["tax"] == "0.00"
    cart = cart_of(anon)
    assert (cart["vat_number"], cart["reverse_charge"], cart["tax"]) == (DE_VAT, True, "0.00")
    summary = anon.get(f"{CART}/summary").json()["cart"]
    assert (summary["vat_number"], summary["reverse_charge"]) == (DE_VAT, True)
    # The setting off: the number stays, the tax comes back.
    settings_services.settings_update(section="tax", values={"eu_reverse_charge": False})
    cart = cart_of(anon)
    assert (cart["vat_number"], cart["reverse_charge"]) == (DE_VAT, False)
    assert cart["tax"] != "0.00"


def test_the_order_records_the_number_and_the_reverse_charge(anon, shop, germany, manager_client):
    body = started(anon, shop, billing_address=BERLIN, vat_number=DE_VAT)
    response = complete(anon, body["id"])
    assert response.status_code == 200, response.content
    order = Order.objects.get()
    assert (order.vat_number, order.reverse_charge, order.tax_total) == (DE_VAT, True, 0)
    staff = manager_client.get(f"{API}/orders/{order.pk}").json()
    assert (staff["vat_number"], staff["reverse_charge"]) == (DE_VAT, True)
    again = anon.get(f"{CHECKOUT}/{body['id']}").json()  # the order's, once placed
    assert (again["cart"], again["vat_number"], again["reverse_charge"]) == (None, DE_VAT, True)


def test_an_order_without_the_reverse_charge_keeps_the_number(anon, shop, germany):
    settings_services.settings_update(section="tax", values={"eu_reverse_charge": False})
    body = started(anon, shop, billing_address=BERLIN, vat_number=DE_VAT)
    assert body["reverse_charge"] is False
    assert complete(anon, body["id"]).status_code == 200
    order = Order.objects.get()
    assert (order.vat_number, order.reverse_charge) == (DE_VAT, False)
    assert order.tax_total > 0


def test_a_merged_guest_cart_keeps_its_vat_number(store_client, customer, shop, germany):
    account = store_client(customer)
    add(account, shop.mug.pk, 1)
    guest = APIClient()
    started(guest, shop, lamps=1, mugs=0, billing_address=BERLIN, vat_number=DE_VAT)
    # The same browser logs in: its guest cart joins the account's.
    guest.credentials(HTTP_AUTHORIZATION=basic_auth(customer))
    cart = cart_of(guest)
    assert {i["title"] for i in cart["items"]} == {"Lamp", "Mug"}
    assert (cart["vat_number"], cart["reverse_charge"]) == (DE_VAT, True)
    assert Cart.objects.get().vat_number == DE_VAT


def test_a_merge_without_a_guest_number_keeps_the_accounts(store_client, customer, shop, germany):
    Cart.objects.create(token="t" * 43, user=customer, vat_number=DE_VAT)
    account = store_client(customer)
    add(account, shop.mug.pk, 1)
    guest = APIClient()
    add(guest, shop.lamp.pk, 1)
    guest.credentials(HTTP_AUTHORIZATION=basic_auth(customer))
    assert cart_of(guest)["vat_number"] == DE_VAT
