import pytest

from store.catalog.models import Product, Variant
from tests.fixtures.store import API, error
from tests.store.catalog.factories import AttributeFactory, TermFactory, make_product, make_variant

pytestmark = pytest.mark.django_db


@pytest.fixture
def shirt():
    return make_product(title="Shirt", type="variable", regular_price="20.00")


@pytest.fixture
def terms():
    colour, size = AttributeFactory(slug="color"), AttributeFactory(slug="size")
    return {
        "red": TermFactory(attribute=colour, slug="red", name="Red"),
        "blue": TermFactory(attribute=colour, slug="blue", name="Blue"),
        "s": TermFactory(attribute=size, slug="s", name="S"),
        "l": TermFactory(attribute=size, slug="l", name="L"),
    }


def combo(*terms):
    return [{"attribute_id": t.attribute_id, "term_id": t.pk} for t in terms]


def test_create_a_variant(manager_client, shirt, terms):
    response = manager_client.post(
        f"{API}/products/{shirt.pk}/variants",
        {"attributes": combo(terms["red"], terms["s"]), "sku": "SH-R-S", "stock_quantity": 3},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["product_id"] == shirt.pk
    assert body["title"] == "Shirt - Red, S"
    assert body["sku"] == "SH-R-S"
    assert body["price"] == body["regular_price"] == "20.00"  # the product's price by default
    assert (body["track_inventory"], body["stock_status"]) == (True, "in_stock")
    assert [(a["attribute_slug"], a["term_slug"]) for a in body["attributes"]] == [
        ("color", "red"),
        ("size", "s"),
    ]
    # The variant's terms become the product's attributes (filters find it).
    product = anon_read(manager_client, shirt.pk)
    assert {t["slug"] for a in product["attributes"] for t in a["terms"]} == {"red", "s"}


def anon_read(client, pk):
    return client.get(f"{API}/products/{pk}").json()


def test_only_variable_products_have_variants(manager_client, terms):
    plain = make_product(title="Plain")
    error(
        manager_client.post(
            f"{API}/products/{plain.pk}/variants",
            {"attributes": combo(terms["red"])},
            format="json",
        ),
        400,
        "not_variable_product",
    )
    assert not Variant.objects.exists()


def test_the_same_combination_twice_is_409(manager_client, shirt, terms):
    make_variant(shirt, terms["red"], terms["s"])
    error(
        manager_client.post(
            f"{API}/products/{shirt.pk}/variants",
            {"attributes": combo(terms["s"], terms["red"])},
            format="json",
        ),
        409,
        "variant_exists",
    )
    assert Variant.objects.count() == 1
    # Another product may have the same combination.
    other = make_product(title="Other", type="variable")
    assert (
        manager_client.post(
            f"{API}/products/{other.pk}/variants",
            {"attributes": combo(terms["red"], terms["s"])},
            format="json",
        ).status_code
        == 201
    )


@pytest.mark.parametrize(
    ("attributes", "param"),
    [
        ("mismatch", "attributes.0.term_id"),
        ("twice", "attributes.1.attribute_id"),
        ("unknown", "attributes.0.attribute_id"),
    ],
)
def test_bad_attribute_combinations(manager_client, shirt, terms, attributes, param):
    payload = {
        "mismatch": [{"attribute_id": terms["red"].attribute_id, "term_id": terms["s"].pk}],
        "twice": combo(terms["red"], terms["blue"]),
        "unknown": [{"attribute_id": 999, "term_id": terms["red"].pk}],
    }[attributes]
    body = error(
        manager_client.post(
            f"{API}/products/{shirt.pk}/variants", {"attributes": payload}, format="json"
        ),
        400,
    )
    assert param in body["data"]["params"]
    assert not Variant.objects.exists()


def test_variants_refresh_the_products_price_and_stock(manager_client, shirt, terms):
    a = make_variant(shirt, terms["red"], regular_price="10.00", stock_quantity=0)
    make_variant(shirt, terms["blue"], regular_price="30.00", stock_quantity=0)
    shirt.refresh_from_db()
    assert (str(shirt.min_price), str(shirt.max_price), shirt.stock_status) == (
        "10.00",
        "30.00",
        "out_of_stock",
    )
    manager_client.patch(
        f"{API}/variants/{a.pk}", {"stock_quantity": 5, "sale_price": "8.00"}, format="json"
    )
    shirt.refresh_from_db()
    assert (str(shirt.price), shirt.on_sale, shirt.stock_status, shirt.stock_quantity) == (
        "8.00",
        True,
        "in_stock",
        5,
    )
    manager_client.patch(f"{API}/variants/{a.pk}", {"enabled": False}, format="json")
    shirt.refresh_from_db()
    assert (str(shirt.min_price), shirt.stock_status) == ("30.00", "out_of_stock")


def test_list_variants_public_and_manager(anon, manager_client, shirt, terms):
    a = make_variant(shirt, terms["red"])
    b = make_variant(shirt, terms["blue"], enabled=False)
    assert [v["id"] for v in anon.get(f"{API}/products/{shirt.pk}/variants").json()["data"]] == [
        a.pk
    ]
    assert [
        v["id"] for v in manager_client.get(f"{API}/products/{shirt.pk}/variants").json()["data"]
    ] == [a.pk, b.pk]
    error(anon.get(f"{API}/products/999/variants"), 404, "product_not_found")


def test_read_a_variant(anon, manager_client, shirt, terms):
    a = make_variant(shirt, terms["red"])
    b = make_variant(shirt, terms["blue"], enabled=False)
    assert anon.get(f"{API}/variants/{a.pk}").json()["id"] == a.pk
    error(anon.get(f"{API}/variants/{b.pk}"), 404, "variant_not_found")
    assert manager_client.get(f"{API}/variants/{b.pk}").json()["enabled"] is False
    Product.objects.filter(pk=shirt.pk).update(status="draft")
    error(anon.get(f"{API}/variants/{a.pk}"), 404, "variant_not_found")


def test_update_a_variant(manager_client, shirt, terms):
    variant = make_variant(shirt, terms["red"], terms["s"], sku="A")
    body = manager_client.patch(
        f"{API}/variants/{variant.pk}",
        {"attributes": combo(terms["blue"], terms["l"]), "barcode": "96385074"},
        format="json",
    ).json()
    assert body["title"] == "Shirt - Blue, L"
    assert body["barcode"] == "96385074"
    assert body["sku"] == "A"
    assert (
        manager_client.put(
            f"{API}/variants/{variant.pk}", {"title": "Custom"}, format="json"
        ).json()["title"]
        == "Custom"
    )
    error(
        manager_client.patch(f"{API}/variants/999", {"sku": "x"}, format="json"),
        404,
        "variant_not_found",
    )


def test_variant_rules(manager_client, shirt, terms):
    variant = make_variant(shirt, terms["red"], regular_price="10.00")
    make_product(title="Lamp", sku="TAKEN")
    for payload, code in [
        ({"sale_price": "12.00"}, "invalid_param"),
        ({"sku": "TAKEN"}, "duplicate_sku"),
        ({"barcode": "96385075"}, "invalid_barcode"),
        ({"image_id": 999}, "invalid_param"),
        (
            {"stock_quantity": 2, "stock_status": "out_of_stock", "track_inventory": True},
            "invalid_param",
        ),
    ]:
        error(
            manager_client.patch(f"{API}/variants/{variant.pk}", payload, format="json"), 400, code
        )
    variant.refresh_from_db()
    assert (variant.sku, variant.barcode, str(variant.regular_price)) == ("", "", "10.00")


def test_delete_one_and_all(manager_client, shirt, terms):
    a = make_variant(shirt, terms["red"])
    make_variant(shirt, terms["blue"])
    assert manager_client.delete(f"{API}/variants/{a.pk}").status_code == 204
    assert list(Variant.objects.values_list("product_id", flat=True)) == [shirt.pk]
    body = manager_client.delete(f"{API}/products/{shirt.pk}/variants").json()
    assert body == {"success": True, "message": "1 variant(s) deleted.", "data": {"deleted": 1}}
    assert not Variant.objects.exists()
    error(manager_client.delete(f"{API}/variants/{a.pk}"), 404, "variant_not_found")


def test_reorder(manager_client, shirt, terms):
    a = make_variant(shirt, terms["red"])
    b = make_variant(shirt, terms["blue"])
    response = manager_client.post(
        f"{API}/products/{shirt.pk}/variants/reorder",
        {"order": [{"id": a.pk, "sort_order": 5}, {"id": b.pk, "sort_order": 1}]},
        format="json",
    )
    assert response.status_code == 200
    assert [(v["id"], v["sort_order"]) for v in response.json()["data"]] == [(b.pk, 1), (a.pk, 5)]


def test_reorder_refuses_foreign_or_repeated_ids_and_changes_nothing(manager_client, shirt, terms):
    a = make_variant(shirt, terms["red"])
    other = make_product(title="Other", type="variable")
    foreign = make_variant(other, terms["red"])
    for order in (
        [{"id": a.pk, "sort_order": 9}, {"id": foreign.pk, "sort_order": 1}],
        [{"id": a.pk, "sort_order": 9}, {"id": a.pk, "sort_order": 1}],
        [{"id": a.pk}],
        [],
    ):
        body = error(
            manager_client.post(
                f"{API}/products/{shirt.pk}/variants/reorder", {"order": order}, format="json"
            ),
            400,
        )
        assert any(p.startswith("order") for p in body["data"]["params"])
    a.refresh_from_db()
    foreign.refresh_from_db()
    assert (a.sort_order, foreign.sort_order) == (0, 0)


def test_variant_writes_need_the_capability(anon, customer_client, shirt, terms):
    variant = make_variant(shirt, terms["red"])
    for client, status in ((anon, 401), (customer_client, 403)):
        error(client.post(f"{API}/products/{shirt.pk}/variants", {}, format="json"), status)
        error(client.patch(f"{API}/variants/{variant.pk}", {"sku": "X"}, format="json"), status)
        error(client.delete(f"{API}/variants/{variant.pk}"), status)
        error(client.delete(f"{API}/products/{shirt.pk}/variants"), status)
        error(
            client.post(
                f"{API}/products/{shirt.pk}/variants/reorder", {"order": []}, format="json"
            ),
            status,
        )
    assert Variant.objects.count() == 1
