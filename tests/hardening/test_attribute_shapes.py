"""`attributes` of product and variant writes: the documented shape is accepted, every other
shape is refused with 422 `invalid_shape` naming the field, and nothing changes."""

import pytest

from store.catalog.models import Product, Variant
from tests.hardening.helpers import STORE, store_error
from tests.store.catalog.factories import AttributeFactory, TermFactory, make_product, make_variant

pytestmark = pytest.mark.django_db


@pytest.fixture
def colour():
    attribute = AttributeFactory(name="Colour", slug="colour")
    return attribute, TermFactory(attribute=attribute, slug="red"), TermFactory(attribute=attribute)


def unexpected_product_shapes(attribute, red):
    a, t = attribute.pk, red.pk
    return [
        [a, t],  # a list of ids
        {"colour": ["red"]},  # an object keyed by slug
        {str(a): [t]},  # an object keyed by id
        [[a, t]],  # rows of attribute/term pairs
        [{"attribute": a, "term": t}],  # rows of other keys
        [{"attribute_id": a, "term_id": t}],  # the variant shape
        [{"attribute_id": a}],  # a row lacking term_ids
        [{"attribute_id": a, "term_ids": [{"id": t}]}],  # term objects
        [{"attribute_id": {"id": a}, "term_ids": [t]}],  # an attribute object
        [{"attribute_id": a, "term_ids": t}],  # term_ids not a list
        [{"attribute_id": str(a), "term_ids": [t]}],  # a string id
        [{"attribute_id": True, "term_ids": [t]}],  # a boolean
        [{"id": a, "name": "Colour", "terms": [{"id": t, "slug": "red"}]}],  # a read-back
        [None],
        "colour",
        7,
    ]


def test_every_unexpected_shape_is_422_naming_attributes_and_changes_nothing(
    manager_client, colour
):
    attribute, red, _blue = colour
    product = make_product(title="Lamp")
    product.attribute_terms.add(red)
    for shape in unexpected_product_shapes(attribute, red):
        for method in ("patch", "put"):
            response = getattr(manager_client, method)(
                f"{STORE}/products/{product.pk}",
                {"title": "Changed", "attributes": shape},
                format="json",
            )
            body = store_error(response, 422, "invalid_shape")
            assert set(body["data"]["params"]) == {"attributes"}, (shape, body)
            assert body["message"].startswith("attributes"), body
    product.refresh_from_db()
    assert product.title == "Lamp"
    assert list(product.attribute_terms.all()) == [red]


def test_an_unexpected_shape_on_create_is_422_and_creates_nothing(manager_client, colour):
    response = manager_client.post(
        f"{STORE}/products",
        {"title": "Lamp", "attributes": {"colour": ["red"]}},
        format="json",
    )
    store_error(response, 422, "invalid_shape")
    assert not Product.objects.exists()


def test_the_documented_shape_is_accepted_and_an_empty_list_clears(manager_client, colour):
    attribute, red, blue = colour
    product = make_product(title="Lamp")
    documented = [{"attribute_id": attribute.pk, "term_ids": [red.pk, blue.pk]}]
    response = manager_client.patch(
        f"{STORE}/products/{product.pk}", {"attributes": documented}, format="json"
    )
    assert response.status_code == 200, response.content
    [row] = response.json()["attributes"]
    assert row["id"] == attribute.pk
    assert sorted(term["id"] for term in row["terms"]) == sorted([red.pk, blue.pk])
    # Extra keys in a row are ignored, like unknown body fields of catalog writes.
    response = manager_client.patch(
        f"{STORE}/products/{product.pk}",
        {"attributes": [{"attribute_id": attribute.pk, "term_ids": [red.pk], "name": "x"}]},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert set(product.attribute_terms.all()) == {red}
    response = manager_client.patch(
        f"{STORE}/products/{product.pk}", {"attributes": []}, format="json"
    )
    assert response.status_code == 200, response.content
    assert not product.attribute_terms.exists()


def test_right_shape_wrong_values_stay_400_invalid_param(manager_client, colour):
    attribute, red, _blue = colour
    product = make_product(title="Lamp")
    for attributes in (
        [{"attribute_id": 0, "term_ids": [red.pk]}],
        [{"attribute_id": attribute.pk, "term_ids": []}],
        [{"attribute_id": attribute.pk + 1000, "term_ids": [red.pk]}],
    ):
        response = manager_client.patch(
            f"{STORE}/products/{product.pk}", {"attributes": attributes}, format="json"
        )
        assert response.status_code == 400, (attributes, response.content)
    assert not product.attribute_terms.exists()


def test_variant_attributes_refuse_other_shapes_too(manager_client, colour):
    attribute, red, blue = colour
    product = make_product(title="Shirt", type="variable")
    variant = make_variant(product, red, sku="SHIRT-R")
    for shape in (
        [{"attribute": attribute.pk, "term": blue.pk}],
        [{"attribute_id": attribute.pk, "term_ids": [blue.pk]}],
        {"colour": "blue"},
        [blue.pk],
    ):
        response = manager_client.patch(
            f"{STORE}/variants/{variant.pk}", {"attributes": shape}, format="json"
        )
        body = store_error(response, 422, "invalid_shape")
        assert set(body["data"]["params"]) == {"attributes"}
    assert [
        link.term_id for link in Variant.objects.get(pk=variant.pk).variant_attributes.all()
    ] == [red.pk]


def test_the_description_documents_the_422(manager_client):
    from store.docs.schema import store_schema_document

    paths = store_schema_document()["paths"]
    for path, method in (("/products/{product_id}", "patch"), ("/products", "post")):
        assert "422" in paths[path][method]["responses"], (path, method)
    # A body without shape-checked rows has no 422, unless it is a POST (Idempotency-Key).
    assert "422" not in paths["/categories/{category_id}"]["patch"]["responses"]
