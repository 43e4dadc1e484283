"""Every page builder route (walked from the URL resolver) takes hostile bodies, queries and
path values, from an administrator over HTTP Basic and from a guest, with CSRF enforced as a
browser-facing deployment does: a JSON refusal or its normal answer, never a 500, never
Django's HTML CSRF page. (As tests/theme/storefront/test_hostile.py for the storefront.)"""

import json

import pytest
from django.test import Client
from django.urls import get_resolver

from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.hardening.test_every_route import HOSTILE
from tests.store.access.test_permission_matrix import _url, _walk
from tests.theme.builder.conftest import BASE, HEADING
from theme.builder.models import Layout, LayoutTemplate

pytestmark = pytest.mark.django_db
PREFIX = "rest/theme/v1/"
METHODS = ("get", "post", "put", "patch", "delete")
GROUPS = {
    "builder/layout/",
    "builder/preview/",
    "builder/blocks",
    "builder/render",
    "builder/templates",
    "builder/templates/",
    "presets",
    "presets/",
}
# Builder-shaped hostility on top of the shared kinds.
BUILDER_HOSTILE = {
    **HOSTILE,
    "blocks_not_a_list": '{"blocks": {"type": "heading"}, "version": 0, "name": "x"}',
    "block_type_object": '{"blocks": [{"type": {"a": 1}}], "version": 0, "name": "x"}',
    "settings_huge_int": '{"blocks": [{"type": "spacer", "settings": {"height": 1'
    + "0" * 40
    + '}}], "version": 0, "name": "x"}',
    "float_int": '{"blocks": [{"type": "heading", "settings": {"text": "a", "level": 2.5}}],'
    ' "version": 0.5, "name": "x"}',
    "many_blocks": json.dumps({"blocks": [HEADING] * 5000, "version": 0, "name": "x"}),
    "wide_columns": json.dumps(
        {
            "blocks": [{"type": "columns", "children": [{"type": "column"}] * 500}],
            "version": 0,
            "name": "x",
        }
    ),
    "long_strings": json.dumps(
        {
            "blocks": [{"type": "heading", "settings": {"text": "x" * 100000}}],
            "version": 0,
            "name": "n" * 5000,
        }
    ),
    "nul_in_settings": '{"blocks": [{"type": "heading", "settings": {"text": "a\\u0000b"}}],'
    ' "version": 0, "name": "x"}',
    "surrogate_key": '{"blocks": [{"type": "heading", "\\ud800": 1}], "version": 0}',
}


def operations():
    out = []
    for route, callback in _walk(get_resolver().url_patterns):
        if not route.startswith(PREFIX) or not callback.__module__.startswith("theme.builder"):
            continue
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        for method in METHODS:
            if callable(getattr(view, method, None)):
                out.append((route, method))
    return sorted(out)


OPERATIONS = operations()


def test_the_sweep_covers_every_builder_route():
    routes = {route for route, _method in OPERATIONS}
    for group in GROUPS:
        assert any(route.startswith(PREFIX + group) for route in routes), group
    assert len(OPERATIONS) == 14


def _check(response, label):
    assert response.status_code < 500, (label, response.status_code, response.content[:300])
    if response.status_code not in (204, 304):
        assert response["Content-Type"].startswith("application/json"), (
            label,
            response["Content-Type"],
        )


@pytest.fixture
def callers(db):
    admin = grant(UserFactory(email="hostile-builder@example.com"), "manage_options")
    return {
        "admin": Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=basic_auth(admin)),
        "guest": Client(enforce_csrf_checks=True),
    }


@pytest.mark.parametrize("kind", sorted(BUILDER_HOSTILE))
def test_hostile_bodies_never_500(callers, kind):
    Layout.objects.create(page_id=999999, blocks=[HEADING], status="published")
    LayoutTemplate.objects.create(pk=999999, name="T", blocks=[HEADING])
    for who, client in callers.items():
        for route, method in OPERATIONS:
            if method in ("get", "delete"):  # no body (DELETE: test_hostile_path_values)
                continue
            response = getattr(client, method)(
                _url(route), BUILDER_HOSTILE[kind], content_type="application/json"
            )
            _check(response, f"{who} {method.upper()} {route} [{kind}]")
            # (a PATCH without any known field changes nothing and answers 200)
            if who == "admin" and method in ("post", "put"):
                assert response.status_code in (400, 404, 405, 409, 413, 422), (
                    kind,
                    route,
                    method,
                    response.status_code,
                    response.content[:200],
                )
    assert Layout.objects.get().blocks == [HEADING]
    assert LayoutTemplate.objects.get().blocks == [HEADING]


@pytest.mark.parametrize(
    "query",
    [
        "?category=%00&search=%00&page=%00&per_page=%00",
        "?category=%ED%A0%80&search=%ED%A0%80",
        "?page=1" + "0" * 40 + "&per_page=1" + "0" * 40,
        "?search=" + "x" * 5000 + "&category=" + "y" * 5000,
        "?category[]=1&page[]=2",
    ],
)
def test_hostile_queries_never_500(callers, query):
    for who, client in callers.items():
        for route, method in OPERATIONS:
            if method != "get":
                continue
            response = client.get(_url(route) + query)
            _check(response, f"{who} GET {route}{query[:40]}")


def test_hostile_path_values_never_500(callers):
    client = callers["admin"]
    for path in (
        "builder/layout/0",
        "builder/layout/-1",
        "builder/layout/1" + "0" * 40,
        "builder/preview/9" * 3,
        "builder/templates/%00",
        "builder/templates/1" + "0" * 40,
        "presets/%00/%00",
        "presets/%ED%A0%80/x",
        "presets/" + "a" * 3000 + "/b",
        "presets/hero/..%2F..%2Fsettings",
    ):
        for method in ("get", "post", "delete"):
            if method == "get":
                response = client.get(f"{BASE}/{path}")
            else:
                response = getattr(client, method)(
                    f"{BASE}/{path}", "{}", content_type="application/json"
                )
            _check(response, f"{method} {path[:40]}")


def test_unsafe_methods_from_a_logged_in_browser_without_the_nonce_are_json(customer):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(grant(customer, "manage_options"))
    for route, method in OPERATIONS:
        if method == "get":
            continue
        response = getattr(browser, method)(_url(route), "{}", content_type="application/json")
        _check(response, f"session {method.upper()} {route}")
        assert response.status_code in (401, 403), (route, method, response.status_code)
        assert b"CSRF verification failed" not in response.content
    assert not Layout.objects.exists()
    assert not LayoutTemplate.objects.exists()
