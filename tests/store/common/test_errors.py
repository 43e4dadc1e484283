"""The store's error style: {code, message, data: {status}}, 400 naming bad parameters."""

import pytest
from django.test import Client

from common.api.errors import style_for_path
from store.common.errors import StoreErrorStyle
from tests.fixtures.store import API, error

pytestmark = pytest.mark.django_db


def test_the_store_style_is_registered_for_the_rest_root():
    assert isinstance(style_for_path("/rest/ec/v1/products"), StoreErrorStyle)
    assert isinstance(style_for_path("/rest/theme/v1/anything"), StoreErrorStyle)
    assert not isinstance(style_for_path("/api/v1/portal/auth/me"), StoreErrorStyle)


@pytest.mark.parametrize("debug", [False, True])
def test_unknown_store_routes_answer_a_store_style_404(settings, debug):
    settings.DEBUG = debug
    response = Client().get(f"{API}/no-such-thing")
    body = error(response, 404, "no_route")
    assert body["message"] == f"No route matches GET {API}/no-such-thing."
    assert response["Content-Type"].startswith("application/json")


def test_a_missing_product_is_product_not_found(anon):
    body = error(anon.get(f"{API}/products/424242"), 404, "product_not_found")
    assert body == {
        "code": "product_not_found",
        "message": "No product with id 424242.",
        "data": {"status": 404},
    }


def test_invalid_parameters_are_400_and_each_is_named(anon):
    body = error(
        anon.get(f"{API}/products", {"per_page": "lots", "status": "gone", "page": "0"}),
        400,
        "invalid_param",
    )
    assert set(body["data"]["params"]) == {"per_page", "status", "page"}
    assert body["data"]["params"]["per_page"] == "A valid integer is required."
    assert "per_page" in body["message"]


def test_one_invalid_parameter_is_named_in_the_message(anon):
    body = error(anon.get(f"{API}/products", {"on_sale": "perhaps"}), 400, "invalid_param")
    assert body["message"].startswith("on_sale:")
    assert body["data"]["params"] == {"on_sale": "Must be a valid boolean."}


def test_malformed_json_is_400(admin_client_api):
    response = admin_client_api.generic(
        "POST", f"{API}/products", "{not json", content_type="application/json"
    )
    error(response, 400, "parse_error")


def test_form_encoded_bodies_are_415(admin_client_api):
    response = admin_client_api.generic(
        "POST", f"{API}/products", "title=x", content_type="application/x-www-form-urlencoded"
    )
    error(response, 415, "unsupported_media_type")


def test_a_body_without_content_type_is_415(admin_client_api):
    response = admin_client_api.generic(
        "POST", f"{API}/products", b'{"title": "x"}', content_type=""
    )
    error(response, 415, "unsupported_media_type")


def test_a_json_array_body_is_refused(admin_client_api):
    response = admin_client_api.post(f"{API}/products", [1, 2], format="json")
    body = error(response, 400, "invalid_param")
    assert "body" in body["data"]["params"]


def test_wrong_method_is_405_in_store_style(anon):
    error(anon.delete(f"{API}/search"), 405, "method_not_allowed")


def test_login_needed_is_401_and_a_missing_capability_403(anon, customer_client):
    error(anon.post(f"{API}/products", {"title": "x"}, format="json"), 401, "not_logged_in")
    body = error(
        customer_client.post(f"{API}/products", {"title": "x"}, format="json"),
        403,
        "insufficient_capability",
    )
    assert "ec_manage_products" in body["message"]


def test_store_errors_have_no_trailing_slash_redirects(anon):
    error(anon.get(f"{API}/products/"), 404, "no_route")
