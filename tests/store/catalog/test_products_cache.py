"""Public lists without a search term are cached; every write that could change them
invalidates them."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from store.media import services as media_services
from store.settings import services as settings_services
from tests.fixtures.store import API
from tests.store.catalog.factories import (
    AttributeFactory,
    BrandFactory,
    CategoryFactory,
    TermFactory,
    make_product,
)
from tests.store.media.factories import media_row

pytestmark = pytest.mark.django_db


def get(client, path=f"{API}/products", **params):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, params)
    assert response.status_code == 200, response.content
    return response.json(), len(queries)


def test_a_cached_list_costs_no_query(anon):
    make_product(title="Lamp")
    first, queries = get(anon, per_page=100)
    assert queries > 0
    second, queries = get(anon, per_page=100)
    assert queries == 0
    assert second == first


def test_each_parameter_set_is_cached_on_its_own(anon):
    make_product(title="Lamp", regular_price="10")
    make_product(title="Desk", regular_price="90")
    cheap, _ = get(anon, max_price="20")
    assert [p["title"] for p in cheap["data"]] == ["Lamp"]
    everything, queries = get(anon)
    assert queries > 0
    assert len(everything["data"]) == 2


def test_facets_are_cached_too(anon):
    make_product(title="Lamp")
    get(anon, f"{API}/products/facets")
    _, queries = get(anon, f"{API}/products/facets")
    assert queries == 0


def test_search_and_manager_lists_are_not_cached(anon, manager_client):
    make_product(title="Lamp")
    make_product(title="Draft lamp", status="draft")
    get(anon, q="lamp")
    _, queries = get(anon, q="lamp")
    assert queries > 0
    get(manager_client, status="draft")
    _, queries = get(manager_client, status="draft")
    assert queries > 0


def titles(client, **params):
    body, _ = get(client, **params)
    return [p["title"] for p in body["data"]]


def test_product_writes_invalidate(anon, manager_client):
    assert titles(anon) == []
    created = manager_client.post(
        f"{API}/products", {"title": "Lamp", "status": "active"}, format="json"
    ).json()
    assert titles(anon) == ["Lamp"]
    manager_client.patch(f"{API}/products/{created['id']}", {"title": "Lantern"}, format="json")
    assert titles(anon) == ["Lantern"]
    copy = manager_client.post(f"{API}/products/{created['id']}/duplicate").json()
    manager_client.patch(f"{API}/products/{copy['id']}", {"status": "active"}, format="json")
    assert titles(anon) == ["Lantern (copy)", "Lantern"]
    manager_client.delete(f"{API}/products/{created['id']}")
    assert titles(anon) == ["Lantern (copy)"]


def test_variant_writes_invalidate(anon, manager_client):
    colour = AttributeFactory(slug="color")
    red = TermFactory(attribute=colour, slug="red")
    shirt = make_product(title="Shirt", type="variable", regular_price="10")
    assert titles(anon, attr_color="red") == []
    variant = manager_client.post(
        f"{API}/products/{shirt.pk}/variants",
        {"attributes": [{"attribute_id": colour.pk, "term_id": red.pk}], "regular_price": "12.00"},
        format="json",
    ).json()
    assert titles(anon, attr_color="red") == ["Shirt"]
    assert get(anon)[0]["data"][0]["price"] == "12.00"
    manager_client.patch(
        f"{API}/variants/{variant['id']}", {"regular_price": "14.00"}, format="json"
    )
    assert get(anon)[0]["data"][0]["price"] == "14.00"
    manager_client.delete(f"{API}/variants/{variant['id']}")
    assert get(anon)[0]["data"][0]["price"] == "10.00"


def test_category_brand_and_term_changes_invalidate(anon, manager_client):
    category = CategoryFactory(name="Lamps", slug="lamps")
    brand = BrandFactory(name="Lumen")
    make_product(title="Lamp", category_ids=[category.pk], brand=brand.pk)
    assert get(anon)[0]["data"][0]["categories"][0]["name"] == "Lamps"
    manager_client.patch(f"{API}/categories/{category.pk}", {"name": "Lights"}, format="json")
    assert get(anon)[0]["data"][0]["categories"][0]["name"] == "Lights"
    manager_client.patch(f"{API}/brands/{brand.pk}", {"name": "Lux"}, format="json")
    assert get(anon)[0]["data"][0]["brand"]["name"] == "Lux"
    manager_client.delete(f"{API}/categories/{category.pk}")
    assert get(anon)[0]["data"][0]["categories"] == []


def test_settings_changes_invalidate(anon):
    make_product(title="Gone", stock_quantity=0)
    assert titles(anon) == ["Gone"]
    settings_services.settings_update(
        section="inventory", values={"out_of_stock_visibility": False}
    )
    assert titles(anon) == []


def test_image_changes_invalidate(anon):
    image = media_row(alt_text="Old")
    make_product(title="Lamp", featured_image_id=image.pk)
    assert get(anon)[0]["data"][0]["featured_image"]["alt"] == "Old"
    media_services.media_update(image=image, alt_text="New")
    assert get(anon)[0]["data"][0]["featured_image"]["alt"] == "New"


def test_review_moderation_invalidates(anon, manager_client, customer_client):
    product = make_product(title="Lamp")
    review = customer_client.post(
        f"{API}/products/{product.pk}/reviews", {"rating": 4, "content": "Bright."}, format="json"
    ).json()
    assert get(anon, min_rating="4")[0]["data"] == []
    manager_client.patch(f"{API}/reviews/{review['id']}", {"status": "approved"}, format="json")
    assert [p["title"] for p in get(anon, min_rating="4")[0]["data"]] == ["Lamp"]


def test_the_version_moves_again_on_commit(anon, django_capture_on_commit_callbacks):
    from store.catalog import cache

    def version():
        return cache.tokens([cache.GENERAL])[cache.GENERAL]

    before = version()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        cache.invalidate()
    during = version()
    assert during != before
    for callback in callbacks:
        callback()
    assert version() not in (before, during)


def test_a_zero_cache_lifetime_turns_caching_off(anon, settings):
    settings.STORE_CATALOG_CACHE_SECONDS = 0
    make_product(title="Lamp")
    get(anon)
    assert get(anon)[1] > 0
