"""Product bodies written by PostgreSQL (store.catalog.selectors.product_json) are, byte for
byte, the bodies Python builds (api.serializers.products, then DRF's renderer): the list entry,
the single read, and the answers of the public list and single reads, whichever path wrote
them."""

import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.core.cache import cache
from rest_framework.renderers import JSONRenderer

from common.pg_json import UNWRITTEN_URL
from store.catalog.api.serializers import bodies
from store.catalog.api.serializers.products import product_detail, product_summary
from store.catalog.models import Product, Variant
from store.catalog.selectors import product_json
from store.catalog.selectors import products as selectors
from store.common import hooks
from store.media.models import SIZE_NAMES
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

pytestmark = [pytest.mark.django_db, pytest.mark.postgresql_only]  # the SQL is PostgreSQL's

ODD = 'Zoë "quoted" \\ back\u2028line\u2029para \x01 tab\t end'


def rendered(data) -> str:
    return JSONRenderer().render(data).decode()


def python_summary(pk: int) -> str:
    return rendered(product_summary(selectors.rows_in_order([pk])[0]))


def python_detail(pk: int) -> str:
    return rendered(product_detail(selectors.product_get(pk)))


def at(product: Product, moment: datetime) -> None:
    Product.objects.filter(pk=product.pk).update(created_at=moment, updated_at=moment)


@pytest.fixture
def shop():
    """Products that differ in every way a body can: texts to escape, missing values, sale,
    images with and without renditions, variants, attributes whose names sort by code point."""
    shoes, boots = CategoryFactory(name="Shoes", sort_order=2), CategoryFactory(name=ODD)
    colour = AttributeFactory(name="colour", slug="colour", sort_order=1)
    size = AttributeFactory(name="Size", slug="size", sort_order=1)  # "S" < "c" by code point
    material = AttributeFactory(name="Éclat", slug="material", sort_order=0, type="color")
    red = TermFactory(attribute=colour, name="red", slug="red", value="#f00")
    blue = TermFactory(attribute=colour, name="Blue", slug="blue", sort_order=0)
    small = TermFactory(attribute=size, name="small", slug="s", sort_order=2)
    large = TermFactory(attribute=size, name="large", slug="l", sort_order=1)
    silk = TermFactory(attribute=material, name=ODD, slug="silk")
    full = media_row(alt_text=ODD)
    partial = media_row(
        renditions={"thumbnail": {"files": {"base": "", "webp": "store/p-thumb.webp"}}}
    )
    bare = media_row(renditions={})
    rich = make_product(
        title=ODD,
        sku="RICH-1",
        type="variable",
        brand=BrandFactory(name=ODD).pk,
        category_ids=[boots.pk, shoes.pk],
        featured_image_id=full.pk,
        short_description="<p>Short</p>",
        description="Long\n\ttext \u00a0 \U0001f600",
        weight=Decimal("1.250"),
        height=Decimal("10"),
        low_stock_threshold=4,
        ean="4006381333931",
        mpn="MPN-9",
    )
    add_gallery(rich, bare, partial, full)
    Product.attribute_terms.through.objects.bulk_create(
        Product.attribute_terms.through(product_id=rich.pk, attributeterm_id=term.pk)
        for term in (red, blue, small, large, silk)
    )
    make_variant(rich, red, small, regular_price="12.00", sale_price="9.99", image_id=partial.pk)
    make_variant(rich, blue, large, regular_price="15.00", weight=Decimal("0.5"))
    hidden = make_variant(rich, red, large, regular_price="20.00")
    Variant.objects.filter(pk=hidden.pk).update(enabled=False)
    at(rich, datetime(2026, 3, 2, 10, 0, 0, 120, tzinfo=UTC))
    plain = make_product(title="Plain", regular_price=None, featured_image_id=bare.pk)
    at(plain, datetime(2026, 3, 1, 10, 0, 0, tzinfo=UTC))
    sale = make_product(
        title="Sale", regular_price="80.00", sale_price="60.00", featured_image_id=partial.pk
    )
    draft = make_product(title="Draft", status="draft")
    cache.clear()
    return {"rich": rich, "plain": plain, "sale": sale, "draft": draft}


def test_list_entries_are_the_python_entries(shop):
    products = [shop["rich"], shop["plain"], shop["sale"], shop["draft"]]
    ids = [product.pk for product in products]
    entries = product_json.entries_in_order(ids, active_only=False)
    assert [pk for pk, _text in entries] == ids
    for pk, text in entries:
        assert text == python_summary(pk)
    assert [pk for pk, _text in product_json.entries_in_order(ids)] == ids[:3]  # no draft


def test_single_reads_are_the_python_bodies(shop):
    for name in ("rich", "plain", "sale"):
        product = shop[name]
        pk, slug, text = product_json.detail(product_id=product.pk)
        assert (pk, slug) == (product.pk, product.slug)
        assert text == python_detail(product.pk)
        assert product_json.detail(slug=product.slug) == (pk, slug, text)
    assert product_json.detail(product_id=shop["draft"].pk) is None
    assert product_json.detail(slug="no-such-product") is None


def test_what_the_rich_body_holds(shop):
    """The comparison above must not pass on two empty bodies: the rich one holds it all."""
    body = product_json.detail(product_id=shop["rich"].pk)[2]
    parsed = json.loads(body)
    assert parsed["title"] == ODD
    assert "\\u2028" in body
    assert "\u2028" not in body
    assert parsed["created_at"] == "2026-03-02T10:00:00.000120Z"
    assert [c["name"] for c in parsed["categories"]] == [ODD, "Shoes"]  # sort order 0, then 2
    assert [a["name"] for a in parsed["attributes"]] == ["Éclat", "Size", "colour"]
    assert [t["name"] for t in parsed["attributes"][2]["terms"]] == ["Blue", "red"]
    assert [t["name"] for t in parsed["attributes"][1]["terms"]] == ["large", "small"]
    assert [v["price"] for v in parsed["variants"]] == ["9.99", "15.00"]  # the disabled left out
    image = parsed["variants"][0]["image"]  # an empty rendition name: the original's URL
    assert image["thumbnail"] == image["url"]
    assert image["url"].endswith(".jpg")
    featured = parsed["featured_image"]
    assert parsed["image_sources"] == {
        fmt: {size: featured[size].replace(".jpg", f".{fmt}") for size in SIZE_NAMES}
        for fmt in ("avif", "webp")
    }
    assert len(parsed["gallery_images"]) == 3
    assert parsed["weight"] == "1.250"


def test_a_file_name_to_percent_encode_is_written_by_python(shop, anon):
    odd = media_row(file="store/odd name/é?.jpg")
    Product.objects.filter(pk=shop["sale"].pk).update(featured_image=odd)
    pk = shop["sale"].pk
    assert UNWRITTEN_URL in product_json.detail(product_id=pk)[2]
    assert UNWRITTEN_URL in product_json.entries_in_order([pk])[0][1]
    body = anon.get(f"{API}/products/{pk}").content.decode()
    assert body == python_detail(pk)
    assert "/odd%20name/%C3%A9%3F.jpg" in body
    listed = anon.get(f"{API}/products", {"orderby": "id", "order": "asc"}).json()
    assert [entry["image"] for entry in listed["data"] if entry["id"] == pk] == [
        "/media/store/odd%20name/%C3%A9%3F.jpg"
    ]


def test_the_answers_are_the_same_bytes_on_both_paths(shop, anon):
    """The public answers written by the database, then by Python (a callback on the product
    hook sends every body through Python): the same bytes."""
    paths = [
        f"{API}/products?per_page=100",
        f"{API}/products?orderby=title&order=asc",
        f"{API}/products?q=sale",
        f"{API}/products/{shop['rich'].pk}",
        f"{API}/products/slug/{shop['rich'].slug}",
    ]
    assert bodies.database_bodies()
    database = [anon.get(path).content for path in paths]
    with hooks.filter_added(hooks.API_PRODUCT_RESPONSE, lambda data, product: data):
        assert not bodies.database_bodies()
        cache.clear()
        python = [anon.get(path).content for path in paths]
    assert database == python
    assert b'"data":[' in database[0]
    assert database[3].startswith(b'{"id":')
