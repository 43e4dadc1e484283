"""Shared helpers of the hardening tests: error shapes of both namespaces, route walking."""

from __future__ import annotations

from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.fixtures.store import API, error

PORTAL = "/api/v1"
STORE = API


def portal_error(response, status: int, code: str | None = None) -> dict:
    """Assert a portal-style error (`{"detail", "code", "errors"?}`) and answer its body."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    body = response.json()
    assert set(body) <= {"detail", "code", "errors"}, body
    assert body["detail"]
    if code is not None:
        assert body["code"] == code, body
    return body


def store_error(response, status: int, code: str | None = None) -> dict:
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    return error(response, status, code)


def csrf_client(**defaults) -> Client:
    """A client that enforces CSRF like a browser-facing deployment does."""
    return Client(enforce_csrf_checks=True, **defaults)


def walk(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern


def api_routes():
    """(route, URLPattern) of every route under the portal and store prefixes."""
    return [
        (route, pattern)
        for route, pattern in walk(get_resolver().url_patterns)
        if route.startswith(("api/", "^api/", "rest/", "^rest/"))
    ]
