"""Unmatched routes under /api/ and /rest/ answer the namespace's JSON 404 to every method,
through a client that enforces CSRF (never Django's HTML "CSRF verification failed" 403)."""

import json

import pytest
from django.test import RequestFactory

from common.api.parsers import JSONParser, MultiPartParser
from common.views import csrf_failure
from tests.accounts.factories import UserFactory
from tests.hardening.helpers import (
    PORTAL,
    STORE,
    api_routes,
    csrf_client,
    portal_error,
    store_error,
)

pytestmark = pytest.mark.django_db

UNSAFE = ("post", "put", "patch", "delete")

PORTAL_PATHS = [
    f"{PORTAL}/portal/nothing-here",
    f"{PORTAL}/portal/licenses/",  # trailing slash
    f"{PORTAL}/portal/licenses/abc",  # non-numeric id
    f"{PORTAL}/portal/api-keys/1.5",
    f"{PORTAL}/portal/webhooks/null,null/test",
    "/api/v2/anything",
]
STORE_PATHS = [
    f"{STORE}/nothing-here",
    f"{STORE}/products/",  # trailing slash
    f"{STORE}/products/abc",  # non-numeric id
    f"{STORE}/products/-1",
    f"{STORE}/orders/1e3/notes",
    "/rest/other/v1/anything",
]


def _send(client, method, path):
    return getattr(client, method)(path, data='{"a": 1}', content_type="application/json")


@pytest.mark.parametrize("method", UNSAFE)
@pytest.mark.parametrize("path", PORTAL_PATHS)
def test_an_unsafe_method_to_an_unknown_portal_route_is_a_json_404(method, path):
    portal_error(_send(csrf_client(), method, path), 404, "no_route")


@pytest.mark.parametrize("method", UNSAFE)
@pytest.mark.parametrize("path", STORE_PATHS)
def test_an_unsafe_method_to_an_unknown_store_route_is_a_json_404(method, path):
    store_error(_send(csrf_client(), method, path), 404, "no_route")


def test_a_logged_in_browser_session_gets_the_json_404_too():
    """A session cookie (the admin's) without a CSRF token: still the namespace's 404."""
    client = csrf_client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    store_error(_send(client, "post", f"{STORE}/products/"), 404, "no_route")
    portal_error(_send(client, "delete", f"{PORTAL}/portal/licenses/x"), 404, "no_route")


def test_safe_methods_to_unknown_routes_are_json_404s():
    client = csrf_client()
    portal_error(client.get(f"{PORTAL}/portal/licenses/"), 404, "no_route")
    store_error(client.get(f"{STORE}/products/abc"), 404, "no_route")


def test_outside_the_apis_django_still_checks_csrf():
    response = csrf_client().post("/admin/login/", {"username": "a", "password": "b"})
    assert response.status_code == 403
    assert response["Content-Type"].startswith("text/html")


def test_a_refused_csrf_check_under_an_api_prefix_answers_json():
    factory = RequestFactory()
    response = csrf_failure(factory.post(f"{STORE}/anything"), reason="CSRF cookie not set.")
    assert response.status_code == 403
    assert json.loads(response.content)["code"] == "csrf_failed"
    response = csrf_failure(factory.post(f"{PORTAL}/anything"), reason="CSRF cookie not set.")
    assert json.loads(response.content)["code"] == "csrf_failed"
    html = csrf_failure(factory.post("/admin/login/"), reason="CSRF cookie not set.")
    assert html["Content-Type"].startswith("text/html")


def test_every_api_view_is_exempt_from_csrf_and_parses_with_the_shared_parsers():
    """New routes copy these rules: no HTML 403 from CSRF, and every body through one loader."""
    routes = api_routes()
    assert len(routes) > 80
    for route, pattern in routes:
        callback = pattern.callback
        assert getattr(callback, "csrf_exempt", False), route
        view = getattr(callback, "cls", None)
        if view is None:
            continue
        for parser in view().get_parsers():
            assert isinstance(parser, (JSONParser, MultiPartParser)), (route, parser)
