"""The catalog admin writes through the services: it refuses what the API refuses (as form
errors, saving nothing) and saves what the API would save, as the API would."""

from decimal import Decimal

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from store.catalog.models import (
    Attribute,
    AttributeTerm,
    Brand,
    Category,
    Product,
    Variant,
    VariantAttribute,
)
from tests.admin_forms import csrf_client, form_errors, form_values, post_action, post_form
from tests.fixtures.store import API
from tests.store.catalog.factories import (
    AttributeFactory,
    BrandFactory,
    CategoryFactory,
    TermFactory,
    make_product,
    make_variant,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(admin_user):
    return csrf_client(admin_user)


def change_url(obj) -> str:
    meta = obj._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])


def add_url(model) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


# --- Products -----------------------------------------------------------------------------------


def test_a_variable_product_with_variants_does_not_become_simple(browser):
    shirt = make_product(title="Shirt", type="variable")
    make_variant(shirt, TermFactory(), sku="SHIRT-S")
    response = post_form(browser, change_url(shirt), type="simple", title="Plain shirt")
    assert response.status_code == 200
    assert "This product has variants: delete them before making it a simple product." in (
        response.content.decode()
    )
    shirt.refresh_from_db()
    assert (shirt.type, shirt.title, shirt.variants.count()) == ("variable", "Shirt", 1)


def test_a_variable_product_without_variants_may_become_simple(browser):
    shirt = make_product(title="Shirt", type="variable")
    response = post_form(browser, change_url(shirt), type="simple")
    assert response.status_code == 302, form_errors(response)
    shirt.refresh_from_db()
    assert shirt.type == "simple"


def test_a_simple_product_gets_no_variants(browser):
    lamp = make_product(title="Lamp")
    response = post_form(
        browser,
        change_url(lamp),
        **{
            "variants-TOTAL_FORMS": "1",
            "variants-0-title": "Big lamp",
            "variants-0-regular_price": "12.00",
            "variants-0-stock_status": "in_stock",
            "variants-0-enabled": "on",
            "variants-0-sort_order": "0",
            "variants-0-stock_quantity": "0",
        },
    )
    assert response.status_code == 200
    assert "Only variable products have variants" in response.content.decode()
    assert not Variant.objects.exists()


def test_a_taken_sku_or_a_bad_barcode_is_refused_as_the_api_refuses_it(browser):
    make_product(title="Mug", sku="MUG-1")
    lamp = make_product(title="Lamp")
    response = post_form(browser, change_url(lamp), sku="MUG-1", ean="4006381333932")
    html = response.content.decode()
    assert response.status_code == 200
    assert "SKU &#x27;MUG-1&#x27; is already used by another product or variant." in html
    response = post_form(browser, change_url(lamp), ean="4006381333930")
    assert response.status_code == 200
    assert "The check digit is wrong." in response.content.decode()
    lamp.refresh_from_db()
    assert (lamp.sku, lamp.ean) == ("", "")


def test_adding_a_product_goes_through_the_service(browser):
    category = CategoryFactory()
    colour = AttributeFactory(name="Colour")
    red, blue = TermFactory(attribute=colour), TermFactory(attribute=colour)
    values = form_values(browser, add_url(Product))
    values.update(
        title="Desk lamp",
        slug="",
        regular_price="30.00",
        sale_price="25.00",
        track_inventory="on",
        stock_quantity="7",
        categories=[str(category.pk)],
        attribute_terms=[str(red.pk), str(blue.pk)],
    )
    response = browser.post(add_url(Product), values)
    assert response.status_code == 302, form_errors(response)
    lamp = Product.objects.get()
    assert (lamp.slug, lamp.price, lamp.on_sale, lamp.stock_quantity) == (
        "desk-lamp",  # made by the service, as for the API
        Decimal("25.00"),
        True,
        7,
    )
    assert list(lamp.categories.all()) == [category]
    assert set(lamp.attribute_terms.all()) == {red, blue}


def test_a_new_variant_inline_takes_the_products_price(browser):
    shirt = make_product(title="Shirt", type="variable", regular_price="20.00")
    response = post_form(
        browser,
        change_url(shirt),
        **{
            "variants-TOTAL_FORMS": "1",
            "variants-0-title": "",
            "variants-0-regular_price": "",
            "variants-0-stock_status": "in_stock",
            "variants-0-enabled": "on",
            "variants-0-sort_order": "0",
            "variants-0-stock_quantity": "3",
            "variants-0-track_inventory": "on",
        },
    )
    assert response.status_code == 302, form_errors(response)
    variant = Variant.objects.get()
    assert (variant.regular_price, variant.title, variant.stock_quantity) == (
        Decimal("20.00"),
        "Shirt",
        3,
    )
    shirt.refresh_from_db()
    assert (shirt.price, shirt.stock_quantity) == (Decimal("20.00"), 3)


def test_publishing_goes_through_the_service(browser):
    lamp = make_product(title="Lamp", status="draft")
    response = post_action(
        browser, reverse("admin:store_catalog_product_changelist"), "publish", [lamp.pk]
    )
    assert "1 product(s) set to active." in messages_of(response)
    lamp.refresh_from_db()
    assert lamp.status == "active"


# --- Variants -----------------------------------------------------------------------------------


def test_a_variants_attributes_are_checked_like_the_api_checks_them(browser):
    shirt = make_product(title="Shirt", type="variable")
    colour, size = AttributeFactory(name="Colour"), AttributeFactory(name="Size")
    red, blue, small = (
        TermFactory(attribute=colour, name="Red"),
        TermFactory(attribute=colour, name="Blue"),
        TermFactory(attribute=size, name="S"),
    )
    make_variant(shirt, red, small, sku="RED-S")
    other = make_variant(shirt, blue, small, sku="BLUE-S")
    url = change_url(other)
    response = post_form(browser, url, terms=[str(red.pk), str(blue.pk)])
    assert response.status_code == 200
    assert "Each attribute at most once." in response.content.decode()
    response = post_form(browser, url, terms=[str(red.pk), str(small.pk)])
    assert response.status_code == 200
    assert "Another variant of this product has the same attributes." in (response.content.decode())
    assert set(other.attribute_terms.all()) == {blue, small}
    large = TermFactory(attribute=size, name="L")
    response = post_form(browser, url, terms=[str(blue.pk), str(large.pk)])
    assert response.status_code == 302, form_errors(response)
    assert set(VariantAttribute.objects.filter(variant=other).values_list("term", flat=True)) == {
        blue.pk,
        large.pk,
    }
    assert large in shirt.attribute_terms.all()  # a variant's terms are also the product's


def test_adding_a_variant_on_its_own_page_needs_a_variable_product(browser):
    lamp = make_product(title="Lamp")
    values = form_values(browser, add_url(Variant))
    values.update(product=str(lamp.pk), title="Big", regular_price="5.00", sort_order="0")
    response = browser.post(add_url(Variant), values)
    assert response.status_code == 200
    assert "Only variable products have variants" in response.content.decode()
    assert not Variant.objects.exists()


SALE_PRICE_CASES = [
    # (regular, sale, the refusal or None)
    ("10.00", "10.00", "The sale price must be lower than the regular price."),
    ("10.00", "12.00", "The sale price must be lower than the regular price."),
    ("", "5.00", "A sale price needs a regular price."),
    ("10.00", "9.99", None),
]


@pytest.mark.parametrize(("regular", "sale", "refusal"), SALE_PRICE_CASES)
def test_the_one_sale_price_rule_at_every_door(browser, manager_client, regular, sale, refusal):
    """The API's product and variant writes and the admin's product and variant forms refuse
    the same sale prices, with the same words (store.catalog.rules.sale_price_problem)."""
    lamp = make_product(title="Lamp", regular_price="20.00")
    shirt = make_product(title="Shirt", type="variable", regular_price="20.00")
    variant = make_variant(shirt, TermFactory(), sku="SHIRT-1", regular_price="20.00")
    body = {"regular_price": regular or None, "sale_price": sale}
    doors = {
        "product API": manager_client.patch(f"{API}/products/{lamp.pk}", body, format="json"),
        "variant API": manager_client.patch(f"{API}/variants/{variant.pk}", body, format="json"),
        "product admin": post_form(
            browser, change_url(lamp), regular_price=regular, sale_price=sale
        ),
        "variant admin": post_form(
            browser, change_url(variant), regular_price=regular, sale_price=sale
        ),
    }
    for door, response in doors.items():
        if refusal is None:
            assert response.status_code in (200, 302), (door, response.content[:2000])
        elif "API" in door:
            assert response.status_code == 400, door
            assert response.json()["data"]["params"] == {"sale_price": refusal}, door
        else:
            assert response.status_code == 200, door
            assert refusal in response.content.decode(), door
    lamp.refresh_from_db()
    variant.refresh_from_db()
    if refusal is None:
        assert (lamp.price, lamp.on_sale, variant.price, variant.on_sale) == (
            Decimal(sale),
            True,
            Decimal(sale),
            True,
        )
    else:
        assert (lamp.sale_price, lamp.regular_price) == (None, Decimal("20.00"))
        assert (variant.sale_price, variant.regular_price) == (None, Decimal("20.00"))


# --- Categories, brands, attributes -------------------------------------------------------------


def test_deleting_a_category_moves_its_children_up(browser):
    top = CategoryFactory(name="Top")
    middle = CategoryFactory(name="Middle", parent=top)
    child = CategoryFactory(name="Child", parent=middle)
    delete = reverse("admin:store_catalog_category_delete", args=[middle.pk])
    assert post_form(browser, delete).status_code == 302
    child.refresh_from_db()
    assert child.parent_id == top.pk  # the service's rule (the model alone would orphan it)
    assert not Category.objects.filter(pk=middle.pk).exists()


def test_a_brand_logo_and_slug_are_checked_by_the_service(browser):
    BrandFactory(slug="acme")
    values = form_values(browser, add_url(Brand))
    values.update(name="Acme", slug="acme")
    response = browser.post(add_url(Brand), values)
    assert response.status_code == 200
    assert Brand.objects.count() == 1
    values.update(slug="")
    response = browser.post(add_url(Brand), values)
    assert response.status_code == 302, form_errors(response)
    assert Brand.objects.get(name="Acme").slug == "acme-2"


def test_an_attribute_in_use_is_not_deleted(browser):
    shirt = make_product(title="Shirt", type="variable")
    colour = AttributeFactory(name="Colour")
    make_variant(shirt, TermFactory(attribute=colour))
    response = post_action(
        browser,
        reverse("admin:store_catalog_attribute_changelist"),
        "delete_selected",
        [colour.pk],
        post="yes",
    )
    assert response.status_code in (200, 302)
    assert Attribute.objects.filter(pk=colour.pk).exists()


def test_terms_added_with_their_attribute_get_their_slugs_from_the_service(browser):
    values = form_values(browser, add_url(Attribute))
    values.update(
        {
            "name": "Size",
            "slug": "size",
            "terms-TOTAL_FORMS": "2",
            "terms-0-name": "Small",
            "terms-0-slug": "",
            "terms-0-sort_order": "0",
            "terms-1-name": "Large",
            "terms-1-slug": "large",
            "terms-1-sort_order": "1",
        }
    )
    response = browser.post(add_url(Attribute), values)
    assert response.status_code == 302, form_errors(response)
    assert sorted(AttributeTerm.objects.values_list("name", "slug")) == [
        ("Large", "large"),
        ("Small", "small"),
    ]
