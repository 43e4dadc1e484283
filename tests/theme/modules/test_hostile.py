"""Every theme module route (walked from the URL resolver) takes hostile bodies, queries and
path values, from an administrator over HTTP Basic and from a guest, with CSRF enforced as a
browser-facing deployment does: a JSON refusal or its normal answer, never a 500, never
Django's HTML CSRF page. (The shared sweep of tests/hardening walks ec/v1 only.)"""

import pytest
from django.test import Client
from django.urls import get_resolver

from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.hardening.test_every_route import HOSTILE
from tests.store.access.test_permission_matrix import _url, _walk
from tests.store.catalog.factories import make_product
from tests.theme.modules.conftest import BASE

pytestmark = pytest.mark.django_db
PREFIX = "rest/theme/v1/"
METHODS = ("get", "post", "put", "patch", "delete")
MODULES = {
    "recently-viewed",
    "bundles",
    "points/",
    "promotions",
    "quotes",
    "products/names",
    "labels/product/",
    "b2b/groups",
    "b2b/my-group",
    "recover-cart/",
}


def operations():
    out = []
    for route, callback in _walk(get_resolver().url_patterns):
        if not route.startswith(PREFIX) or not callback.__module__.startswith("theme.modules"):
            continue
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        for method in METHODS:
            if callable(getattr(view, method, None)):
                out.append((route, method))
    return sorted(out)


OPERATIONS = operations()


def test_the_sweep_covers_every_module_route():
    routes = {route for route, _method in OPERATIONS}
    for group in MODULES:
        assert any(route.startswith(PREFIX + group) for route in routes), group


def _check(response, label):
    assert response.status_code < 500, (label, response.status_code, response.content[:300])
    if response.status_code not in (204, 304):
        assert response["Content-Type"].startswith("application/json"), (
            label,
            response["Content-Type"],
        )


@pytest.fixture
def callers(db):
    make_product(title="Lamp")
    admin = grant(UserFactory(email="hostile-modules@example.com"), "manage_options")
    return {
        "admin": Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=basic_auth(admin)),
        "guest": Client(enforce_csrf_checks=True),
    }


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_bodies_never_500(callers, kind):
    for who, client in callers.items():
        for route, method in OPERATIONS:
            if method == "get":
                continue
            response = getattr(client, method)(
                _url(route), HOSTILE[kind], content_type="application/json"
            )
            _check(response, f"{who} {method.upper()} {route} [{kind}]")


@pytest.mark.parametrize(
    "query",
    [
        "?ids=%00&page=%00&per_page=%00&status=%00",
        "?ids=%ED%A0%80&status=%ED%A0%80",
        "?ids=1" + "0" * 40 + "&page=1" + "0" * 40 + "&per_page=1" + "0" * 40,
        "?ids=" + "1," * 3000,
        "?cart_id=" + "A" * 64,
        "?ids[]=1&page[]=2&status[]=x",
    ],
)
def test_hostile_queries_never_500(callers, query):
    for who, client in callers.items():
        for route, method in OPERATIONS:
            if method != "get":
                continue
            response = client.get(_url(route) + query, HTTP_X_CART_ID="\u00e9" * 40)
            _check(response, f"{who} GET {route}{query[:40]}")


def test_hostile_path_values_never_500(callers):
    for client in callers.values():
        for path in (
            "labels/product/1" + "0" * 40,
            "labels/product/-1",
            "b2b/groups/1" + "0" * 40,
            "b2b/groups/0",
            "recover-cart/%00",
            "recover-cart/%ED%A0%80",
            "recover-cart/" + "a" * 5000,
            "recover-cart/..%2F..%2Fsettings",
            "recover-cart/e30:1abc:def",
        ):
            _check(client.get(f"{BASE}/{path}"), f"get {path[:40]}")
            for method in ("delete", "patch"):
                response = getattr(client, method)(
                    f"{BASE}/{path}", "{}", content_type="application/json"
                )
                _check(response, f"{method} {path[:40]}")


def test_unsafe_methods_from_a_logged_in_browser_without_the_nonce_are_json(customer):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(customer)
    for route, method in OPERATIONS:
        if method == "get":
            continue
        response = getattr(browser, method)(_url(route), "{}", content_type="application/json")
        _check(response, f"session {method.upper()} {route}")
        assert b"CSRF" not in response.content or response["Content-Type"].startswith(
            "application/json"
        )
        if "b2b/groups" in route:  # staff writes: never by a session without the nonce
            assert response.status_code in (401, 403), (route, method, response.status_code)
