import pytest

from tests.fixtures.store import API, error
from tests.store.catalog.factories import (
    AttributeFactory,
    BrandFactory,
    CategoryFactory,
    TermFactory,
    make_product,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalog():
    clothing = CategoryFactory(name="Clothing", slug="clothing")
    shirts = CategoryFactory(name="Shirts", slug="shirts", parent=clothing)
    mugs = CategoryFactory(name="Mugs", slug="mugs")
    acme, zed = BrandFactory(name="Acme"), BrandFactory(name="Zed")
    colour = AttributeFactory(name="Colour", slug="color")
    red, blue = (
        TermFactory(attribute=colour, slug="red"),
        TermFactory(attribute=colour, slug="blue"),
    )

    def attrs(*terms):
        return [{"attribute_id": colour.pk, "term_ids": [t.pk for t in terms]}]

    make_product(
        title="Red shirt",
        regular_price="10",
        category_ids=[shirts.pk],
        brand=acme.pk,
        attributes=attrs(red),
    )
    make_product(
        title="Blue shirt",
        regular_price="20",
        category_ids=[shirts.pk],
        brand=zed.pk,
        attributes=attrs(blue),
        stock_quantity=0,
    )
    make_product(
        title="Coat",
        regular_price="90",
        sale_price="70",
        category_ids=[clothing.pk],
        brand=acme.pk,
        attributes=attrs(red, blue),
    )
    make_product(title="Mug", regular_price="5", category_ids=[mugs.pk])
    make_product(
        title="Hidden",
        status="draft",
        regular_price="1",
        category_ids=[mugs.pk],
        attributes=attrs(red),
    )
    return {
        "clothing": clothing,
        "shirts": shirts,
        "mugs": mugs,
        "acme": acme,
        "zed": zed,
        "red": red,
        "blue": blue,
    }


def counts(entries, key="slug"):
    return {e[key]: e["count"] for e in entries}


def test_facets_without_filters(anon, catalog):
    body = anon.get(f"{API}/products/facets").json()
    assert body["total"] == 4
    assert body["on_sale"] == 1
    assert body["price_range"] == {"min": "5.00", "max": "70.00"}
    assert counts(body["categories"]) == {
        "clothing": 3,
        "shirts": 2,
        "mugs": 1,
    }  # subcategories counted in
    assert counts(body["brands"], "name") == {"Acme": 2, "Zed": 1}
    assert counts(body["attributes"][0]["terms"]) == {"red": 2, "blue": 2}
    assert counts(body["stock_status"], "value") == {"in_stock": 3, "out_of_stock": 1}


def test_a_facet_ignores_its_own_filter_but_not_the_others(anon, catalog):
    body = anon.get(f"{API}/products/facets", {"attr_color": "red"}).json()
    assert body["total"] == 2  # Red shirt, Coat
    assert counts(body["attributes"][0]["terms"]) == {
        "red": 2,
        "blue": 2,
    }  # colour ignores attr_color
    assert counts(body["brands"], "name") == {"Acme": 2}
    assert counts(body["categories"]) == {"clothing": 2, "shirts": 1}
    body = anon.get(f"{API}/products/facets", {"brand_id": catalog["zed"].pk}).json()
    assert body["total"] == 1
    assert counts(body["brands"], "name") == {"Acme": 2, "Zed": 1}
    assert counts(body["attributes"][0]["terms"]) == {"blue": 1}


def test_the_price_range_ignores_the_price_filter(anon, catalog):
    body = anon.get(f"{API}/products/facets", {"max_price": "15", "category": "clothing"}).json()
    assert body["total"] == 1
    assert body["price_range"] == {"min": "10.00", "max": "70.00"}


def test_facets_validate_like_the_list(anon, catalog):
    error(anon.get(f"{API}/products/facets", {"attr_size": "m"}), 400, "invalid_param")
    error(anon.get(f"{API}/products/facets", {"status": "draft"}), 401)


def test_facets_follow_the_out_of_stock_rule(anon, catalog):
    from store.settings import services

    services.settings_update(section="inventory", values={"out_of_stock_visibility": False})
    body = anon.get(f"{API}/products/facets").json()
    assert body["total"] == 3
    assert counts(body["stock_status"], "value") == {"in_stock": 3, "out_of_stock": 1}


# --- Search ------------------------------------------------------------------------------------


def test_search_weights_title_above_sku_above_description(anon):
    make_product(title="Plain mug", description="a lamp-like glow")
    make_product(title="Holder", sku="LAMP-77")
    make_product(title="Desk lamp")
    make_product(title="Unrelated")
    body = anon.get(f"{API}/search", {"q": "lamp"}).json()
    assert [p["title"] for p in body["products"]["items"]] == ["Desk lamp", "Holder", "Plain mug"]
    assert body["products"]["total"] == 3


def test_search_finds_variant_skus(anon):
    from tests.store.catalog.factories import make_variant

    shirt = make_product(title="Shirt", type="variable")
    make_variant(shirt, TermFactory(), sku="ZX-RED")
    assert [
        p["title"] for p in anon.get(f"{API}/search", {"q": "zx-red"}).json()["products"]["items"]
    ] == ["Shirt"]


def test_every_word_must_match_and_exact_titles_lead(anon):
    make_product(title="Red lamp")
    make_product(title="Lamp")
    make_product(title="Red chair")
    assert [
        p["title"] for p in anon.get(f"{API}/search", {"q": "red lamp"}).json()["products"]["items"]
    ] == ["Red lamp"]
    assert [
        p["title"] for p in anon.get(f"{API}/search", {"q": "lamp"}).json()["products"]["items"]
    ] == ["Lamp", "Red lamp"]


def test_search_per_page_defaults_to_8_and_is_capped_at_20(anon):
    for n in range(25):
        make_product(title=f"Lamp {n}")
    default = anon.get(f"{API}/search", {"q": "lamp"}).json()["products"]
    assert (len(default["items"]), default["total"]) == (8, 25)
    assert (
        len(anon.get(f"{API}/search", {"q": "lamp", "per_page": 3}).json()["products"]["items"])
        == 3
    )
    assert (
        len(anon.get(f"{API}/search", {"q": "lamp", "per_page": 50}).json()["products"]["items"])
        == 20
    )
    error(anon.get(f"{API}/search", {"q": "lamp", "per_page": 0}), 400)


def test_search_needs_a_term(anon):
    for params in ({}, {"q": ""}):
        body = error(anon.get(f"{API}/search", params), 400, "invalid_param")
        assert set(body["data"]["params"]) == {"q"}


def test_search_covers_categories_and_only_active_products(anon):
    CategoryFactory(name="Lamps", slug="lamps")
    CategoryFactory(name="Floor lamps", slug="floor-lamps")
    make_product(title="Lamp")
    make_product(title="Secret lamp", status="draft")
    body = anon.get(f"{API}/search", {"q": "lamp"}).json()
    assert [p["title"] for p in body["products"]["items"]] == ["Lamp"]
    assert [c["name"] for c in body["categories"]["items"]] == ["Lamps", "Floor lamps"]
    assert set(body) == {"products", "categories"}
    assert set(body["categories"]["items"][0]) == {"id", "name", "slug", "parent_id", "image"}


def test_a_searched_list_pages_in_rank_order_with_the_number_of_matches(anon):
    """The list's search reads a page's ids with the number of matches, then the rows by id
    (PostgreSQL): the pages keep the rank order, the total is every match's, and a page past
    the last match is empty with the same total."""
    make_product(title="Lamp")  # exact title first
    make_product(title="Lamp shade")  # title prefix
    for n in range(3):
        make_product(title=f"Desk {n}", description="a reading lamp")
    make_product(title="Chair")

    def page(number: int) -> dict:
        response = anon.get(f"{API}/products", {"q": "lamp", "per_page": 2, "page": number})
        assert response.status_code == 200, response.content
        return response.json()

    first, second, third, past = page(1), page(2), page(3), page(4)
    assert [p["title"] for p in first["data"]] == ["Lamp", "Lamp shade"]
    assert [p["title"] for p in second["data"] + third["data"]] == ["Desk 2", "Desk 1", "Desk 0"]
    for body in (first, second, third, past):
        assert body["meta"]["total"] == 5
        assert body["meta"]["total_pages"] == 3
    assert past["data"] == []
    search = anon.get(f"{API}/search", {"q": "lamp"}).json()["products"]
    assert search["total"] == 5
    assert [p["title"] for p in search["items"]][:2] == ["Lamp", "Lamp shade"]
