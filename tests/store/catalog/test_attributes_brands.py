import pytest

from store.catalog.models import Attribute, AttributeTerm, Brand
from tests.fixtures.store import API, error
from tests.store.catalog.factories import (
    AttributeFactory,
    BrandFactory,
    TermFactory,
    make_product,
    make_variant,
)
from tests.store.media.factories import media_row

pytestmark = pytest.mark.django_db


def test_attribute_crud(manager_client, anon):
    body = manager_client.post(
        f"{API}/attributes", {"name": "Colour", "type": "color"}, format="json"
    ).json()
    assert (body["slug"], body["type"], body["terms_count"]) == ("colour", "color", 0)
    assert [a["id"] for a in anon.get(f"{API}/attributes").json()["data"]] == [body["id"]]
    assert anon.get(f"{API}/attributes/{body['id']}").json()["name"] == "Colour"
    patched = manager_client.patch(
        f"{API}/attributes/{body['id']}", {"name": "Color", "slug": "color"}, format="json"
    ).json()
    assert (patched["name"], patched["slug"]) == ("Color", "color")
    assert manager_client.delete(f"{API}/attributes/{body['id']}").status_code == 204
    error(anon.get(f"{API}/attributes/{body['id']}"), 404, "attribute_not_found")


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({"name": "X", "slug": "Has Spaces"}, "invalid_param"),
        ({"name": "X", "slug": "taken"}, "duplicate_slug"),
        ({"name": "X", "type": "slider"}, "invalid_param"),
        ({}, "invalid_param"),
    ],
)
def test_invalid_attributes(manager_client, payload, code):
    AttributeFactory(slug="taken")
    error(manager_client.post(f"{API}/attributes", payload, format="json"), 400, code)
    assert Attribute.objects.count() == 1


def test_terms_crud(manager_client, anon):
    colour = AttributeFactory()
    body = manager_client.post(
        f"{API}/attributes/{colour.pk}/terms",
        {"name": "Dark red", "value": "#8b0000"},
        format="json",
    ).json()
    assert (body["slug"], body["value"], body["attribute_id"], body["count"]) == (
        "dark-red",
        "#8b0000",
        colour.pk,
        0,
    )
    assert [t["id"] for t in anon.get(f"{API}/attributes/{colour.pk}/terms").json()["data"]] == [
        body["id"]
    ]
    assert anon.get(f"{API}/attributes/terms/{body['id']}").json()["name"] == "Dark red"
    assert (
        manager_client.patch(
            f"{API}/attributes/terms/{body['id']}", {"name": "Maroon"}, format="json"
        ).json()["name"]
        == "Maroon"
    )
    error(
        manager_client.post(
            f"{API}/attributes/{colour.pk}/terms", {"name": "X", "slug": "dark-red"}, format="json"
        ),
        400,
        "duplicate_slug",
    )
    # The same slug in another attribute is fine.
    other = AttributeFactory()
    assert (
        manager_client.post(
            f"{API}/attributes/{other.pk}/terms", {"name": "X", "slug": "dark-red"}, format="json"
        ).status_code
        == 201
    )
    assert manager_client.delete(f"{API}/attributes/terms/{body['id']}").status_code == 204
    error(anon.get(f"{API}/attributes/terms/{body['id']}"), 404, "term_not_found")
    error(
        manager_client.post(f"{API}/attributes/999/terms", {"name": "X"}, format="json"),
        404,
        "attribute_not_found",
    )


def test_attributes_with_terms(anon):
    colour = AttributeFactory(name="Colour", sort_order=0)
    size = AttributeFactory(name="Size", sort_order=1)
    TermFactory(attribute=colour, name="Red", sort_order=1)
    TermFactory(attribute=colour, name="Blue", sort_order=0)
    TermFactory(attribute=size, name="M")
    body = anon.get(f"{API}/attributes-with-terms").json()
    assert [(a["name"], [t["name"] for t in a["terms"]]) for a in body["data"]] == [
        ("Colour", ["Blue", "Red"]),
        ("Size", ["M"]),
    ]


def test_attributes_and_terms_used_by_variants_cannot_be_deleted(manager_client):
    colour = AttributeFactory()
    red = TermFactory(attribute=colour)
    shirt = make_product(title="Shirt", type="variable")
    make_variant(shirt, red)
    error(manager_client.delete(f"{API}/attributes/terms/{red.pk}"), 409, "term_in_use")
    error(manager_client.delete(f"{API}/attributes/{colour.pk}"), 409, "attribute_in_use")
    assert AttributeTerm.objects.filter(pk=red.pk).exists()


def test_brand_crud(manager_client, anon):
    logo = media_row()
    body = manager_client.post(
        f"{API}/brands",
        {"name": "Lumen", "website": "https://lumen.example.com", "logo_id": logo.pk},
        format="json",
    ).json()
    assert (body["slug"], body["logo"]["id"], body["count"]) == ("lumen", logo.pk, 0)
    listed = anon.get(f"{API}/brands").json()
    assert [b["id"] for b in listed["data"]] == [body["id"]]
    assert listed["meta"]["total"] == 1
    assert anon.get(f"{API}/brands/{body['id']}").json()["website"] == "https://lumen.example.com"
    assert (
        manager_client.patch(f"{API}/brands/{body['id']}", {"name": "Lux"}, format="json").json()[
            "name"
        ]
        == "Lux"
    )
    error(
        manager_client.post(f"{API}/brands", {"name": "X", "website": "not a url"}, format="json"),
        400,
    )
    error(
        manager_client.post(f"{API}/brands", {"name": "X", "slug": "lumen"}, format="json"),
        400,
        "duplicate_slug",
    )


def test_deleting_a_brand_keeps_its_products(manager_client):
    brand = BrandFactory()
    product = make_product(title="Lamp", brand=brand.pk)
    assert manager_client.delete(f"{API}/brands/{brand.pk}").status_code == 204
    product.refresh_from_db()
    assert product.brand_id is None
    error(manager_client.delete(f"{API}/brands/{brand.pk}"), 404, "brand_not_found")


def test_brand_search_ranks_names_starting_with_the_term_first(anon):
    BrandFactory(name="Ultralux", slug="ultralux")
    BrandFactory(name="Lux", slug="lux")
    BrandFactory(name="Luxor", slug="luxor")
    BrandFactory(name="Acme", slug="acme")
    body = anon.get(f"{API}/brands/search", {"q": "lux"}).json()
    assert [b["name"] for b in body["data"]] == ["Lux", "Luxor", "Ultralux"]
    assert len(anon.get(f"{API}/brands/search", {"q": "lux", "per_page": 1}).json()["data"]) == 1
    error(anon.get(f"{API}/brands/search"), 400, "invalid_param")


def test_brand_and_attribute_writes_need_the_capability(anon, customer_client):
    brand = BrandFactory(name="Lumen")
    colour = AttributeFactory(name="Colour")
    for client, status in ((anon, 401), (customer_client, 403)):
        error(client.post(f"{API}/brands", {"name": "X"}, format="json"), status)
        error(client.delete(f"{API}/brands/{brand.pk}"), status)
        error(client.post(f"{API}/attributes", {"name": "X"}, format="json"), status)
        error(
            client.post(f"{API}/attributes/{colour.pk}/terms", {"name": "X"}, format="json"), status
        )
        error(client.delete(f"{API}/attributes/{colour.pk}"), status)
    assert list(Brand.objects.values_list("name", flat=True)) == ["Lumen"]
    assert list(Attribute.objects.values_list("name", flat=True)) == ["Colour"]
    assert not AttributeTerm.objects.exists()
