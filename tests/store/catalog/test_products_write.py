"""Single reads, create, update, delete and duplicate."""

import pytest

from common.errors import ServiceError
from store.catalog.models import Product, ProductImage, Variant
from store.catalog.services import products as product_services
from store.inventory import services as inventory
from tests.fixtures.store import API, error
from tests.store.catalog.factories import (
    AttributeFactory,
    BrandFactory,
    CategoryFactory,
    TermFactory,
    add_gallery,
    make_product,
    make_variant,
)
from tests.store.media.factories import media_row

pytestmark = pytest.mark.django_db

EAN13 = "4006381333931"  # a valid EAN-13
EAN8 = "96385074"


def test_create_with_the_defaults(manager_client):
    response = manager_client.post(f"{API}/products", {"title": "Desk lamp"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["type"] == "simple"
    assert body["status"] == "draft"
    assert body["product_condition"] == "new"
    assert body["slug"] == "desk-lamp"
    assert body["price"] is None
    assert body["stock_status"] == "in_stock"
    assert body["track_inventory"] is False
    assert Product.objects.get(pk=body["id"]).title == "Desk lamp"


def test_create_with_every_field(manager_client):
    category = CategoryFactory()
    brand = BrandFactory()
    colour = AttributeFactory()
    red = TermFactory(attribute=colour)
    featured, side = media_row(), media_row()
    payload = {
        "title": "Lamp",
        "type": "simple",
        "status": "active",
        "sku": "LAMP-1",
        "ean": EAN13,
        "mpn": "MPN-9",
        "brand": brand.pk,
        "product_condition": "refurbished",
        "short_description": "Bright.",
        "description": "<p>Very bright.</p>",
        "regular_price": 49.9,
        "sale_price": "39.90",
        "stock_quantity": 7,
        "track_inventory": True,
        "low_stock_threshold": 3,
        "category_ids": [category.pk],
        "featured_image_id": featured.pk,
        "gallery_image_ids": [side.pk],
        "weight": 1.25,
        "length": "30",
        "width": 20,
        "height": 10.5,
        "attributes": [{"attribute_id": colour.pk, "term_ids": [red.pk]}],
    }
    body = manager_client.post(f"{API}/products", payload, format="json").json()
    assert body["sku"] == "LAMP-1"
    assert body["ean"] == EAN13
    assert body["mpn"] == "MPN-9"
    assert body["brand"] == {"id": brand.pk, "name": brand.name, "slug": brand.slug}
    assert body["product_condition"] == "refurbished"
    assert (body["regular_price"], body["sale_price"], body["price"]) == ("49.90", "39.90", "39.90")
    assert body["on_sale"] is True
    assert (body["stock_quantity"], body["stock_status"], body["low_stock_threshold"]) == (
        7,
        "in_stock",
        3,
    )
    assert body["category_ids"] == [category.pk]
    assert body["featured_image_id"] == featured.pk
    assert body["gallery_image_ids"] == [side.pk]
    assert (body["weight"], body["length"], body["width"], body["height"]) == (
        "1.250",
        "30.000",
        "20.000",
        "10.500",
    )
    assert body["attributes"] == [
        {
            "id": colour.pk,
            "name": colour.name,
            "slug": colour.slug,
            "type": "select",
            "terms": [{"id": red.pk, "name": red.name, "slug": red.slug, "value": ""}],
        }
    ]


def test_price_is_the_regular_price_and_stock_quantity_turns_tracking_on(manager_client):
    body = manager_client.post(
        f"{API}/products", {"title": "Mug", "price": 9.5, "stock_quantity": 0}, format="json"
    ).json()
    assert body["regular_price"] == body["price"] == "9.50"
    assert body["track_inventory"] is True
    assert body["stock_status"] == "out_of_stock"


@pytest.mark.parametrize(
    "sent",
    [
        {},
        {"track_inventory": True},
        {"track_inventory": True, "allow_backorders": True},
        {"stock_status": "out_of_stock"},
        {"stock_status": "on_backorder", "allow_backorders": True},
    ],
)
def test_a_product_created_without_a_quantity_has_the_stock_fields_the_inventory_computes(
    manager_client, sent
):
    """Created with nothing to put in stock, a product's stock fields are set without asking
    the inventory: they are the ones its recount gives (no levels, no variants yet)."""
    body = manager_client.post(f"{API}/products", {"title": "Mug", **sent}, format="json").json()
    created = (body["stock_quantity"], body["stock_status"])
    product = Product.objects.get(pk=body["id"])
    assert (product.stock_quantity, product.stock_status) == created
    recounted = inventory.stock_fields_refresh(product_ids=[product.pk])
    assert recounted.products[product.pk] == created
    product.refresh_from_db()
    assert (product.stock_quantity, product.stock_status) == created


def test_an_unknown_stock_status_is_refused_and_creates_nothing(manager_client):
    """Over the API and at the service (what the admin and the commands call), a stock status
    that is not one is refused before anything is written."""
    sent = {"title": "Mug", "stock_status": "plenty"}
    error(manager_client.post(f"{API}/products", sent, format="json"), 400, "invalid_param")
    with pytest.raises(ServiceError) as refused:
        product_services.product_create(fields=sent)
    assert refused.value.code == "invalid_param"
    assert "stock_status" in str(refused.value.detail)
    assert not Product.objects.exists()


def test_the_brand_may_be_given_by_slug(manager_client):
    brand = BrandFactory(slug="lumen")
    body = manager_client.post(
        f"{API}/products", {"title": "Lamp", "brand": "lumen"}, format="json"
    ).json()
    assert body["brand"]["id"] == brand.pk


@pytest.mark.parametrize(
    ("payload", "params"),
    [
        ({}, {"title"}),
        ({"title": "  "}, {"title"}),
        ({"title": "X", "type": "bundle"}, {"type"}),
        ({"title": "X", "status": "live"}, {"status"}),
        ({"title": "X", "regular_price": -1}, {"regular_price"}),
        ({"title": "X", "regular_price": "1.999"}, {"regular_price"}),
        ({"title": "X", "regular_price": True}, {"regular_price"}),
        ({"title": "X", "stock_quantity": 2.5}, {"stock_quantity"}),
        ({"title": "X", "stock_quantity": "many"}, {"stock_quantity"}),
        ({"title": "X", "category_ids": [999]}, {"category_ids"}),
        ({"title": "X", "category_ids": "1"}, {"category_ids"}),
        ({"title": "X", "featured_image_id": 999}, {"featured_image_id"}),
        ({"title": "X", "gallery_image_ids": [999]}, {"gallery_image_ids"}),
        ({"title": "X", "brand": 999}, {"brand"}),
        ({"title": "X", "brand": "nobody"}, {"brand"}),
        ({"title": "X", "weight": -2}, {"weight"}),
        ({"title": "X", "product_condition": "broken"}, {"product_condition"}),
        ({"title": "X", "regular_price": 10, "sale_price": 10}, {"sale_price"}),
        ({"title": "X", "sale_price": 5}, {"sale_price"}),
        ({"title": "X", "stock_quantity": 3, "stock_status": "out_of_stock"}, {"stock_status"}),
        (
            {"title": "X", "attributes": [{"attribute_id": 999, "term_ids": [1]}]},
            {"attributes.0.attribute_id"},
        ),
        (
            {"title": "X", "category_ids": [999], "brand": 999, "sale_price": 1},
            {"category_ids", "brand", "sale_price"},
        ),
    ],
)
def test_invalid_creates_are_400_naming_the_fields_and_create_nothing(
    manager_client, payload, params
):
    body = error(manager_client.post(f"{API}/products", payload, format="json"), 400)
    assert set(body["data"]["params"]) == params
    assert not Product.objects.exists()


def test_a_term_of_another_attribute_is_refused(manager_client):
    colour, size = AttributeFactory(), AttributeFactory()
    large = TermFactory(attribute=size)
    body = error(
        manager_client.post(
            f"{API}/products",
            {"title": "X", "attributes": [{"attribute_id": colour.pk, "term_ids": [large.pk]}]},
            format="json",
        ),
        400,
    )
    assert "attributes.0.term_ids" in body["data"]["params"]


def test_skus_are_unique_across_products_and_variants(manager_client):
    make_product(title="A", sku="SKU-1")
    colour = AttributeFactory()
    shirt = make_product(title="Shirt", type="variable")
    make_variant(shirt, TermFactory(attribute=colour), sku="VAR-1")
    for sku in ("SKU-1", "VAR-1"):
        body = error(
            manager_client.post(f"{API}/products", {"title": "B", "sku": sku}, format="json"),
            400,
            "duplicate_sku",
        )
        assert set(body["data"]["params"]) == {"sku"}
    assert Product.objects.count() == 2


@pytest.mark.parametrize(
    ("ean", "code"),
    [
        ("4006381333932", "invalid_barcode"),
        ("12345", "invalid_barcode"),
        ("40063813339X1", "invalid_barcode"),
    ],
)
def test_the_ean_check_digit_is_validated(manager_client, ean, code):
    error(
        manager_client.post(f"{API}/products", {"title": "X", "ean": ean}, format="json"), 400, code
    )


@pytest.mark.parametrize("ean", [EAN13, EAN8, "036000291452", "14006381333938"])
def test_valid_barcodes_of_every_length(manager_client, ean):
    assert (
        manager_client.post(
            f"{API}/products", {"title": "X", "ean": ean}, format="json"
        ).status_code
        == 201
    )


def test_a_barcode_names_one_item(manager_client):
    make_product(title="A", ean=EAN13)
    error(
        manager_client.post(f"{API}/products", {"title": "B", "ean": EAN13}, format="json"),
        400,
        "duplicate_barcode",
    )


def test_slugs_are_unique(manager_client):
    make_product(title="Lamp")
    body = manager_client.post(f"{API}/products", {"title": "Lamp"}, format="json").json()
    assert body["slug"] == "lamp-2"
    error(
        manager_client.post(f"{API}/products", {"title": "Other", "slug": "lamp"}, format="json"),
        400,
        "duplicate_slug",
    )
    greek = manager_client.post(
        f"{API}/products", {"title": "Λάμπα γραφείου"}, format="json"
    ).json()
    assert greek["slug"] == "λάμπα-γραφείου"


def test_read_by_id_and_slug(anon):
    product = make_product(title="Desk lamp")
    by_id = anon.get(f"{API}/products/{product.pk}")
    by_slug = anon.get(f"{API}/products/slug/desk-lamp")
    assert by_id.status_code == by_slug.status_code == 200
    assert by_id.json() == by_slug.json()
    assert "data" not in by_id.json()  # no wrapper
    error(anon.get(f"{API}/products/slug/nothing"), 404, "product_not_found")


def test_drafts_are_hidden_from_the_public_but_not_from_managers(anon, manager_client):
    draft = make_product(title="Secret", status="draft")
    error(anon.get(f"{API}/products/{draft.pk}"), 404, "product_not_found")
    error(anon.get(f"{API}/products/slug/secret"), 404, "product_not_found")
    assert manager_client.get(f"{API}/products/{draft.pk}").json()["status"] == "draft"


def test_a_variable_product_shows_its_enabled_variants_and_price_range(anon):
    colour = AttributeFactory(slug="color")
    red, blue, green = (TermFactory(attribute=colour) for _ in range(3))
    shirt = make_product(title="Shirt", type="variable", regular_price="99.00")
    make_variant(shirt, red, regular_price="10.00", stock_quantity=0)
    make_variant(shirt, blue, regular_price="25.00", sale_price="20.00", stock_quantity=4)
    make_variant(shirt, green, regular_price="5.00", enabled=False)
    body = anon.get(f"{API}/products/{shirt.pk}").json()
    assert [v["price"] for v in body["variants"]] == ["10.00", "20.00"]
    assert (body["min_price"], body["max_price"], body["price"]) == ("10.00", "20.00", "10.00")
    assert body["on_sale"] is True
    assert body["stock_status"] == "in_stock"
    assert body["stock_quantity"] == 4


def test_update_is_partial(manager_client):
    product = make_product(title="Lamp", sku="L-1", regular_price="10.00", description="Old")
    for method in ("patch", "put"):
        response = getattr(manager_client, method)(
            f"{API}/products/{product.pk}", {"regular_price": "12.00"}, format="json"
        )
        assert response.status_code == 200, response.content
    body = response.json()
    assert (body["title"], body["sku"], body["description"]) == ("Lamp", "L-1", "Old")
    assert body["price"] == "12.00"


def test_update_relations_and_clear_them(manager_client):
    category = CategoryFactory()
    image = media_row()
    product = make_product(
        title="Lamp",
        category_ids=[category.pk],
        featured_image_id=image.pk,
        gallery_image_ids=[image.pk],
        brand=BrandFactory().pk,
    )
    body = manager_client.patch(
        f"{API}/products/{product.pk}",
        {"category_ids": [], "featured_image_id": None, "gallery_image_ids": [], "brand": None},
        format="json",
    ).json()
    assert (
        body["category_ids"],
        body["featured_image"],
        body["gallery_images"],
        body["brand"],
    ) == ([], None, [], None)


def test_update_ends_a_sale(manager_client):
    product = make_product(title="Lamp", regular_price="10.00", sale_price="8.00")
    body = manager_client.patch(
        f"{API}/products/{product.pk}", {"sale_price": None}, format="json"
    ).json()
    assert (body["price"], body["on_sale"]) == ("10.00", False)


def test_stock_status_by_hand_without_tracking(manager_client):
    product = make_product(title="Lamp")
    body = manager_client.patch(
        f"{API}/products/{product.pk}", {"stock_status": "out_of_stock"}, format="json"
    ).json()
    assert body["stock_status"] == "out_of_stock"
    body = manager_client.patch(
        f"{API}/products/{product.pk}",
        {"track_inventory": True, "stock_quantity": 2},
        format="json",
    ).json()
    assert body["stock_status"] == "in_stock"


def test_a_refused_update_changes_nothing(manager_client):
    make_product(title="Other", sku="TAKEN")
    product = make_product(title="Lamp", sku="L-1")
    error(
        manager_client.patch(
            f"{API}/products/{product.pk}", {"title": "New", "sku": "TAKEN"}, format="json"
        ),
        400,
        "duplicate_sku",
    )
    product.refresh_from_db()
    assert (product.title, product.sku) == ("Lamp", "L-1")


def test_a_variable_product_with_variants_cannot_become_simple(manager_client):
    shirt = make_product(title="Shirt", type="variable")
    make_variant(shirt, TermFactory())
    error(
        manager_client.patch(f"{API}/products/{shirt.pk}", {"type": "simple"}, format="json"),
        400,
        "product_has_variants",
    )


def test_update_and_delete_of_a_missing_product_are_404(manager_client):
    error(
        manager_client.patch(f"{API}/products/999", {"title": "X"}, format="json"),
        404,
        "product_not_found",
    )
    error(manager_client.delete(f"{API}/products/999"), 404, "product_not_found")


def test_delete(manager_client, anon):
    shirt = make_product(title="Shirt", type="variable")
    make_variant(shirt, TermFactory())
    add_gallery(shirt, media_row())
    response = manager_client.delete(f"{API}/products/{shirt.pk}")
    assert response.status_code == 204
    assert response.content == b""
    assert not Product.objects.exists()
    assert not Variant.objects.exists()
    assert not ProductImage.objects.exists()
    error(anon.get(f"{API}/products/{shirt.pk}"), 404, "product_not_found")


def test_duplicate(manager_client):
    colour = AttributeFactory()
    red, blue = TermFactory(attribute=colour), TermFactory(attribute=colour)
    category = CategoryFactory()
    featured, side = media_row(), media_row()
    source = make_product(
        title="Shirt",
        type="variable",
        sku="SHIRT",
        ean=EAN13,
        category_ids=[category.pk],
        featured_image_id=featured.pk,
        gallery_image_ids=[side.pk],
        attributes=[{"attribute_id": colour.pk, "term_ids": [red.pk, blue.pk]}],
    )
    make_variant(source, red, sku="SHIRT-RED", barcode=EAN8, regular_price="10")
    response = manager_client.post(f"{API}/products/{source.pk}/duplicate")
    assert response.status_code == 201, response.content
    copy = response.json()
    assert copy["id"] != source.pk
    assert copy["status"] == "draft"
    assert copy["title"] == "Shirt (copy)"
    assert copy["slug"] == "shirt-copy"
    assert copy["sku"] == "SHIRT-copy"
    assert copy["ean"] == ""
    assert copy["category_ids"] == [category.pk]
    assert copy["featured_image_id"] == featured.pk
    assert copy["gallery_image_ids"] == [side.pk]
    assert {t["id"] for t in copy["attributes"][0]["terms"]} == {red.pk, blue.pk}
    assert [(v["sku"], v["barcode"], v["price"]) for v in copy["variants"]] == [
        ("SHIRT-RED-copy", "", "10.00")
    ]
    second = manager_client.post(f"{API}/products/{source.pk}/duplicate").json()
    assert (second["slug"], second["sku"]) == ("shirt-copy-2", "SHIRT-copy-2")
    source.refresh_from_db()
    assert (source.status, source.sku) == ("active", "SHIRT")


def test_duplicate_needs_the_capability_and_an_existing_product(
    anon, customer_client, manager_client
):
    product = make_product(title="Lamp")
    error(anon.post(f"{API}/products/{product.pk}/duplicate"), 401)
    error(customer_client.post(f"{API}/products/{product.pk}/duplicate"), 403)
    error(manager_client.post(f"{API}/products/999/duplicate"), 404, "product_not_found")
    assert Product.objects.count() == 1
