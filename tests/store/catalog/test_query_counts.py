"""Query-count ceilings: the cost of a page does not grow with its size."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

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

pytestmark = [
    pytest.mark.django_db,
    # whichever test comes first builds the module's 100 products (four to six seconds)
    pytest.mark.slow(reason="the module's catalog of 100 products, built once for its tests"),
]


def build_catalog(count: int) -> list:
    """`count` variable products, each with a brand, two categories, images and two variants;
    answers the categories."""
    colour = AttributeFactory(slug="color")
    red, blue = (
        TermFactory(attribute=colour, slug="red"),
        TermFactory(attribute=colour, slug="blue"),
    )
    brands = [BrandFactory() for _ in range(3)]
    categories = [CategoryFactory() for _ in range(4)]
    for n in range(count):
        product = make_product(
            title=f"Product {n}",
            type="variable",
            brand=brands[n % 3].pk,
            category_ids=[categories[n % 4].pk, categories[(n + 1) % 4].pk],
            featured_image_id=media_row().pk,
        )
        add_gallery(product, media_row(), media_row())
        make_variant(product, red, regular_price="10.00", image_id=media_row().pk)
        make_variant(product, blue, regular_price="12.00")
    return categories


@pytest.fixture(scope="module")
def catalog(module_db):
    """A catalog of 100 products, built once for the module's read-only tests."""
    return build_catalog(100)


def queries_for(client, path, **params) -> int:
    cache.clear()
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path, params)
    assert response.status_code == 200, response.content
    return len(captured)


def test_a_page_of_100_costs_no_more_queries_than_a_page_of_5(
    catalog, anon, django_assert_max_num_queries
):
    small = queries_for(anon, f"{API}/products", per_page=5)
    cache.clear()
    with django_assert_max_num_queries(small):
        response = anon.get(f"{API}/products", {"per_page": 100})
    assert len(response.json()["data"]) == 100
    assert small <= 5  # settings, count, page, categories (+ one spare)


def test_filtered_pages_too(catalog, anon, django_assert_max_num_queries):
    params = {
        "attr_color": "red,blue",
        "on_sale": "false",
        "min_price": "5",
        "category_id": catalog[0].pk,
    }
    small = queries_for(anon, f"{API}/products", per_page=5, **params)
    cache.clear()
    with django_assert_max_num_queries(small):
        response = anon.get(f"{API}/products", {"per_page": 100, **params})
    assert len(response.json()["data"]) == 50  # the first category holds every other product


def test_a_managers_list_is_bounded_too(catalog, manager_client, django_assert_max_num_queries):
    small = queries_for(manager_client, f"{API}/products", per_page=5, status="any")
    cache.clear()
    with django_assert_max_num_queries(small):
        manager_client.get(f"{API}/products", {"per_page": 100, "status": "any"})


def test_a_single_read_does_not_grow_with_variants_or_images(anon, django_assert_max_num_queries):
    colour = AttributeFactory(slug="shade")  # not the module catalog's "color"
    size = AttributeFactory(slug="size")
    colours = [TermFactory(attribute=colour) for _ in range(5)]
    sizes = [TermFactory(attribute=size) for _ in range(5)]
    product = make_product(title="Shirt", type="variable", featured_image_id=media_row().pk)
    add_gallery(product, *[media_row() for _ in range(6)])
    for c in colours:
        for s in sizes:
            make_variant(product, c, s, image_id=media_row().pk)
    with django_assert_max_num_queries(7):
        body = anon.get(f"{API}/products/{product.pk}").json()
    assert len(body["variants"]) == 25
    assert len(body["gallery_images"]) == 6


def test_search_facets_and_taxonomy_lists_are_bounded(catalog, anon, django_assert_max_num_queries):
    for path, params, ceiling in [
        (f"{API}/search", {"q": "Product", "per_page": 20}, 6),
        # settings, attributes, price, totals, categories x2, brands, terms x3, stock
        (f"{API}/products/facets", {"attr_color": "red"}, 11),
        (f"{API}/categories", {}, 2),
        (f"{API}/categories/tree", {}, 1),
        (f"{API}/brands", {}, 2),
        (f"{API}/attributes-with-terms", {}, 2),
    ]:
        cache.clear()
        with django_assert_max_num_queries(ceiling):
            assert anon.get(path, params).status_code == 200


# --- Cold reads: the cache emptied of every key the request reads ---------------------------------
# On PostgreSQL the bodies are written by the database (store.catalog.selectors.product_json):
# the store settings, the COUNT and the page's entries; a single read is one query. Elsewhere the
# Python path reads the rows and their relations.


def test_a_cold_page_of_100_costs_three_queries(catalog, anon, django_assert_max_num_queries):
    """On PostgreSQL the page's first read builds its entries and stores them (one statement
    more); afterwards the page reads the stored ones (store.catalog.services.list_entries)."""
    cache.clear()
    anon.get(f"{API}/products", {"per_page": 100})  # the entries stored, whichever test ran first
    cache.clear()
    ceiling = 3 if connection.vendor == "postgresql" else 4  # settings, count, page (+ categories)
    with django_assert_max_num_queries(ceiling):
        response = anon.get(f"{API}/products", {"per_page": 100})
    assert len(response.json()["data"]) == 100
    assert response.json()["data"][0]["featured_image"]["url"].startswith("/media/")


def test_a_cold_product_page_costs_one_query(catalog, anon, django_assert_max_num_queries):
    product = make_product(
        title="Boots", type="variable", brand=BrandFactory().pk, featured_image_id=media_row().pk
    )
    add_gallery(product, media_row(), media_row())
    size = AttributeFactory(slug="boot-size")
    for term in (TermFactory(attribute=size), TermFactory(attribute=size)):
        make_variant(product, term, image_id=media_row().pk)
    cache.clear()
    ceiling = 1 if connection.vendor == "postgresql" else 7
    with django_assert_max_num_queries(ceiling):
        body = anon.get(f"{API}/products/{product.pk}").json()
    assert len(body["variants"]) == 2
    assert len(body["gallery_images"]) == 2
