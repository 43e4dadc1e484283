"""The generated feeds: each marketplace's real format, validated against it (Skroutz: its
XSD; Google: the product data specification's rules), with skipped products reported."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest

from store.catalog.models import Product
from store.feeds import services, validation
from store.feeds.formats import GOOGLE_NS, clean, gtin_valid
from store.settings import services as settings_services
from store.tax.models import TaxRate
from tests.store.catalog.factories import (
    AttributeFactory,
    BrandFactory,
    CategoryFactory,
    TermFactory,
    make_product,
    make_variant,
)
from tests.store.feeds.conftest import (
    G,
    complete_product,
    enable,
    generated,
    google_items,
    with_gallery,
)
from tests.store.media.factories import media_row

pytestmark = pytest.mark.django_db


def content(marketplace: str) -> bytes:
    if not services.feed_ensure(marketplace).enabled:
        enable(marketplace)
    feed = services.generate(marketplace=marketplace)
    assert feed.status == "ready", feed.error
    return bytes(feed.file.content)


def test_google_feed_is_rss_with_the_g_namespace_and_validates():
    lamp = with_gallery(complete_product(sku="LAMP-1", ean="4006381333931", mpn="LMP-1"))
    enable("google", shipping_price="3.50", shipping_country="gr")
    body = content("google")
    assert body.startswith(b'<?xml version="1.0" encoding="utf-8"?>')
    assert validation.validate("google", body) == []
    root = ET.fromstring(body)  # noqa: S314
    assert root.tag == "rss"
    assert root.get("version") == "2.0"
    assert f'xmlns:g="{GOOGLE_NS}"'.encode() in body
    (item,) = google_items(root)
    expected = {
        "g:id": "LAMP-1",
        "title": "Desk lamp",
        "description": "A bright desk lamp.",  # HTML stripped
        "g:availability": "in_stock",
        "g:price": "12.50 EUR",
        "g:brand": "Lumen",
        "g:gtin": "4006381333931",
        "g:mpn": "LMP-1",
        "g:condition": "new",
        "g:product_type": "Lamps",
    }
    assert {name: item[name] for name in expected} == expected
    assert item["link"].endswith(f"/product/{lamp.slug}")
    assert item["link"].startswith("http")
    assert item["g:image_link"].startswith("http")
    assert len(item["g:additional_image_link"]) == 2
    shipping = item["g:shipping"]
    assert shipping.findtext(f"{G}country") == "GR"
    assert shipping.findtext(f"{G}price") == "3.50 EUR"


def test_google_sale_price_and_identifier_exists():
    complete_product(regular_price="20.00", sale_price="15.00")
    (item,) = google_items(generated("google"))
    assert (item["g:price"], item["g:sale_price"]) == ("20.00 EUR", "15.00 EUR")
    assert item["g:identifier_exists"] == "no"  # neither GTIN nor MPN
    assert item["g:id"] == str(item["g:id"])


def test_prices_include_the_store_countrys_tax_when_prices_are_entered_without_it():
    settings_services.settings_update(
        section="tax", values={"prices_include_tax": False, "enabled": True}
    )
    TaxRate.objects.filter(country="GR").delete()
    from store.tax.models import TaxClass

    standard = TaxClass.objects.get(slug="standard")
    TaxRate.objects.create(tax_class=standard, country="GR", rate=Decimal("24"), name="VAT")
    complete_product(regular_price="10.00")
    (item,) = google_items(generated("google"))
    assert item["g:price"] == "12.40 EUR"
    root = generated("skroutz")
    product = root.find("products/product")
    assert product.findtext("price_with_vat") == "12.40"
    assert product.findtext("vat") == "24.00"


def test_variants_are_items_grouped_by_item_group_id():
    size = AttributeFactory(slug="size", name="Size")
    small, large = TermFactory(attribute=size, name="S"), TermFactory(attribute=size, name="L")
    shirt = complete_product(title="Shirt", type="variable", sku="SHIRT")
    make_variant(shirt, small, sku="SHIRT-S", regular_price="10.00")
    make_variant(shirt, large, sku="SHIRT-L", regular_price="11.00")
    root = generated("google")
    assert validation.validate("google", ET.tostring(root)) == []
    items = google_items(root)
    assert {i["g:id"] for i in items} == {"SHIRT-S", "SHIRT-L"}
    assert {i["g:item_group_id"] for i in items} == {"SHIRT"}
    assert {i["g:size"] for i in items} == {"S", "L"}
    assert {i["g:price"] for i in items} == {"10.00 EUR", "11.00 EUR"}
    sk = generated("skroutz").find("products/product")
    assert sk.findtext("size") == "S, L"
    assert sk.findtext("price_with_vat") == "10.00"


def test_skroutz_feed_validates_against_its_xsd():
    category = CategoryFactory(name="Φωτιστικά", parent=CategoryFactory(name="Σπίτι"))
    complete_product(category=category, ean="4006381333931", mpn="X1", weight="1.25", sku="A")
    complete_product(title="Lamp & <shade>", category=category)
    root = generated("skroutz", availability_in_stock="Παράδοση σε 1 - 3 ημέρες")
    body = ET.tostring(root, encoding="utf-8")
    assert validation.validate("skroutz", body) == []
    assert root.tag == "mywebstore"
    assert root.findtext("created_at")
    first, second = root.findall("products/product")
    assert first.findtext("name") == "Desk lamp"
    assert first.find("category").get("id") == str(category.pk)
    assert first.findtext("category") == "Σπίτι > Φωτιστικά"
    assert first.findtext("price_with_vat") == "12.50"
    assert first.findtext("manufacturer") == "Lumen"
    assert first.findtext("ean") == "4006381333931"
    assert first.findtext("weight") == "1250"  # grams (the store's unit is kg)
    assert first.findtext("availability") == "Παράδοση σε 1 - 3 ημέρες"
    assert first.findtext("quantity") == "0"
    assert second.findtext("name") == "Lamp & <shade>"  # escaped, read back whole


def test_the_xsd_check_catches_a_broken_skroutz_feed():
    complete_product()
    body = content("skroutz")
    assert validation.validate("skroutz", body) == []
    root = ET.fromstring(body)  # noqa: S314
    product = root.find("products/product")
    product.remove(product.find("manufacturer"))
    product.find("price_with_vat").text = "12,50"
    product.find("category").attrib.pop("id")
    problems = validation.validate("skroutz", ET.tostring(root))
    text = " | ".join(problems)
    assert "/mywebstore/products/product: Unexpected child" in text
    assert "Tag 'manufacturer' expected" in text
    assert "/mywebstore/products/product/price_with_vat:" in text
    assert "/mywebstore/products/product/category: missing required attribute 'id'" in text
    root.find("products").append(ET.fromstring(ET.tostring(product)))  # noqa: S314
    assert any("repeated" in p for p in validation.validate("skroutz", ET.tostring(root)))
    assert validation.validate("skroutz", b"<mywebstore>") != []


def test_the_google_check_catches_a_broken_item():
    complete_product(ean="4006381333931")
    root = ET.fromstring(content("google"))  # noqa: S314
    item = root.find("channel/item")
    item.find(f"{G}price").text = "12.5 euros"
    item.find(f"{G}gtin").text = "4006381333932"
    item.remove(item.find("link"))
    item.find(f"{G}availability").text = "available"
    problems = " | ".join(validation.validate("google", ET.tostring(root)))
    for expected in ("link missing", "g:price is not like", "g:gtin", "g:availability"):
        assert expected in problems


def test_products_missing_required_attributes_are_skipped_and_reported():
    good = complete_product(sku="OK")
    no_image = complete_product(title="No image", featured_image_id=None)
    no_brand = make_product(
        title="No brand",
        description="x",
        featured_image_id=media_row().pk,
        category_ids=[CategoryFactory().pk],
    )
    bad_ean = complete_product(title="Bad EAN")
    # The catalog refuses a wrong check digit now; older rows (imports) may still hold one.
    Product.objects.filter(pk=bad_ean.pk).update(ean="4006381333932")
    enable("google")
    feed = services.generate(marketplace="google")
    assert feed.item_count == 1
    assert feed.skipped_count == 3
    by_id = {row["product_id"]: row for row in feed.skipped}
    assert by_id[no_image.pk]["missing"] == ["image_link"]
    assert by_id[no_brand.pk]["missing"] == ["brand"]
    assert by_id[bad_ean.pk]["missing"] == ["gtin"]
    assert good.pk not in by_id
    enable("skroutz")
    feed = services.generate(marketplace="skroutz")
    assert {row["product_id"]: row["missing"] for row in feed.skipped}[no_brand.pk] == [
        "manufacturer"
    ]


def test_a_repeated_google_id_is_skipped_not_a_broken_feed():
    complete_product(title="Simple", sku="DUP")
    shirt = complete_product(title="Shirt", type="variable", sku="SHIRT")
    size = AttributeFactory(slug="size", name="Size")
    make_variant(shirt, TermFactory(attribute=size, name="M"), sku="DUP-2", regular_price="9")
    # Product and variant SKUs are unique each in their own table: they can meet in g:id.
    Product.objects.filter(pk=shirt.pk).update(sku="")
    shirt.variants.update(sku="DUP")
    enable("google")
    feed = services.generate(marketplace="google")
    assert feed.status == "ready", feed.error
    assert feed.item_count == 1
    (skipped,) = feed.skipped
    assert skipped["missing"] == ["id"]
    assert skipped["variant_id"] == shirt.variants.get().pk


def test_out_of_stock_drafts_and_other_categories_are_left_out():
    lamps, mugs = CategoryFactory(name="Lamps"), CategoryFactory(name="Mugs")
    complete_product(title="Lamp", category=lamps)
    complete_product(title="Mug", category=mugs)
    complete_product(title="Draft", category=lamps, status="draft")
    gone = complete_product(title="Gone", category=lamps, track_inventory=True, stock_quantity=0)
    assert gone.stock_status == "out_of_stock"
    titles = {i["title"] for i in google_items(generated("google", category_ids=[lamps.pk]))}
    assert titles == {"Lamp"}
    root = generated("google", include_out_of_stock=True, category_ids=[])
    items = {i["title"]: i for i in google_items(root)}
    assert set(items) == {"Lamp", "Mug", "Gone"}
    assert items["Gone"]["g:availability"] == "out_of_stock"
    sk = generated("skroutz", include_out_of_stock=True)
    gone_row = next(p for p in sk.iter("product") if p.findtext("name") == "Gone")
    assert gone_row.findtext("availability") == "Κατόπιν παραγγελίας"


def test_illegal_xml_characters_are_dropped_and_text_escaped():
    complete_product(title="Bad\x01 \x07title\ufffe & <b>", description="line\x1b one")
    for marketplace in ("google", "skroutz"):
        enable(marketplace)
        body = content(marketplace)
        assert validation.validate(marketplace, body) == []
        assert b"\x01" not in body
        assert b"\x07" not in body
        assert b"Bad title &amp; &lt;b&gt;" in body


def test_clean_and_gtin_helpers():
    assert clean("a\ud800b\x0cc\x00  d") == "abc d"
    assert clean("x" * 10, limit=3) == "xxx"
    assert gtin_valid("4006381333931")
    assert not gtin_valid("4006381333932")
    assert not gtin_valid("12345")
    assert not gtin_valid("abcdefgh")


def test_the_mapping_names_each_marketplaces_category():
    parent = CategoryFactory(name="Home")
    child = CategoryFactory(name="Lamps", parent=parent)
    complete_product(category=child)
    services.mapping_set(marketplace="google", entries={str(parent.pk): "536"}, replace=True)
    services.mapping_set(
        marketplace="skroutz", entries={str(child.pk): "Σπίτι > Φωτισμός"}, replace=True
    )
    (item,) = google_items(generated("google"))
    assert item["g:google_product_category"] == "536"  # the closest mapped ancestor
    assert item["g:product_type"] == "Home > Lamps"
    product = generated("skroutz").find("products/product")
    assert product.findtext("category") == "Σπίτι > Φωτισμός"


def test_generation_is_idempotent_same_bytes_same_etag():
    complete_product()
    enable("google")
    first = services.generate(marketplace="google")
    etag, modified = first.file.etag, first.file.modified_at
    again = services.generate(marketplace="google")
    again.file.refresh_from_db()
    assert (again.file.etag, again.file.modified_at) == (etag, modified)
    assert again.generated_at >= first.generated_at


def test_skroutz_keeps_its_feed_and_created_at_while_the_catalog_is_the_same(monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    from store.feeds import formats

    complete_product()
    enable("skroutz")
    first = services.generate(marketplace="skroutz")
    body, etag = bytes(first.file.content), first.file.etag
    later = timezone.now() + timedelta(hours=2)
    monkeypatch.setattr(formats.timezone, "now", lambda: later)
    again = services.generate(marketplace="skroutz")
    again.file.refresh_from_db()
    assert again.file.etag == etag
    assert bytes(again.file.content) == body  # the old created_at stays with the same content
    complete_product(title="Another")
    changed = services.generate(marketplace="skroutz")
    changed.file.refresh_from_db()
    assert changed.file.etag != etag
    assert later.strftime("%Y-%m-%d %H:%M").encode() in bytes(changed.file.content)


def test_a_feed_that_fails_its_check_keeps_the_previous_one(monkeypatch):
    complete_product()
    enable("google")
    good = services.generate(marketplace="google")
    etag = good.file.etag
    monkeypatch.setattr(validation, "validate", lambda marketplace, body: ["broken on purpose"])
    failed = services.generate(marketplace="google")
    assert failed.status == "failed"
    assert "broken on purpose" in failed.error
    failed.file.refresh_from_db()
    assert failed.file.etag == etag


def test_generation_queries_do_not_grow_with_products(django_assert_max_num_queries, settings):
    brand, category = BrandFactory(), CategoryFactory()
    for n in range(3):
        complete_product(title=f"Lamp {n}", brand=brand, category=category)
    enable("google")
    enable("skroutz")
    for marketplace in ("google", "skroutz"):
        with django_assert_max_num_queries(30) as few:
            services.generate(marketplace=marketplace)
        small = len(few.captured_queries)
        for n in range(20):
            with_gallery(
                complete_product(title=f"More {marketplace} {n}", brand=brand, category=category), 1
            )
        with django_assert_max_num_queries(small):
            feed = services.generate(marketplace=marketplace)
        assert feed.item_count >= 23
