import pytest
from django.test import Client

from tests.accounts.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.stand_in_urls")]

LOGIN = "/api/v1/portal/auth/login"


@pytest.fixture(params=[False, True], ids=["debug-off", "debug-on"])
def raw_client(request, settings):
    settings.DEBUG = request.param
    return Client(raise_request_exception=False)


def assert_portal_error(response, status, code=None):
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert isinstance(body["detail"], str)
    assert body["detail"]
    if code:
        assert body["code"] == code
    return body


def test_malformed_json_is_400(raw_client):
    response = raw_client.post(LOGIN, data="{not json", content_type="application/json")
    assert_portal_error(response, 400, "parse_error")


def test_wrong_content_type_is_415(raw_client):
    response = raw_client.post(
        LOGIN, data="email=a", content_type="application/x-www-form-urlencoded"
    )
    assert_portal_error(response, 415, "unsupported_media_type")
    response = raw_client.post(LOGIN, data="hello", content_type="text/plain")
    assert_portal_error(response, 415, "unsupported_media_type")


def test_body_without_content_type_is_415(raw_client):
    response = raw_client.generic("POST", LOGIN, data=b'{"email": "a@b.c"}', content_type="")
    assert_portal_error(response, 415, "unsupported_media_type")


def test_invalid_field_values_are_422_per_field(raw_client):
    response = raw_client.post(LOGIN, data={"email": 5}, content_type="application/json")
    body = assert_portal_error(response, 422, "invalid")
    assert body["errors"]["email"] == ["Enter a valid email address."]
    assert body["errors"]["password"] == ["This field is required."]


def test_a_json_body_that_is_not_an_object_is_refused(raw_client):
    response = raw_client.post(LOGIN, data=["a"], content_type="application/json")
    assert_portal_error(response, 422)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/nope",
        "/api/v1/portal/licenses/abc/xyz",
        "/api/whatever",
        "/api/v1/portal/auth/login/",
    ],
)
def test_unknown_routes_are_json_404(raw_client, path):
    assert_portal_error(raw_client.get(path), 404, "no_route")


def test_unknown_store_route_is_json_404(raw_client):
    response = raw_client.get("/rest/ec/v1/nothing-here")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")


def test_wrong_method_is_json_405(raw_client):
    response = raw_client.delete(LOGIN)
    assert_portal_error(response, 405, "method_not_allowed")
    assert "POST" in response["Allow"]


def test_crash_is_json_500_without_internals(raw_client):
    response = raw_client.get("/api/v1/portal/stand-in/crash")
    body = assert_portal_error(response, 500, "server_error")
    assert "boom" not in response.content.decode()
    assert "Traceback" not in response.content.decode()
    assert set(body) == {"detail", "code"}


def test_too_large_body_is_413(raw_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    response = raw_client.post(
        LOGIN,
        data={"email": "a@example.com", "password": "x" * 500},
        content_type="application/json",
    )
    assert_portal_error(response, 413, "request_too_large")


def test_accept_html_still_gets_json(raw_client):
    UserFactory(email="dev@example.com")
    response = raw_client.get("/api/v1/portal/auth/me", HTTP_ACCEPT="text/html")
    assert_portal_error(response, 401, "not_authenticated")


def test_admin_404_stays_html(settings):
    settings.DEBUG = False
    response = Client().get("/not-an-api-path")
    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")
