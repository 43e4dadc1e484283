"""GET /products: every parameter alone and combined, paging, order, the out-of-stock rule."""

from decimal import Decimal

import pytest

from store.settings import services as settings_services
from tests.fixtures.store import API, error
from tests.store.catalog.factories import (
    AttributeFactory,
    BrandFactory,
    CategoryFactory,
    TermFactory,
    make_product,
    make_variant,
)

pytestmark = pytest.mark.django_db


def titles(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [p["title"] for p in response.json()["data"]]


def listed(client, **params) -> list[str]:
    params.setdefault("orderby", "title")
    params.setdefault("order", "asc")
    return titles(client.get(f"{API}/products", params))


def test_the_answer_shape(anon):
    shoes = CategoryFactory(name="Shoes")
    product = make_product(
        title="Boot",
        sku="B-1",
        regular_price="80.00",
        sale_price="60.00",
        stock_quantity=3,
        category_ids=[shoes.pk],
    )
    body = anon.get(f"{API}/products").json()
    assert set(body) == {"data", "meta", "inventory_settings"}
    assert body["meta"] == {"page": 1, "per_page": 20, "total": 1, "total_pages": 1}
    assert body["inventory_settings"] == {
        "stock_display_format": "always",
        "low_stock_threshold": 2,
    }
    entry = body["data"][0]
    assert entry["id"] == product.pk
    assert entry["title"] == "Boot"
    assert entry["slug"] == "boot"
    assert entry["type"] == "simple"
    assert entry["status"] == "active"
    assert entry["sku"] == "B-1"
    assert entry["price"] == "60.00"
    assert entry["regular_price"] == "80.00"
    assert entry["sale_price"] == "60.00"
    assert entry["on_sale"] is True
    assert entry["stock_status"] == "in_stock"
    assert entry["stock_quantity"] == 3
    assert entry["featured_image"] is None
    assert entry["image"] is None
    assert entry["categories"] == [{"id": shoes.pk, "name": "Shoes", "slug": shoes.slug}]
    assert entry["category_ids"] == [shoes.pk]


def test_only_active_products_by_default(anon):
    make_product(title="Live")
    make_product(title="Draft", status="draft")
    make_product(title="Old", status="archived")
    assert listed(anon) == ["Live"]
    assert listed(anon, status="active") == ["Live"]


@pytest.mark.parametrize("status", ["draft", "archived", "any"])
def test_other_statuses_are_for_managers(anon, customer_client, manager_client, status):
    make_product(title="Live")
    make_product(title="Draft", status="draft")
    make_product(title="Old", status="archived")
    error(anon.get(f"{API}/products", {"status": status}), 401)
    error(customer_client.get(f"{API}/products", {"status": status}), 403)
    expected = {"draft": ["Draft"], "archived": ["Old"], "any": ["Draft", "Live", "Old"]}[status]
    assert listed(manager_client, status=status) == expected


def test_type(anon):
    make_product(title="Plain")
    make_product(title="Shirt", type="variable")
    assert listed(anon, type="simple") == ["Plain"]
    assert listed(anon, type="VARIABLE") == ["Shirt"]
    error(anon.get(f"{API}/products", {"type": "bundle"}), 400)


def test_search_with_q_or_search(anon):
    make_product(title="Red lamp")
    make_product(title="Blue chair", description="goes well with a lamp")
    make_product(title="Table")
    assert listed(anon, q="lamp") == ["Blue chair", "Red lamp"]
    assert listed(anon, search="lamp") == ["Blue chair", "Red lamp"]
    assert listed(anon, q="lamp", search="table") == ["Blue chair", "Red lamp"]  # q preferred
    assert titles(anon.get(f"{API}/products", {"q": "lamp"})) == [
        "Red lamp",
        "Blue chair",
    ]  # relevance


def test_category_slug_includes_subcategories(anon):
    clothing = CategoryFactory(slug="clothing")
    shirts = CategoryFactory(slug="shirts", parent=clothing)
    make_product(title="Coat", category_ids=[clothing.pk])
    make_product(title="Tee", category_ids=[shirts.pk])
    make_product(title="Mug")
    assert listed(anon, category="clothing") == ["Coat", "Tee"]
    assert listed(anon, category="shirts") == ["Tee"]
    assert listed(anon, category="nothing-here") == []


def test_category_id(anon):
    clothing = CategoryFactory()
    shirts = CategoryFactory(parent=clothing)
    make_product(title="Coat", category_ids=[clothing.pk])
    make_product(title="Tee", category_ids=[shirts.pk])
    make_product(title="Mug")
    assert listed(anon, category_id=clothing.pk) == ["Coat", "Tee"]
    assert listed(anon, category_id=shirts.pk) == ["Tee"]
    error(anon.get(f"{API}/products", {"category_id": "x"}), 400)


def test_a_product_in_two_matching_categories_is_listed_once(anon):
    a, b = CategoryFactory(), CategoryFactory()
    parent = CategoryFactory()
    a.parent = b.parent = parent
    a.save()
    b.save()
    make_product(title="Both", category_ids=[a.pk, b.pk])
    body = anon.get(f"{API}/products", {"category_id": parent.pk}).json()
    assert [p["title"] for p in body["data"]] == ["Both"]
    assert body["meta"]["total"] == 1


def test_brand_id_and_brand_ids(anon):
    acme, zed, other = BrandFactory(), BrandFactory(), BrandFactory()
    make_product(title="A", brand=acme.pk)
    make_product(title="Z", brand=zed.pk)
    make_product(title="O", brand=other.pk)
    make_product(title="None")
    assert listed(anon, brand_id=acme.pk) == ["A"]
    assert listed(anon, brand_ids=f"{acme.pk},{zed.pk}") == ["A", "Z"]
    assert listed(anon, brand_ids=f" {zed.pk} ") == ["Z"]
    assert listed(anon, brand_id=acme.pk, brand_ids=str(zed.pk)) == ["A", "Z"]
    body = error(anon.get(f"{API}/products", {"brand_ids": "1,x"}), 400)
    assert set(body["data"]["params"]) == {"brand_ids"}


def test_price_bounds(anon):
    make_product(title="Cheap", regular_price="5.00")
    make_product(title="Mid", regular_price="20.00")
    make_product(title="Dear", regular_price="100.00")
    make_product(title="Sale", regular_price="100.00", sale_price="15.00")
    assert listed(anon, min_price="20") == ["Dear", "Mid"]
    assert listed(anon, max_price="20") == ["Cheap", "Mid", "Sale"]
    assert listed(anon, min_price="10.5", max_price="20") == ["Mid", "Sale"]
    assert listed(anon, min_price="20", max_price="20") == ["Mid"]
    body = error(anon.get(f"{API}/products", {"min_price": "30", "max_price": "10"}), 400)
    assert "max_price" in body["data"]["params"]
    error(anon.get(f"{API}/products", {"min_price": "-1"}), 400)
    error(anon.get(f"{API}/products", {"max_price": "cheap"}), 400)


def test_price_bounds_use_a_variable_products_range(anon):
    colour = AttributeFactory(slug="colour")
    red, blue = TermFactory(attribute=colour), TermFactory(attribute=colour)
    shirt = make_product(title="Shirt", type="variable")
    make_variant(shirt, red, regular_price="10.00")
    make_variant(shirt, blue, regular_price="30.00")
    assert listed(anon, min_price="25") == ["Shirt"]
    assert listed(anon, max_price="12") == ["Shirt"]
    assert listed(anon, min_price="11", max_price="29") == []


def test_on_sale(anon):
    make_product(title="Full", regular_price="10")
    make_product(title="Cut", regular_price="10", sale_price="8")
    assert listed(anon, on_sale="true") == ["Cut"]
    assert listed(anon, on_sale="1") == ["Cut"]
    assert listed(anon, on_sale="false") == ["Cut", "Full"]
    error(anon.get(f"{API}/products", {"on_sale": "sometimes"}), 400)


def test_min_rating(anon):
    from store.catalog.models import Product

    good = make_product(title="Good")
    make_product(title="Poor")
    Product.objects.filter(pk=good.pk).update(average_rating=Decimal("4.50"))
    Product.objects.filter(title="Poor").update(average_rating=Decimal("2.00"))
    assert listed(anon, min_rating="4") == ["Good"]
    assert listed(anon, min_rating="4.5") == ["Good"]
    assert listed(anon, min_rating="1") == ["Good", "Poor"]
    error(anon.get(f"{API}/products", {"min_rating": "6"}), 400)


def test_stock_status(anon):
    make_product(title="Plenty", stock_quantity=5)
    make_product(title="Gone", stock_quantity=0)
    make_product(title="Later", stock_quantity=0, allow_backorders=True)
    assert listed(anon, stock_status="in_stock") == ["Plenty"]
    assert listed(anon, stock_status="out_of_stock") == ["Gone"]
    assert listed(anon, stock_status="on_backorder") == ["Later"]
    error(anon.get(f"{API}/products", {"stock_status": "low"}), 400)


def test_out_of_stock_products_follow_the_visibility_setting(anon):
    make_product(title="Plenty", stock_quantity=5)
    make_product(title="Gone lamp", stock_quantity=0)
    assert listed(anon) == ["Gone lamp", "Plenty"]  # default: visible
    settings_services.settings_update(
        section="inventory", values={"out_of_stock_visibility": False}
    )
    assert listed(anon) == ["Plenty"]
    # ...unless the caller asks for a stock status or searches.
    assert listed(anon, stock_status="out_of_stock") == ["Gone lamp"]
    assert listed(anon, q="lamp") == ["Gone lamp"]


def attribute_catalog():
    colour = AttributeFactory(slug="color")
    size = AttributeFactory(slug="size")
    red = TermFactory(attribute=colour, slug="red")
    blue = TermFactory(attribute=colour, slug="blue")
    small = TermFactory(attribute=size, slug="s")
    large = TermFactory(attribute=size, slug="l")
    make_product(
        title="Red S",
        attributes=[
            {"attribute_id": colour.pk, "term_ids": [red.pk]},
            {"attribute_id": size.pk, "term_ids": [small.pk]},
        ],
    )
    make_product(
        title="Blue L",
        attributes=[
            {"attribute_id": colour.pk, "term_ids": [blue.pk]},
            {"attribute_id": size.pk, "term_ids": [large.pk]},
        ],
    )
    make_product(
        title="Red L",
        attributes=[
            {"attribute_id": colour.pk, "term_ids": [red.pk]},
            {"attribute_id": size.pk, "term_ids": [large.pk]},
        ],
    )
    make_product(title="Plain")


def test_attribute_filters(anon):
    attribute_catalog()
    assert listed(anon, attr_color="red") == ["Red L", "Red S"]
    assert listed(anon, attr_color="red,blue") == ["Blue L", "Red L", "Red S"]  # comma: OR
    assert listed(anon, attr_color="red", attr_size="l") == ["Red L"]  # default AND
    assert listed(anon, attr_color="red", attr_size="l", filter_logic="and") == ["Red L"]
    assert listed(anon, attr_color="blue", attr_size="s", filter_logic="or") == ["Blue L", "Red S"]
    assert listed(anon, attr_color="green") == []


def test_attribute_filters_of_variable_products_use_their_variants_terms(anon):
    colour = AttributeFactory(slug="color")
    red, blue = (
        TermFactory(attribute=colour, slug="red"),
        TermFactory(attribute=colour, slug="blue"),
    )
    shirt = make_product(title="Shirt", type="variable")
    make_variant(shirt, red)
    assert listed(anon, attr_color="red") == ["Shirt"]
    assert listed(anon, attr_color="blue") == []
    make_variant(shirt, blue)
    assert listed(anon, attr_color="blue") == ["Shirt"]


def test_bad_attribute_filters_are_400(anon):
    attribute_catalog()
    body = error(anon.get(f"{API}/products", {"attr_colour": "red"}), 400, "invalid_param")
    assert set(body["data"]["params"]) == {"attr_colour"}
    error(anon.get(f"{API}/products", {"attr_color": ","}), 400)
    error(anon.get(f"{API}/products", {"attr_Bad Name": "x"}), 400)
    error(anon.get(f"{API}/products", {"filter_logic": "xor"}), 400)


def test_filters_combine(anon):
    attribute_catalog()
    brand = BrandFactory()
    cat = CategoryFactory(slug="lamps")
    make_product(
        title="Red lamp",
        regular_price="40",
        sale_price="30",
        brand=brand.pk,
        category_ids=[cat.pk],
        stock_quantity=2,
    )
    make_product(
        title="Red lamp XL",
        regular_price="90",
        brand=brand.pk,
        category_ids=[cat.pk],
        stock_quantity=2,
    )
    make_product(
        title="Red lamp old",
        regular_price="40",
        sale_price="30",
        brand=brand.pk,
        category_ids=[cat.pk],
        stock_quantity=0,
    )
    assert listed(
        anon,
        q="lamp",
        category="lamps",
        brand_id=brand.pk,
        max_price="50",
        on_sale="true",
        stock_status="in_stock",
        type="simple",
    ) == ["Red lamp"]


@pytest.mark.parametrize(
    ("orderby", "order", "expected"),
    [
        ("title", "asc", ["Apple", "Banana", "Cherry"]),
        ("title", "DESC", ["Cherry", "Banana", "Apple"]),
        ("price", "asc", ["Banana", "Cherry", "Apple"]),
        ("price", "desc", ["Apple", "Cherry", "Banana"]),
        ("date", "asc", ["Cherry", "Apple", "Banana"]),
        ("id", "asc", ["Cherry", "Apple", "Banana"]),
        ("sku", "asc", ["Banana", "Apple", "Cherry"]),
        ("rating", "desc", ["Banana", "Cherry", "Apple"]),
        ("popularity", "desc", ["Apple", "Banana", "Cherry"]),
        ("stock_quantity", "asc", ["Apple", "Cherry", "Banana"]),
    ],
)
def test_orderby_and_order(anon, orderby, order, expected):
    from store.catalog.models import Product

    make_product(title="Cherry", regular_price="20", sku="C", stock_quantity=5)
    make_product(title="Apple", regular_price="30", sku="B", stock_quantity=1)
    make_product(title="Banana", regular_price="10", sku="A", stock_quantity=9)
    Product.objects.filter(title="Banana").update(average_rating=5, total_sales=5)
    Product.objects.filter(title="Cherry").update(average_rating=3, total_sales=1)
    Product.objects.filter(title="Apple").update(average_rating=1, total_sales=9)
    assert titles(anon.get(f"{API}/products", {"orderby": orderby, "order": order})) == expected


def test_default_order_is_newest_id_first(anon):
    for title in ("One", "Two", "Three"):
        make_product(title=title)
    assert titles(anon.get(f"{API}/products")) == ["Three", "Two", "One"]


def test_bad_order_parameters(anon):
    error(anon.get(f"{API}/products", {"orderby": "colour"}), 400)
    error(anon.get(f"{API}/products", {"order": "sideways"}), 400)
    error(anon.get(f"{API}/products", {"orderby": "relevance"}), 400)


def test_paging(anon):
    for n in range(25):
        make_product(title=f"P{n:02d}")
    first = anon.get(f"{API}/products", {"orderby": "title", "order": "asc"}).json()
    assert first["meta"] == {"page": 1, "per_page": 20, "total": 25, "total_pages": 2}
    assert len(first["data"]) == 20
    second = anon.get(f"{API}/products", {"orderby": "title", "order": "asc", "page": 2}).json()
    assert [p["title"] for p in second["data"]] == ["P20", "P21", "P22", "P23", "P24"]
    small = anon.get(f"{API}/products", {"per_page": 10, "page": 3}).json()
    assert small["meta"] == {"page": 3, "per_page": 10, "total": 25, "total_pages": 3}
    assert len(small["data"]) == 5


def test_a_page_past_the_end_is_empty(anon):
    make_product(title="Only")
    body = anon.get(f"{API}/products", {"page": 5}).json()
    assert body["data"] == []
    assert body["meta"] == {"page": 5, "per_page": 20, "total": 1, "total_pages": 1}


def test_per_page_is_capped_at_100(anon):
    body = anon.get(f"{API}/products", {"per_page": 500}).json()
    assert body["meta"]["per_page"] == 100


@pytest.mark.parametrize(
    "params", [{"per_page": 0}, {"per_page": -3}, {"page": 0}, {"page": "two"}]
)
def test_bad_paging_is_400(anon, params):
    body = error(anon.get(f"{API}/products", params), 400, "invalid_param")
    assert set(body["data"]["params"]) == set(params)


def test_the_default_page_size_is_the_store_setting(anon):
    for n in range(4):
        make_product(title=f"P{n}")
    settings_services.settings_update(section="products", values={"products_per_page": 3})
    body = anon.get(f"{API}/products").json()
    assert body["meta"]["per_page"] == 3
    assert len(body["data"]) == 3
