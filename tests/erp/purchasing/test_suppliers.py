"""/suppliers, /suppliers/{id}, /suppliers/{id}/prices, /supplier-prices."""

from __future__ import annotations

import pytest

from erp.purchasing.models import Supplier, SupplierPrice
from tests.accounts.factories import UserFactory
from tests.erp.purchasing.conftest import (
    BASE,
    make_order,
    make_price,
    make_supplier,
    product,
)
from tests.fixtures.store import error, grant
from tests.store.catalog.factories import AttributeFactory, TermFactory, make_variant

pytestmark = pytest.mark.django_db

ACME = {
    "name": "Acme Supplies",
    "vat_number": "DE 136 695 976",
    "email": "orders@acme.example",
    "phone": "+49 30 1234",
    "address_1": "Hauptstr. 1",
    "city": "Berlin",
    "postcode": "10115",
    "country": "de",
    "currency": "eur",
    "payment_terms_days": 45,
    "lead_time_days": 10,
}


def test_create_read_update_and_list_suppliers(buyer_client):
    response = buyer_client.post(f"{BASE}/suppliers", ACME, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert {k: body[k] for k in ("code", "vat_number", "country", "currency", "active")} == {
        "code": "acme-supplies",
        "vat_number": "DE136695976",
        "country": "DE",
        "currency": "EUR",
        "active": True,
    }
    assert (body["payment_terms_days"], body["lead_time_days"], body["price_count"]) == (45, 10, 0)
    url = f"{BASE}/suppliers/{body['id']}"
    assert buyer_client.get(url).json() == body
    patched = buyer_client.patch(url, {"active": False, "phone": "1"}, format="json").json()
    assert (patched["active"], patched["phone"], patched["name"]) == (False, "1", "Acme Supplies")
    assert buyer_client.put(url, {"active": True}, format="json").json()["active"] is True
    make_supplier(name="Globex", email="", is_active=False)
    listing = buyer_client.get(f"{BASE}/suppliers").json()
    assert [s["name"] for s in listing["suppliers"]] == ["Acme Supplies", "Globex"]
    assert (listing["total"], listing["page"], listing["per_page"], listing["total_pages"]) == (
        2,
        1,
        20,
        1,
    )
    active = buyer_client.get(f"{BASE}/suppliers", {"active": "false"}).json()
    assert [s["name"] for s in active["suppliers"]] == ["Globex"]
    found = buyer_client.get(f"{BASE}/suppliers", {"search": "136695"}).json()
    assert [s["name"] for s in found["suppliers"]] == ["Acme Supplies"]


def test_currency_defaults_to_the_store_and_codes_are_unique(buyer_client):
    first = buyer_client.post(f"{BASE}/suppliers", {"name": "Initech"}, format="json").json()
    second = buyer_client.post(f"{BASE}/suppliers", {"name": "Initech"}, format="json").json()
    assert (first["currency"], first["code"], second["code"]) == ("EUR", "initech", "initech-2")
    body = error(
        buyer_client.post(f"{BASE}/suppliers", {"name": "X", "code": "initech"}, format="json"),
        400,
        "invalid_param",
    )
    assert "code" in body["data"]["params"]


@pytest.mark.parametrize(
    ("vat", "country", "ok"),
    [
        ("DE136695976", "", True),
        ("EL094259216", "", True),
        ("094259216", "GR", True),
        ("DE136695977", "", False),  # check digit
        ("12345", "US", False),
        ("not a number", "", False),
    ],
)
def test_vat_numbers_are_checked_with_stdnum(buyer_client, vat, country, ok):
    body = {"name": "Vat Co", "vat_number": vat}
    if country:
        body["country"] = country
    response = buyer_client.post(f"{BASE}/suppliers", body, format="json")
    if ok:
        assert response.status_code == 201, response.content
    else:
        assert "vat_number" in error(response, 400, "invalid_param")["data"]["params"]
        assert not Supplier.objects.exists()


def test_delete_a_supplier_without_orders_but_not_one_with_orders(buyer_client):
    lone = make_supplier(name="Lone")
    item = product()
    make_price(lone, item)
    assert buyer_client.delete(f"{BASE}/suppliers/{lone.pk}").status_code == 204
    assert not SupplierPrice.objects.exists()
    used = make_supplier(name="Used")
    make_order(used, (item, 1, "1.00"))
    body = error(buyer_client.delete(f"{BASE}/suppliers/{used.pk}"), 409, "supplier_in_use")
    assert "deactivate" in body["message"]
    assert Supplier.objects.filter(pk=used.pk).exists()
    error(buyer_client.get(f"{BASE}/suppliers/999999"), 404, "supplier_not_found")


def test_supplier_prices_per_supplier_and_across_suppliers(buyer_client):
    acme, globex = make_supplier(name="Acme"), make_supplier(name="Globex", currency="USD")
    item, other = product("Widget"), product("Gadget")
    url = f"{BASE}/suppliers/{acme.pk}/prices"
    response = buyer_client.post(
        url,
        {
            "product_id": item.pk,
            "supplier_sku": "AC-W",
            "unit_price": "2.125",
            "min_quantity": 10,
            "lead_time_days": 3,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    price = response.json()
    assert {k: price[k] for k in ("unit_price", "currency", "sku", "min_quantity")} == {
        "unit_price": "2.1250",
        "currency": "EUR",
        "sku": "WIDGET",
        "min_quantity": 10,
    }
    assert price["supplier"] == {"id": acme.pk, "name": "Acme", "code": "acme"}
    # the same item, currency and minimum again: refused
    error(
        buyer_client.post(
            url, {"product_id": item.pk, "unit_price": 1, "min_quantity": 10}, format="json"
        ),
        400,
        "duplicate_supplier_price",
    )
    make_price(globex, item, "1.90")
    make_price(acme, other, "7")
    assert buyer_client.get(url).json()["total"] == 2
    across = buyer_client.get(f"{BASE}/supplier-prices", {"product_id": item.pk}).json()
    assert [(p["supplier"]["name"], p["unit_price"], p["currency"]) for p in across["prices"]] == [
        ("Globex", "1.9000", "USD"),
        ("Acme", "2.1250", "EUR"),
    ]
    one = f"{BASE}/supplier-prices/{price['id']}"
    patched = buyer_client.patch(one, {"unit_price": 2, "min_quantity": 5}, format="json").json()
    assert (patched["unit_price"], patched["min_quantity"]) == ("2.0000", 5)
    assert buyer_client.delete(one).status_code == 204
    error(buyer_client.get(one), 404, "supplier_price_not_found")


def test_prices_of_variants_and_items_that_do_not_fit(buyer_client):
    acme = make_supplier()
    colour = AttributeFactory(name="Colour")
    shirt = product("Shirt", type="variable", attributes=[])
    red = make_variant(shirt, TermFactory(attribute=colour, name="Red"), sku="SHIRT-RED")
    url = f"{BASE}/suppliers/{acme.pk}/prices"
    created = buyer_client.post(
        url, {"product_id": shirt.pk, "variant_id": red.pk, "unit_price": 4}, format="json"
    )
    assert created.status_code == 201, created.content
    assert created.json()["sku"] == "SHIRT-RED"
    params = error(
        buyer_client.post(url, {"product_id": shirt.pk, "variant_id": 999999, "unit_price": 4}),
        400,
    )["data"]["params"]
    assert "variant_id" in params
    error(buyer_client.post(url, {"product_id": 999999, "unit_price": 4}), 400, "invalid_param")
    error(
        buyer_client.post(
            f"{BASE}/suppliers/999999/prices", {"product_id": shirt.pk, "unit_price": 1}
        ),
        404,
        "supplier_not_found",
    )


def test_without_the_erp_or_the_capability_nothing_answers(store_client, buyer, erp_on):
    stranger = store_client(UserFactory())
    error(stranger.get(f"{BASE}/suppliers"), 403, "insufficient_capability")
    other = store_client(grant(UserFactory(), "ec_manage_inventory"))
    error(other.post(f"{BASE}/suppliers", {"name": "X"}, format="json"), 403)
    assert not Supplier.objects.exists()


def test_403_erp_not_active_without_the_erp(store_client, buyer):
    client = store_client(buyer)
    error(client.get(f"{BASE}/suppliers"), 403, "erp_not_active")
    error(client.post(f"{BASE}/suppliers", {"name": "X"}, format="json"), 403, "erp_not_active")
    error(client.post(f"{BASE}/purchase-orders/auto-reorder"), 403, "erp_not_active")
    assert not Supplier.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {"name": "A\x00B"},
        {"name": ["A"]},
        {"name": {"x": 1}},
        {"name": "A", "payment_terms_days": 10**30},
        {"name": "A", "lead_time_days": -1},
        {"name": "A", "currency": "XXZ"},
        {"name": "A", "email": "not-an-address"},
        {"name": "A" * 201},
        {"name": "A", "active": "yes"},
    ],
)
def test_hostile_supplier_bodies_are_refused(buyer_client, body):
    error(buyer_client.post(f"{BASE}/suppliers", body, format="json"), 400)
    assert not Supplier.objects.exists()


def test_hostile_raw_bodies(buyer_client):
    deep = "[" * 5000 + "]" * 5000
    for raw in (deep, "[1, 2]", '"text"', "{", '{"name": "\\ud800"}', '{"name": "a\\u0000"}'):
        response = buyer_client.post(f"{BASE}/suppliers", raw, content_type="application/json")
        assert response.status_code == 400, (raw[:10], response.content)
    assert not Supplier.objects.exists()
    response = buyer_client.get(f"{BASE}/suppliers", {"page": "99999999999999999999"})
    error(response, 400, "invalid_param")


def test_supplier_list_queries_do_not_grow_with_rows(buyer_client, django_assert_max_num_queries):
    for index in range(3):
        make_price(make_supplier(name=f"S{index}"), product(f"P{index}"))
    with django_assert_max_num_queries(12) as few:
        buyer_client.get(f"{BASE}/suppliers")
    baseline = len(few.captured_queries)
    for index in range(3, 15):
        make_price(make_supplier(name=f"S{index}"), product(f"P{index}"))
    with django_assert_max_num_queries(baseline):
        assert buyer_client.get(f"{BASE}/suppliers").json()["total"] == 15
    with django_assert_max_num_queries(baseline):
        assert buyer_client.get(f"{BASE}/supplier-prices").json()["total"] == 15


def test_a_misspelt_key_is_refused_by_name_and_changes_nothing(buyer_client):
    refused = error(
        buyer_client.post(f"{BASE}/suppliers", {**ACME, "vat_numbr": "X"}, format="json"), 400
    )
    assert set(refused["data"]["params"]) == {"vat_numbr"}
    assert not Supplier.objects.exists()
    supplier = buyer_client.post(f"{BASE}/suppliers", ACME, format="json").json()
    url = f"{BASE}/suppliers/{supplier['id']}"
    refused = error(buyer_client.patch(url, {"activ": False}, format="json"), 400)
    assert set(refused["data"]["params"]) == {"activ"}
    assert Supplier.objects.get().is_active is True
