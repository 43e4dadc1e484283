"""Every theme storefront route (walked from the URL resolver) takes hostile bodies and
queries, from an administrator over HTTP Basic and from a guest, with CSRF enforced as a
browser-facing deployment does: a JSON refusal or its normal answer, never a 500, never
Django's HTML CSRF page. (The shared sweep of tests/hardening walks ec/v1 only.)"""

import pytest
from django.test import Client
from django.urls import get_resolver

from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.hardening.test_every_route import HOSTILE
from tests.store.access.test_permission_matrix import _url, _walk
from tests.theme.storefront.conftest import BASE

pytestmark = pytest.mark.django_db
PREFIX = "rest/theme/v1/"
METHODS = ("get", "post", "put", "patch", "delete")
STOREFRONT = {
    "settings",
    "menus/",
    "search",
    "cart/totals",
    "wishlist",
    "validate-vat",
    "newsletter/subscribe",
    "newsletter/confirm/",
    "icons",
}


def operations():
    out = []
    for route, callback in _walk(get_resolver().url_patterns):
        if not route.startswith(PREFIX) or not callback.__module__.startswith("theme.storefront"):
            continue
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        for method in METHODS:
            if callable(getattr(view, method, None)):
                out.append((route, method))
    return sorted(out)


OPERATIONS = operations()


def test_the_sweep_covers_every_storefront_route():
    routes = {route for route, _method in OPERATIONS}
    for group in STOREFRONT:
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
    admin = grant(UserFactory(email="hostile-theme@example.com"), "manage_options")
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
        "?q=%00&vat_number=%00&per_page=%00",
        "?q=%ED%A0%80&vat_number=%ED%A0%80",
        "?q=lamp&per_page=1" + "0" * 40 + "&vat_number=EL" + "9" * 40,
        "?q=" + "x" * 5000,
        "?cart_id=" + "A" * 64,
        "?q[]=1&per_page[]=2&vat_number[]=x",
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
    client = callers["guest"]
    for path in (
        "menus/%00",
        "menus/" + "a" * 3000,
        "menus/%ED%A0%80",
        "wishlist/1" + "0" * 40,
        "wishlist/-1",
        "newsletter/confirm/%00",
        "newsletter/confirm/" + "a" * 5000,
        "newsletter/confirm/..%2F..%2Fsettings",
    ):
        for method in ("get", "delete"):
            response = getattr(client, method)(f"{BASE}/{path}")
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
