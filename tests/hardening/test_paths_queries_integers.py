"""Paths, query strings and integers: text no database can store and integers beyond their
column are refused with a 4xx in the namespace's error shape, never a 500 (SQLite and
PostgreSQL alike: the CI runs this file on both)."""

import pytest
from django.urls.converters import get_converters

from common.api.fields import BIGINT_MAX, COLUMN_RANGES, IdPathConverter
from store.catalog.models import Product
from store.coupons.models import Coupon
from tests.accounts.factories import UserFactory
from tests.hardening.helpers import PORTAL, STORE, api_routes, portal_error, store_error
from tests.store.catalog.factories import AttributeFactory, TermFactory, make_product
from tests.store.coupons.factories import make_coupon

pytestmark = pytest.mark.django_db

INT_MAX = COLUMN_RANGES["IntegerField"][1]
HUGE = "99999999999999999999"  # beyond bigint


# --- NUL characters and surrogates in paths and query strings -----------------------------------


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("attr_color=%00", "attr_color"),
        ("attr_color=red%00", "attr_color"),
        ("q=%00", "q"),
        ("category=shoes%00", "category"),
        ("unknown=%00", "unknown"),
        ("a%00b=1", "a\\x00b"),
    ],
)
def test_a_nul_in_a_store_query_parameter_is_400_naming_it(anon, query, param):
    AttributeFactory(slug="color")
    response = anon.get(f"{STORE}/products?{query}")
    body = store_error(response, 400, "invalid_param")
    assert param in body["data"]["params"], body


def test_a_nul_in_a_store_path_segment_is_a_store_404(anon, manager_client):
    make_product(title="Lamp", slug="lamp")
    store_error(anon.get(f"{STORE}/products/slug/%00"), 404)
    store_error(anon.get(f"{STORE}/products/slug/lamp%00"), 404)
    store_error(anon.get(f"{STORE}/brands/search?q=%00"), 400, "invalid_param")
    response = manager_client.patch(f"{STORE}/settings/%00", {}, format="json")
    store_error(response, 404)


def test_a_nul_in_a_portal_query_or_path_is_refused_in_the_portal_shape(client_for):
    client = client_for(UserFactory())
    body = portal_error(client.get(f"{PORTAL}/portal/licenses?status=%00"), 400, "invalid_param")
    assert set(body["errors"]) == {"status"}
    portal_error(client.get(f"{PORTAL}/downloads/abc%00def"), 404)


def test_other_text_in_query_strings_still_works(anon):
    make_product(title="Lamp café", slug="lamp")
    response = anon.get(f"{STORE}/products?q=caf%C3%A9")
    assert response.status_code == 200, response.content
    assert [item["slug"] for item in response.json()["data"]] == ["lamp"]


# --- Integers beyond the column -------------------------------------------------------------------


@pytest.mark.parametrize("limit", [INT_MAX + 1, 2**63, 10**30])
@pytest.mark.parametrize("field", ["usage_limit", "usage_limit_per_user"])
def test_a_coupon_limit_beyond_the_column_is_refused_on_create(manager_client, field, limit):
    body = {"code": "BIG", "discount_type": "percent", "amount": "10", field: limit}
    response = manager_client.post(f"{STORE}/admin/coupons", body, format="json")
    body = store_error(response, 400, "invalid_param")
    assert field in body["data"]["params"]
    assert not Coupon.objects.exists()


def test_a_coupon_limit_beyond_the_column_is_refused_on_update(manager_client):
    coupon = make_coupon(code="SAVE", usage_limit=5)
    for method in ("patch", "put"):
        response = getattr(manager_client, method)(
            f"{STORE}/admin/coupons/{coupon.pk}", {"usage_limit": INT_MAX + 1}, format="json"
        )
        assert "usage_limit" in store_error(response, 400, "invalid_param")["data"]["params"]
    coupon.refresh_from_db()
    assert coupon.usage_limit == 5


def test_the_largest_limit_the_column_holds_is_accepted(manager_client):
    body = {"code": "MAX", "discount_type": "percent", "amount": "10", "usage_limit": INT_MAX}
    response = manager_client.post(f"{STORE}/admin/coupons", body, format="json")
    assert response.status_code == 201, response.content
    assert Coupon.objects.get(code="MAX").usage_limit == INT_MAX


@pytest.mark.parametrize(
    "query",
    [
        f"page={HUGE}",
        f"brand_ids=1,{HUGE}",
        f"brand_ids={2**63}",
        f"brand_id={HUGE}",
        f"category_id={HUGE}",
        f"category_id={2**63}",
    ],
)
def test_huge_integers_in_store_query_parameters_are_400(anon, query):
    name = query.split("=")[0]
    body = store_error(anon.get(f"{STORE}/products?{query}"), 400, "invalid_param")
    assert name in body["data"]["params"]


def test_a_huge_per_page_is_capped_not_refused(anon):
    response = anon.get(f"{STORE}/products?per_page={HUGE}")
    assert response.status_code == 200, response.content
    assert response.json()["meta"]["per_page"] == 100


@pytest.mark.parametrize(
    "path",
    [
        f"/categories?parent={HUGE}",
        f"/reviews?product_id={HUGE}",
        f"/products/lookup?barcode=4006381333931&warehouse_id={HUGE}",
    ],
)
def test_huge_integers_in_other_query_parameters_are_400(manager_client, path):
    store_error(manager_client.get(f"{STORE}{path}"), 400, "invalid_param")


@pytest.mark.parametrize("product_id", [HUGE, str(2**63), "9" * 5000])
def test_a_huge_path_id_is_a_store_404_for_every_method(manager_client, product_id):
    product = make_product(title="Lamp")
    for method in ("get", "patch", "put", "delete"):
        response = getattr(manager_client, method)(
            f"{STORE}/products/{product_id}", {"title": "X"}, format="json"
        )
        store_error(response, 404)
    assert Product.objects.get(pk=product.pk).title == "Lamp"


def test_the_largest_bigint_path_id_is_a_plain_not_found(manager_client):
    response = manager_client.get(f"{STORE}/products/{BIGINT_MAX}")
    store_error(response, 404, "product_not_found")


def test_a_huge_path_id_is_a_portal_404(client_for):
    client = client_for(UserFactory())
    portal_error(client.get(f"{PORTAL}/portal/licenses/{HUGE}"), 404)
    portal_error(client.delete(f"{PORTAL}/portal/api-keys/{HUGE}"), 404)


@pytest.mark.parametrize(
    "attributes",
    [
        [{"attribute_id": 2**63, "term_ids": [1]}],
        [{"attribute_id": 1, "term_ids": [int(HUGE)]}],
    ],
)
def test_huge_ids_in_a_body_are_400(manager_client, attributes):
    product = make_product(title="Lamp")
    response = manager_client.patch(
        f"{STORE}/products/{product.pk}", {"attributes": attributes}, format="json"
    )
    store_error(response, 400, "invalid_param")


def test_a_huge_brand_reference_is_400(manager_client):
    product = make_product(title="Lamp")
    for brand in (int(HUGE), HUGE):
        response = manager_client.patch(
            f"{STORE}/products/{product.pk}", {"brand": brand}, format="json"
        )
        assert "brand" in store_error(response, 400, "invalid_param")["data"]["params"]


def test_a_huge_card_expiry_year_is_refused_not_stored():
    from store.checkout.api.serializers import CardDataInputSerializer

    serializer = CardDataInputSerializer(data={"exp_month": 1, "exp_year": 10**6})
    assert not serializer.is_valid()
    assert "exp_year" in serializer.errors


# --- The rules that keep it so ------------------------------------------------------------------


def test_the_id_converter_accepts_exactly_the_bigint_ids():
    converter = get_converters()["id"]
    assert isinstance(converter, IdPathConverter)
    assert converter.to_python("7") == 7
    assert converter.to_python(str(BIGINT_MAX)) == BIGINT_MAX
    for bad in ("0", str(BIGINT_MAX + 1), "0" * 30 + "1" + "0" * 19, "9" * 5000):
        with pytest.raises(ValueError, match="is not a row id"):
            converter.to_python(bad)


def test_no_api_route_takes_an_unbounded_int():
    routes = api_routes()
    assert len(routes) > 80
    offenders = [route for route, _ in routes if "<int:" in route]
    assert offenders == []


def _integer_schemas(node, where=""):
    if isinstance(node, dict):
        if node.get("type") == "integer":
            yield where, node
        for key, value in node.items():
            yield from _integer_schemas(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _integer_schemas(value, f"{where}/{index}")


def _request_integers(schema):
    """Every integer a client sends: parameters and request bodies (components they use)."""
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            for parameter in operation.get("parameters", []):
                yield from _integer_schemas(parameter, f"{method} {path} {parameter['name']}")
    for name, component in schema["components"]["schemas"].items():
        if name.endswith("Request") or name.startswith("Patched"):
            yield from _integer_schemas(component, name)


def _assert_bounded(schema):
    unbounded = [
        where
        for where, node in _request_integers(schema)
        if "maximum" not in node
        or "minimum" not in node
        or node["maximum"] > BIGINT_MAX
        or node["minimum"] < -BIGINT_MAX - 1
    ]
    assert unbounded == []


def test_every_integer_a_portal_client_sends_is_bounded(api_client):
    _assert_bounded(api_client.get(f"{PORTAL}/schema/?format=json").json())


def test_every_integer_a_store_client_sends_is_bounded():
    from store.docs.schema import store_schema_document

    schema = store_schema_document()
    assert any(True for _ in _request_integers(schema))
    _assert_bounded(schema)


def test_terms_are_untouched_by_refusals(manager_client):
    attribute = AttributeFactory()
    term = TermFactory(attribute=attribute)
    product = make_product(title="Lamp")
    response = manager_client.patch(
        f"{STORE}/products/{product.pk}",
        {"attributes": [{"attribute_id": attribute.pk, "term_ids": [term.pk, 2**63]}]},
        format="json",
    )
    store_error(response, 400, "invalid_param")
    assert not product.attribute_terms.exists()


def test_the_shared_integer_field_takes_its_columns_range_and_only_narrows_it():
    from common.api.fields import IdField, IntegerField, StrictIntegerField

    field = IntegerField()
    assert (field.min_value, field.max_value) == (-(2**31), INT_MAX)
    small = IntegerField(column="PositiveSmallIntegerField", min_value=-5, max_value=10**9)
    assert (small.min_value, small.max_value) == (0, 32767)
    assert (IdField().min_value, IdField().max_value) == (1, BIGINT_MAX)
    assert IdField(min_value=0).min_value == 0
    for bad in (True, 1.5, "x", INT_MAX + 1):
        assert not _valid(IntegerField(), bad), bad
    assert _valid(IntegerField(), "12")
    assert _valid(IntegerField(), 12.0)
    assert not _valid(StrictIntegerField(), "12")


def _valid(field, value) -> bool:
    from rest_framework import serializers

    try:
        field.run_validation(value)
    except serializers.ValidationError:
        return False
    return True
