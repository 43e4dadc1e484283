"""The order's VAT number and EU B2B reverse charge: POST /orders by staff, shown to staff and
to the customer (GET /account/orders/{id})."""

import pytest

from store.customers import services as customer_services
from store.orders.models import Order
from store.settings import services as settings_services
from tests.fixtures.store import API, error
from tests.store.orders.factories import line, stocked

pytestmark = pytest.mark.django_db

ORDERS = f"{API}/orders"
DE_VAT = "DE136695976"  # valid per python-stdnum; the store's country is GR
GR_VAT = "EL094259216"


def reverse_charge_on() -> None:
    settings_services.settings_update(section="tax", values={"eu_reverse_charge": True})


def create(client, **body):
    lamp = stocked(title="Lamp", price="10.00")
    payload = {
        "items": [line(lamp, 2, tax="4.80")],
        "shipping_total": "5.00",
        "shipping_tax": "1.20",
        **body,
    }
    return client.post(ORDERS, payload, format="json")


def test_an_order_without_a_vat_number(manager_client):
    body = create(manager_client).json()
    assert (body["vat_number"], body["reverse_charge"]) == ("", False)
    assert (body["tax_total"], body["total"]) == ("6.00", "31.00")


def test_a_vat_number_under_the_reverse_charge_takes_the_tax_off(manager_client):
    reverse_charge_on()
    response = create(manager_client, vat_number="de 136 695 976")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["vat_number"], body["reverse_charge"]) == (DE_VAT, True)
    assert (body["items"][0]["tax"], body["shipping_tax"], body["tax_total"]) == (
        "0.00",
        "0.00",
        "0.00",
    )
    assert body["total"] == "25.00"
    order = Order.objects.get()
    # Later edits follow the order's reverse charge too.
    item_id = body["items"][0]["id"]
    changed = manager_client.patch(
        f"{ORDERS}/{order.pk}/items/{item_id}", {"tax": "3.00"}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["tax"] == "0.00"
    patched = manager_client.patch(f"{ORDERS}/{order.pk}", {"shipping_tax": "2.00"}, format="json")
    assert patched.json()["shipping_tax"] == "0.00"


def test_a_vat_number_is_only_recorded_where_the_reverse_charge_does_not_apply(manager_client):
    body = create(manager_client, vat_number=DE_VAT).json()  # the setting is off
    assert (body["vat_number"], body["reverse_charge"], body["tax_total"]) == (
        DE_VAT,
        False,
        "6.00",
    )
    reverse_charge_on()
    body = create(manager_client, vat_number=GR_VAT).json()  # the store's own country
    assert (body["vat_number"], body["reverse_charge"], body["tax_total"]) == (
        GR_VAT,
        False,
        "6.00",
    )


@pytest.mark.parametrize("number", ["DE1", "DE136695977", "XX123", "D" * 33, 12, ["DE"]])
def test_an_invalid_vat_number_is_refused(manager_client, number):
    body = error(create(manager_client, vat_number=number), 400)
    assert "vat_number" in body["data"]["params"]
    assert not Order.objects.exists()


@pytest.mark.parametrize("raw", ['"DE\\u0000136695976"', '"\\ud800"'])
def test_hostile_vat_numbers_are_a_400(manager_client, raw):
    lamp = stocked(title="Lamp")
    body = f'{{"items": [{{"product_id": {lamp.pk}}}], "vat_number": {raw}}}'
    response = manager_client.post(ORDERS, body, content_type="application/json")
    error(response, 400)
    assert not Order.objects.exists()


def test_a_bad_vat_number_is_named_with_the_other_problems(manager_client):
    body = error(
        create(manager_client, vat_number="DE1", customer_id=999999), 400, "invalid_vat_number"
    )
    assert {"vat_number", "customer_id"} <= set(body["data"]["params"])


def test_the_customer_sees_the_vat_number_of_the_order(manager_client, customer_client, customer):
    reverse_charge_on()
    me = customer_services.customer_for_user(user=customer)
    order = create(manager_client, vat_number=DE_VAT, customer_id=me.pk).json()
    body = customer_client.get(f"{API}/account/orders/{order['id']}").json()
    assert (body["vat_number"], body["reverse_charge"]) == (DE_VAT, True)
