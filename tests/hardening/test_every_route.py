"""Every unsafe operation of the store, the ERP, the theme namespace (its modules all on, the
AI tool endpoint included) and the core namespace (walked from the URL resolver: routes added
later are included without being listed) takes hostile bodies from an administrator over HTTP
Basic, with CSRF enforced as a browser-facing deployment does, and answers a JSON refusal or
its normal answer: never a 500, never Django's HTML CSRF page. Then the same with Redis (the
cache) stopped: the database is the truth, so every route still answers without a 5xx."""

from __future__ import annotations

import pytest
from django.test import Client

from erp.core import services as erp_services
from tests.accounts.factories import UserFactory
from tests.erp.conftest import store_licence
from tests.fixtures.store import basic_auth, grant
from tests.outages.conftest import redis_cache, redis_server  # noqa: F401 - fixtures
from tests.store.access.test_permission_matrix import OPERATIONS, _url

pytestmark = pytest.mark.django_db

UNSAFE = ("post", "put", "patch", "delete")
HOSTILE = {
    "deep": "[" * 5000 + "]" * 5000,
    "nul": '{"name": "a\\u0000b", "title": "a\\u0000b", "email": "a\\u0000@example.com"}',
    "surrogate": '{"name": "\\ud800", "title": "\\udfff", "code": "\\ud800"}',
    "huge": '{"id": 1'
    + "0" * 40
    + ', "quantity": 1'
    + "0" * 40
    + ', "product_id": 1'
    + "0" * 40
    + "}",
    "shape": "[1, 2, 3]",
    "malformed": '{"a": ',
    # infinity as a number (1e400): no JSON column (jsonb) can store it
    "infinite": '{"name": "x", "quantity": 1e400, "price": 1e400, "context": {"a": -1e999}}',
}
ROUTES = sorted({(route, method) for route, method, _view in OPERATIONS if method in UNSAFE})


@pytest.fixture
def admin_browser(db):
    erp_services.erp_activate(license_key=store_licence().license_key)
    admin = grant(UserFactory(email="hostile-admin@example.com"), "manage_options")
    return Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=basic_auth(admin))


def _send(client, route, method, body):
    return getattr(client, method)(_url(route), body, content_type="application/json")


def _assert_json_refusal_or_answer(response, label):
    assert response.status_code < 500, (label, response.status_code, response.content[:300])
    if response.status_code != 204:
        assert response["Content-Type"].startswith("application/json"), (
            label,
            response["Content-Type"],
        )


def test_the_sweep_covers_the_new_groups():
    routes = {route for route, _method in ROUTES}
    for group in (
        "payment/refund",
        "shipping/zones",
        "courier/",
        "tax/rates",
        "invoices",
        "stock/transfer",
        "purchase-orders",
        "erp/activate",
        "leads/",
        "webhooks/<id:webhook_id>/deliveries/<id:delivery_id>/redeliver",
        "journal-entries",
        "leave-requests",
        "labor-registry/submissions",
        "rest/theme/v1/wishlist",
        "rest/theme/v1/builder/render",
        "rest/theme/v1/b2b/groups",
        "rest/theme/v1/mcp",
        "rest/core/v1/debug/js-log",
        "rest/core/v1/debug/settings",
    ):
        assert any(group in route for route in routes), group


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_every_unsafe_route_refuses_hostile_bodies_without_a_500(admin_browser, kind):
    for route, method in ROUTES:
        response = _send(admin_browser, route, method, HOSTILE[kind])
        _assert_json_refusal_or_answer(response, f"{method.upper()} {route} [{kind}]")


def test_every_unsafe_route_answers_with_redis_stopped(admin_browser, redis_cache):  # noqa: F811
    redis_cache.stop()
    for route, method in ROUTES:
        response = _send(admin_browser, route, method, "{}")
        _assert_json_refusal_or_answer(response, f"{method.upper()} {route} [redis down]")
