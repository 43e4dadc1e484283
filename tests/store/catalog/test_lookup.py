import pytest

from tests.fixtures.store import API, error
from tests.store.catalog.factories import TermFactory, make_product, make_variant

pytestmark = pytest.mark.django_db

EAN13 = "4006381333931"
VARIANT_EAN = "5901234123457"


def test_lookup_a_product_by_its_ean(manager_client):
    product = make_product(title="Lamp", ean=EAN13, stock_quantity=4)
    body = manager_client.get(f"{API}/products/lookup", {"barcode": EAN13}).json()
    assert body["match"] == "product"
    assert body["product"]["id"] == product.pk
    assert body["variant"] is None
    assert (body["warehouse_id"], body["stock_quantity"]) == (0, 4)


def test_lookup_a_variant_by_its_barcode(manager_client):
    shirt = make_product(title="Shirt", type="variable")
    variant = make_variant(shirt, TermFactory(), barcode=VARIANT_EAN, stock_quantity=6)
    body = manager_client.get(
        f"{API}/products/lookup", {"barcode": VARIANT_EAN, "warehouse_id": 0}
    ).json()
    assert body["match"] == "variant"
    assert body["product"]["id"] == shirt.pk
    assert body["variant"]["id"] == variant.pk
    assert body["stock_quantity"] == 6


def test_lookup_finds_drafts_too(manager_client):
    make_product(title="Lamp", ean=EAN13, status="draft")
    assert (
        manager_client.get(f"{API}/products/lookup", {"barcode": EAN13}).json()["match"]
        == "product"
    )


@pytest.mark.parametrize("barcode", ["4006381333932", "abc", "123"])
def test_a_bad_check_digit_or_format_is_400(manager_client, barcode):
    body = error(
        manager_client.get(f"{API}/products/lookup", {"barcode": barcode}), 400, "invalid_barcode"
    )
    assert set(body["data"]["params"]) == {"barcode"}


def test_an_unknown_barcode_is_404(manager_client):
    error(
        manager_client.get(f"{API}/products/lookup", {"barcode": EAN13}), 404, "product_not_found"
    )


def test_the_barcode_is_required(manager_client):
    body = error(manager_client.get(f"{API}/products/lookup"), 400, "invalid_param")
    assert set(body["data"]["params"]) == {"barcode"}


def test_other_warehouses_do_not_exist_yet(manager_client):
    make_product(title="Lamp", ean=EAN13)
    error(
        manager_client.get(f"{API}/products/lookup", {"barcode": EAN13, "warehouse_id": 3}),
        404,
        "warehouse_not_found",
    )
    error(manager_client.get(f"{API}/products/lookup", {"barcode": EAN13, "warehouse_id": -1}), 400)


def test_lookup_is_for_managers(anon, customer_client):
    make_product(title="Lamp", ean=EAN13)
    error(anon.get(f"{API}/products/lookup", {"barcode": EAN13}), 401)
    error(customer_client.get(f"{API}/products/lookup", {"barcode": EAN13}), 403)


def test_the_default_warehouse_answer_is_the_documented_one():
    """The answer names the default warehouse 0, which its schema allows."""
    from store.docs.schema import STORE, schema_document

    schema = schema_document(STORE)["components"]["schemas"]["Lookup"]["properties"]
    assert schema["warehouse_id"]["minimum"] == 0
