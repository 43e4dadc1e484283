"""The catalog cache is versioned per product and per list dimension (store.catalog.cache):
a sale or a stock change of one product re-reads that product's bodies and the pages that
depend on prices or stock, and leaves every other cached page and body alone."""

from decimal import Decimal

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from store.catalog import cache as catalog_cache
from store.catalog.services import products as product_services
from store.catalog.services import variants as variant_services
from store.inventory import services as inventory
from store.settings import services as settings_services
from tests.fixtures.store import API
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


def get(client, path, **params):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, params)
    assert response.status_code == 200, response.content
    return response.json(), len(queries)


@pytest.fixture
def shop():
    lamps, mugs = CategoryFactory(slug="lamps"), CategoryFactory(slug="mugs")
    lamp = make_product(title="Lamp", sku="LAMP", regular_price="10.00", category_ids=[lamps.pk])
    mug = make_product(title="Mug", sku="MUG", regular_price="5.00", category_ids=[mugs.pk])
    cache.clear()
    return lamp, mug


def prices(body):
    return {p["sku"]: p["price"] for p in body["data"]}


def test_a_sale_refreshes_the_products_pages_and_body_and_keeps_the_others(anon, shop):
    lamp, mug = shop
    get(anon, f"{API}/products", category="lamps")
    get(anon, f"{API}/products", category="mugs")
    get(anon, f"{API}/products")
    get(anon, f"{API}/products", max_price="8")
    get(anon, f"{API}/products/{lamp.pk}")
    get(anon, f"{API}/products/{mug.pk}")

    product_services.product_update(product_id=lamp.pk, fields={"sale_price": Decimal("4.00")})

    # Unrelated page and body: straight from the cache.
    body, queries = get(anon, f"{API}/products", category="mugs")
    assert (prices(body), queries) == ({"MUG": "5.00"}, 0)
    body, queries = get(anon, f"{API}/products/{mug.pk}")
    assert (body["price"], queries) == ("5.00", 0)
    # The lamp's pages keep their rows; only the lamp's entry is read again (two queries).
    body, queries = get(anon, f"{API}/products", category="lamps")
    assert prices(body) == {"LAMP": "4.00"}
    assert queries <= 2
    body, queries = get(anon, f"{API}/products")
    assert prices(body) == {"LAMP": "4.00", "MUG": "5.00"}
    assert queries == 0  # the lamp's entry was cached again just above
    # A page filtered by price is read again: the sale may move products in or out.
    with CaptureQueriesContext(connection) as queries:
        body = anon.get(f"{API}/products", {"max_price": "8"}).json()
    assert prices(body) == {"LAMP": "4.00", "MUG": "5.00"}
    assert any("COUNT(" in query["sql"] for query in queries.captured_queries)
    body, _ = get(anon, f"{API}/products/{lamp.pk}")
    assert (body["price"], body["on_sale"]) == ("4.00", True)
    assert get(anon, f"{API}/products/slug/{lamp.slug}")[0]["price"] == "4.00"


def test_a_variant_price_change_reaches_its_product_only(anon):
    colour = AttributeFactory(slug="colour")
    shirt = make_product(title="Shirt", type="variable", sku="SHIRT")
    variant = make_variant(shirt, TermFactory(attribute=colour), regular_price="20.00")
    mug = make_product(title="Mug", sku="MUG", regular_price="5.00", brand=BrandFactory().pk)
    cache.clear()
    get(anon, f"{API}/products", brand_id=mug.brand_id)
    get(anon, f"{API}/products")
    variant_services.variant_update(
        variant_id=variant.pk, fields={"regular_price": Decimal("30.00")}
    )
    assert get(anon, f"{API}/products", brand_id=mug.brand_id)[1] == 0
    body, _ = get(anon, f"{API}/products")
    assert prices(body)["SHIRT"] == "30.00"
    assert get(anon, f"{API}/products/{shirt.pk}")[0]["variants"][0]["price"] == "30.00"


def test_stock_changes_show_in_the_stock_fields(anon, shop):
    lamp, _mug = shop
    settings_services.settings_update(
        section="inventory", values={"out_of_stock_visibility": False}
    )
    product_services.product_update(product_id=lamp.pk, fields={"track_inventory": True})
    inventory.stock_set(product_id=lamp.pk, quantity=7)
    get(anon, f"{API}/products", category="mugs")
    body, _ = get(anon, f"{API}/products", stock_status="in_stock")
    assert {p["sku"]: p["stock_quantity"] for p in body["data"]}["LAMP"] == 7
    get(anon, f"{API}/products/{lamp.pk}")

    inventory.stock_set(product_id=lamp.pk, quantity=3)
    assert get(anon, f"{API}/products", category="mugs")[1] == 0
    body, _ = get(anon, f"{API}/products", stock_status="in_stock")
    assert {p["sku"]: p["stock_quantity"] for p in body["data"]}["LAMP"] == 3
    assert get(anon, f"{API}/products/{lamp.pk}")[0]["stock_quantity"] == 3

    inventory.stock_set(product_id=lamp.pk, quantity=0)  # out of stock: the lists drop it
    body, _ = get(anon, f"{API}/products")
    assert [p["sku"] for p in body["data"]] == ["MUG"]
    body, _ = get(anon, f"{API}/products", stock_status="out_of_stock")
    assert [p["sku"] for p in body["data"]] == ["LAMP"]
    assert get(anon, f"{API}/products/{lamp.pk}")[0]["stock_status"] == "out_of_stock"


def test_a_product_leaving_the_shop_leaves_its_cached_pages_and_body(anon, shop):
    lamp, _mug = shop
    get(anon, f"{API}/products")
    get(anon, f"{API}/products/{lamp.pk}")
    product_services.product_update(product_id=lamp.pk, fields={"status": "draft"})
    body, _ = get(anon, f"{API}/products")
    assert [p["sku"] for p in body["data"]] == ["MUG"]
    assert anon.get(f"{API}/products/{lamp.pk}").status_code == 404
    assert anon.get(f"{API}/products/slug/{lamp.slug}").status_code == 404


def test_a_slug_read_never_answers_another_products_body(anon, shop):
    lamp, mug = shop
    assert get(anon, f"{API}/products/slug/{lamp.slug}")[0]["sku"] == "LAMP"
    assert get(anon, f"{API}/products/slug/{mug.slug}")[0]["sku"] == "MUG"
    assert get(anon, f"{API}/products/slug/{lamp.slug}")[1] == 0


def rich_product():
    colour, size = AttributeFactory(slug="color"), AttributeFactory(slug="size")
    product = make_product(
        title="Shirt",
        type="variable",
        brand=BrandFactory().pk,
        category_ids=[CategoryFactory().pk, CategoryFactory().pk],
        featured_image_id=media_row().pk,
    )
    add_gallery(product, *[media_row() for _ in range(4)])
    for c in [TermFactory(attribute=colour) for _ in range(3)]:
        for s in [TermFactory(attribute=size) for _ in range(3)]:
            make_variant(product, c, s, image_id=media_row().pk, regular_price="9.00")
    cache.clear()
    return product


@pytest.mark.parametrize("by", ["id", "slug"])
def test_a_single_read_costs_a_bounded_number_of_queries_then_none(
    anon, django_assert_max_num_queries, by
):
    product = rich_product()
    path = f"{API}/products/{product.pk}" if by == "id" else f"{API}/products/slug/{product.slug}"
    with django_assert_max_num_queries(7):
        first = anon.get(path).json()
    assert len(first["variants"]) == 9
    with django_assert_max_num_queries(0):
        second = anon.get(path).json()
    assert second == first


def test_a_managers_single_read_is_never_cached(manager_client, django_assert_max_num_queries):
    product = rich_product()
    manager_client.get(f"{API}/products/{product.pk}")
    with CaptureQueriesContext(connection) as queries:
        manager_client.get(f"{API}/products/{product.pk}")
    assert len(queries) > 0


def test_the_denormalised_price_range_follows_every_variant_write(anon):
    colour = AttributeFactory(slug="color")
    red, blue, green = (TermFactory(attribute=colour) for _ in range(3))
    shirt = make_product(title="Shirt", type="variable")

    def price_range():
        shirt.refresh_from_db()
        return (shirt.min_price, shirt.max_price, shirt.on_sale)

    cheap = make_variant(shirt, red, regular_price="10.00")
    dear = make_variant(shirt, blue, regular_price="30.00")
    assert price_range() == (Decimal("10.00"), Decimal("30.00"), False)
    variant_services.variant_update(variant_id=dear.pk, fields={"sale_price": Decimal("5.00")})
    assert price_range() == (Decimal("5.00"), Decimal("10.00"), True)
    variant_services.variant_update(variant_id=dear.pk, fields={"enabled": False})
    assert price_range() == (Decimal("10.00"), Decimal("10.00"), False)
    make_variant(shirt, green, regular_price="50.00")
    assert price_range() == (Decimal("10.00"), Decimal("50.00"), False)
    variant_services.variant_delete(variant_id=cheap.pk)
    assert price_range() == (Decimal("50.00"), Decimal("50.00"), False)
    # The list's price bounds use the range, exactly: 20-40 has no variant price.
    body = anon.get(f"{API}/products", {"min_price": "20", "max_price": "40"}).json()
    assert body["data"] == []
    body = anon.get(f"{API}/products", {"min_price": "45", "max_price": "60"}).json()
    assert [p["title"] for p in body["data"]] == ["Shirt"]


def test_partial_words_are_found_and_titles_rank_first(anon):
    make_product(title="Warm hoodie")
    make_product(title="Scarf", description="Goes well with a hoodie.")
    make_product(title="Mug")
    for term in ("hood", "hoodie", "HOOD"):
        body = anon.get(f"{API}/products", {"q": term}).json()
        assert [p["title"] for p in body["data"]] == ["Warm hoodie", "Scarf"], term
    # Inside a word: titles and SKUs (trigrams on PostgreSQL; descriptions too on SQLite).
    body = anon.get(f"{API}/products", {"q": "oodie"}).json()
    assert body["data"][0]["title"] == "Warm hoodie"
    body = anon.get(f"{API}/search", {"q": "hood"}).json()
    assert [p["title"] for p in body["products"]["items"]] == ["Warm hoodie", "Scarf"]


def test_listed_products_tokens_are_kept_together_and_bumped_one_by_one():
    """A page's products' tokens live in one hash (one call for a hundred); a change of one
    product moves its token only, and a token once made is read back unchanged."""
    ids = [101, 102, 103]
    first = catalog_cache.read_tokens((), ids, write=False, listed=True).products
    assert catalog_cache.read_tokens((), ids, listed=True).products == first
    assert len(set(first.values())) == 3
    catalog_cache.invalidate([102])
    again = catalog_cache.read_tokens((), ids, listed=True).products
    assert again[101] == first[101]
    assert again[103] == first[103]
    assert again[102] != first[102]
    # A single read's token is a key of its own, apart from the listed one.
    single = catalog_cache.read_tokens((), [101]).products[101]
    assert catalog_cache.read_tokens((), [101]).products[101] == single
