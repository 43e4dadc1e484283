"""The permission matrix of every store route, generated from the URL resolver.

Every route under /rest/ec/v1/ (those added later included, the ERP's too, with the ERP on:
nothing here lists them) is called
with every method its view answers, as anonymous, as a customer (logged in, no capability), as
each built-in role and as a holder of manage_options. What the view declares in `access`
(store.common.permissions.required_access) decides the expected class of answer:

- public: never 401/403;
- logged in: 401 for anonymous, never 401/403 for the others;
- a capability: 401 anonymous, 403 `insufficient_capability` for whoever lacks it (and nothing
  in the database changed), never 401/403 for holders (a 400 or 404 is fine: the bodies and
  ids are minimal).

No call answers 500. Callers log in with a session and send the REST nonce, which every store
route accepts (the nonce and playground routes take nothing else).
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from store.common.capabilities import (
    ADMINISTRATOR_ROLE,
    MANAGE_OPTIONS,
    SHOP_MANAGER_CAPABILITIES,
    SHOP_MANAGER_ROLE,
)
from store.common.permissions import LOGGED_IN, PUBLIC, required_access
from store.settings import services as settings_services
from tests.accounts.factories import UserFactory
from tests.store.conftest import API, grant

pytestmark = pytest.mark.django_db

PREFIX = "rest/ec/v1/"
METHODS = ("get", "post", "put", "patch", "delete")
SAMPLE = {"id": "999999", "int": "999999", "slug": "no-such-thing", "str": "no-such-thing"}
CALLERS = ("anonymous", "customer", "shop_manager", "store_administrator", "manage_options")
# What each caller holds (None: not logged in).
HOLDS = {
    "anonymous": None,
    "customer": frozenset(),
    "shop_manager": frozenset(SHOP_MANAGER_CAPABILITIES),
    "store_administrator": frozenset({MANAGE_OPTIONS}),
    "manage_options": frozenset({MANAGE_OPTIONS}),
}

# Routes that declare themselves public and apply a rule of their own, which the matrix then
# checks instead (each with its reason; a route not named here follows its `access`):
# - the API description and its playground are for manage_options and answer 403 to anyone
#   else, logged in or not (spec: "403, logged in or not"; tests/store/test_openapi.py);
OWN_CAPABILITY = {
    f"{PREFIX}docs/openapi.json": MANAGE_OPTIONS,
    f"{PREFIX}docs/playground": MANAGE_OPTIONS,
}
# - the order-received page is read with the order's key, by its customer or by staff: others
#   get 403 `invalid_order_key` (the id here names no order, so staff get 404).
OWN_REFUSAL = {(f"{PREFIX}order-received/<id:order_id>", "get"): "invalid_order_key"}


def _walk(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def _url(route: str) -> str:
    def sample(match):
        converter = match.group(1) or "str"
        return SAMPLE.get(converter, "x")

    # a re_path route: its first alternative of each named group, without the anchors
    route = re.sub(r"\(\?P<\w+>([^|)]+)[^)]*\)", r"\1", route).replace("^", "").replace("$", "")
    return "/" + re.sub(r"<(?:(\w+):)?\w+>", sample, route)


@pytest.fixture(autouse=True)
def _erp_on(db):
    """The ERP's routes (erp/, under the same prefix) sit behind the Business-tier licence
    gate: the matrix checks their capabilities with the ERP on (tests/erp checks the gate)."""
    from erp.core import services as erp_services
    from tests.erp.conftest import store_licence

    erp_services.erp_activate(license_key=store_licence().license_key)


def store_operations() -> list[tuple[str, str, type]]:
    operations = []
    for route, callback in _walk(get_resolver().url_patterns):
        if not route.startswith(PREFIX):
            continue
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        allowed = set(getattr(view, "http_method_names", METHODS))
        for method in METHODS:
            if method in allowed and callable(getattr(view, method, None)):
                operations.append((route, method, view))
    return operations


OPERATIONS = store_operations()


def test_the_matrix_covers_the_store():
    routes = {route for route, _method, _view in OPERATIONS}
    assert len(routes) >= 80
    for route in ("managers", "managers/roles/<str:slug>", "dashboard/stats", "products"):
        assert PREFIX + route in routes


def expected(required: str, caller: str, *, anonymous: str = "401") -> str:
    """What `caller` gets: allowed, 401 or 403."""
    held = HOLDS[caller]
    if required == PUBLIC:
        return "allowed"
    if held is None:
        return anonymous
    if required == LOGGED_IN or MANAGE_OPTIONS in held or required in held:
        return "allowed"
    return "403"


def row_counts() -> tuple:
    """Every table's row count, in one query."""
    quote = connection.ops.quote_name
    tables = sorted(connection.introspection.table_names())
    sql = "SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {quote(t)})" for t in tables)  # noqa: S608 - table names from the schema
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return tuple(zip(tables, cursor.fetchone(), strict=True))


def _caller(name: str) -> Client:
    client = Client()
    if name == "anonymous":
        return client
    user = UserFactory(email=f"{name}@example.com")
    if name == "shop_manager":
        user.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    elif name == "store_administrator":
        user.groups.add(Group.objects.get(name=ADMINISTRATOR_ROLE))
    elif name == "manage_options":
        grant(user, MANAGE_OPTIONS)
    client.force_login(user)
    response = client.get(f"{API}/auth/nonce")
    assert response.status_code == 200
    client.defaults["HTTP_X_PLATFORM_NONCE"] = response.json()["nonce"]
    return client


@pytest.mark.parametrize(
    ("route", "method", "view"),
    OPERATIONS,
    ids=[f"{method.upper()} /{route[len(PREFIX) :]}" for route, method, _view in OPERATIONS],
)
def test_the_permission_matrix(route, method, view):
    settings_services.settings_update(
        section="developer", values={"api_docs_enabled": True, "api_playground_enabled": True}
    )
    required = required_access(view, method.upper())
    anonymous = "401"
    if route in OWN_CAPABILITY:
        assert required == PUBLIC, route  # declared public, checked by the view
        required, anonymous = OWN_CAPABILITY[route], "403"
    own_refusal = OWN_REFUSAL.get((route, method))
    url = _url(route)
    clients = {name: _caller(name) for name in CALLERS}
    for name in CALLERS:
        outcome = expected(required, name, anonymous=anonymous)
        before = row_counts() if outcome != "allowed" else None
        call = getattr(clients[name], method)
        if method in ("post", "put", "patch"):
            response = call(url, "{}", content_type="application/json")
        else:
            response = call(url)
        where = f"{method.upper()} {url} as {name} (needs {required})"
        assert response.status_code < 500, (where, response.content[:300])
        if outcome == "allowed" and own_refusal and response.status_code == 403:
            assert response.json()["code"] == own_refusal, where
        elif outcome == "allowed":
            assert response.status_code not in (401, 403), (where, response.content[:300])
            continue
        else:
            assert response.status_code == int(outcome), (where, response.content[:300])
            code = response.json()["code"]
            assert code == ("not_logged_in" if outcome == "401" else "insufficient_capability")
        assert row_counts() == before or before is None, f"{where}: the database changed"
