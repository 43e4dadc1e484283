"""The permission matrix of every store, theme and core route, generated from the URL resolver.

Every route under /rest/ec/v1/, /rest/theme/v1/ and /rest/core/v1/ (those added later
included, the ERP's too, with the ERP on, and every theme module, all on: nothing here lists
them) is called with every method its view answers, as anonymous, as a customer (logged in,
no capability), as each built-in role (every seeded, read-only role in the database: the
store's two and the ERP's, read at run time, so a role seeded later joins by itself) and as a
holder of manage_options. What the view declares in `access`
(store.common.permissions.required_access) decides the expected class of answer:

- public: never 401/403;
- logged in: 401 for anonymous, never 401/403 for the others;
- a capability: 401 anonymous, 403 `insufficient_capability` for whoever lacks it (and nothing
  in the database changed), never 401/403 for holders (a 400 or 404 is fine: the bodies and
  ids are minimal).

No call answers 500. Callers log in with a session and send the REST nonce, which every store
route accepts (the nonce and playground routes take nothing else). The AI tool endpoint takes
application passwords only: its own matrix below calls it over HTTP Basic.
"""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from store.access.models import RoleProfile
from store.common.capabilities import (
    APP_LABEL,
    MANAGE_OPTIONS,
    SHOP_MANAGER_CAPABILITIES,
)
from store.common.permissions import LOGGED_IN, PUBLIC, required_access
from store.settings import services as settings_services
from tests.accounts.factories import UserFactory
from tests.fixtures.db import rows_written
from tests.fixtures.store import API, basic_auth, grant

pytestmark = pytest.mark.django_db
User = get_user_model()

PREFIX = "rest/ec/v1/"
THEME_PREFIX = "rest/theme/v1/"
CORE_PREFIX = "rest/core/v1/"
PREFIXES = (PREFIX, THEME_PREFIX, CORE_PREFIX)
METHODS = ("get", "post", "put", "patch", "delete")
SAMPLE = {"id": "999999", "int": "999999", "slug": "no-such-thing", "str": "no-such-thing"}
# A caller of each built-in role is named `role:<slug>` (see holds()).
ROLE = "role:"

# Routes that declare themselves public and apply a rule of their own, which the matrix then
# checks instead (each with its reason; a route not named here follows its `access`):
# - the API description and its playground are for manage_options and answer 403 to anyone
#   else, logged in or not (spec: "403, logged in or not"; tests/store/test_openapi.py);
OWN_CAPABILITY = {
    f"{PREFIX}docs/openapi.json": MANAGE_OPTIONS,
    f"{PREFIX}docs/playground": MANAGE_OPTIONS,
    f"{THEME_PREFIX}docs/openapi.json": MANAGE_OPTIONS,
    f"{CORE_PREFIX}docs/openapi.json": MANAGE_OPTIONS,
}
# - the order-received page is read with the order's key, by its customer or by staff: others
#   get 403 `invalid_order_key` (the id here names no order, so staff get 404).
OWN_REFUSAL = {(f"{PREFIX}order-received/<id:order_id>", "get"): "invalid_order_key"}
# - the AI tool endpoint (MCP) authenticates application passwords over HTTP Basic only and
#   answers JSON-RPC bodies: test_the_ai_tool_endpoint_matrix checks it.
APP_PASSWORD_ONLY = {f"{THEME_PREFIX}mcp"}


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


@pytest.fixture(scope="module")
def world(module_db):
    """Built once for the module: the ERP on (its routes, under the same prefix, sit behind the
    Business-tier licence gate: the matrix checks their capabilities with the ERP on; tests/erp
    checks the gate), the API description and playground on, and one logged-in caller of each
    kind (see holds()) with its client."""
    from erp.core import services as erp_services
    from tests.erp.conftest import store_licence

    erp_services.erp_activate(license_key=store_licence().license_key)
    settings_services.settings_update(
        section="developer", values={"api_docs_enabled": True, "api_playground_enabled": True}
    )
    callers = holds()
    return callers, {name: _caller(name) for name in callers}


def store_operations() -> list[tuple[str, str, type]]:
    operations = []
    for route, callback in _walk(get_resolver().url_patterns):
        if not route.startswith(PREFIXES):
            continue
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        allowed = set(getattr(view, "http_method_names", METHODS))
        for method in METHODS:
            if method in allowed and callable(getattr(view, method, None)):
                operations.append((route, method, view))
    return operations


OPERATIONS = store_operations()
MATRIX = [operation for operation in OPERATIONS if operation[0] not in APP_PASSWORD_ONLY]


def _label(route: str) -> str:
    """`/products` for ec/v1 (as the store's ids always were), `/theme/v1/...` otherwise."""
    return "/" + (route[len(PREFIX) :] if route.startswith(PREFIX) else route.split("/", 1)[1])


def test_the_matrix_covers_the_store():
    routes = {route for route, _method, _view in OPERATIONS}
    assert len(routes) >= 80
    for route in ("managers", "managers/roles/<str:slug>", "dashboard/stats", "products"):
        assert PREFIX + route in routes


def test_the_matrix_covers_the_theme_and_core_namespaces():
    routes = {route for route, _method, _view in OPERATIONS}
    for route in (
        "settings",  # storefront
        "wishlist/<id:product_id>",
        "builder/layout/<id:page_id>",  # page builder
        "builder/render",
        "points/balance",  # modules
        "b2b/groups/<id:group_id>",
        "recover-cart/<str:token>",
        "mcp",  # the AI tool endpoint
        "docs/openapi.json",
    ):
        assert THEME_PREFIX + route in routes, route
    for route in ("debug/entries", "debug/js-log", "debug/download", "docs/openapi.json"):
        assert CORE_PREFIX + route in routes, route


def built_in_roles() -> dict[str, frozenset[str]]:
    """Every built-in (seeded, read-only) role in the database, by slug, with the store
    capabilities it holds."""
    profiles = RoleProfile.objects.filter(built_in=True).select_related("group")
    return {
        profile.slug: frozenset(
            profile.group.permissions.filter(content_type__app_label=APP_LABEL).values_list(
                "codename", flat=True
            )
        )
        for profile in profiles
    }


def holds() -> dict[str, frozenset[str] | None]:
    """Each caller and what it holds (None: not logged in): anonymous, a customer, one caller
    per built-in role, a holder of manage_options."""
    roles = {f"{ROLE}{slug}": held for slug, held in sorted(built_in_roles().items())}
    return {
        "anonymous": None,
        "customer": frozenset(),
        **roles,
        "manage_options": frozenset({MANAGE_OPTIONS}),
    }


def test_the_matrix_calls_as_every_built_in_role(world):
    """The store's seeded roles and the ERP's (on here), each with what it was seeded with."""
    from erp.core.capabilities import BUILT_IN_ROLES

    roles = built_in_roles()
    assert set(roles) == {"shop_manager", "store_administrator"} | {
        role.slug for role in BUILT_IN_ROLES
    }
    assert roles["shop_manager"] == frozenset(SHOP_MANAGER_CAPABILITIES)
    assert roles["store_administrator"] == frozenset({MANAGE_OPTIONS})
    for role in BUILT_IN_ROLES:
        assert roles[role.slug] == frozenset(role.capabilities), role.slug
    callers = holds()
    assert {f"{ROLE}{slug}" for slug in roles} <= set(callers)
    assert len(callers) == len(roles) + 3


def expected(required: str, held: frozenset[str] | None, *, anonymous: str = "401") -> str:
    """What a caller holding `held` (None: anonymous) gets: allowed, 401 or 403."""
    if required == PUBLIC:
        return "allowed"
    if held is None:
        return anonymous
    if required == LOGGED_IN or MANAGE_OPTIONS in held or required in held:
        return "allowed"
    return "403"


def _email(name: str) -> str:
    return f"{name.replace(':', '-')}@example.com"


def _caller(name: str) -> Client:
    client = Client()
    if name == "anonymous":
        return client
    user = UserFactory(email=_email(name))
    if name.startswith(ROLE):
        user.groups.add(RoleProfile.objects.get(slug=name[len(ROLE) :]).group)
    elif name == "manage_options":
        grant(user, MANAGE_OPTIONS)
    client.force_login(user)
    response = client.get(f"{API}/auth/nonce")
    assert response.status_code == 200
    client.defaults["HTTP_X_PLATFORM_NONCE"] = response.json()["nonce"]
    return client


@pytest.mark.parametrize(
    ("route", "method", "view"),
    MATRIX,
    ids=[f"{method.upper()} {_label(route)}" for route, method, _view in MATRIX],
)
def test_the_permission_matrix(world, route, method, view):
    callers, clients = world
    required = required_access(view, method.upper())
    anonymous = "401"
    if route in OWN_CAPABILITY:
        assert required == PUBLIC, route  # declared public, checked by the view
        required, anonymous = OWN_CAPABILITY[route], "403"
    own_refusal = OWN_REFUSAL.get((route, method))
    url = _url(route)

    def call(name: str):
        send = getattr(clients[name], method)
        if method in ("post", "put", "patch"):
            return send(url, "{}", content_type="application/json")
        return send(url)

    outcomes = {
        name: expected(required, held, anonymous=anonymous) for name, held in callers.items()
    }
    refused = [name for name, outcome in outcomes.items() if outcome != "allowed"]
    # The refusals first, the database's writes counted once around all of them (a count is
    # a query over every table's statistics on PostgreSQL); then the callers who may write.
    before = rows_written()
    for name in refused:
        response = call(name)
        where = f"{method.upper()} {url} as {name} (needs {required})"
        assert response.status_code == int(outcomes[name]), (where, response.content[:300])
        code = response.json()["code"]
        assert code == ("not_logged_in" if outcomes[name] == "401" else "insufficient_capability")
    assert rows_written() == before, f"{method.upper()} {url}: refused to {refused}, wrote rows"
    for name in (name for name in callers if name not in refused):
        before = rows_written() if own_refusal else None
        response = call(name)
        where = f"{method.upper()} {url} as {name} (needs {required})"
        assert response.status_code < 500, (where, response.content[:300])
        if own_refusal and response.status_code == 403:
            assert response.json()["code"] == own_refusal, where
            assert rows_written() == before, f"{where}: the database changed"
        else:
            assert response.status_code not in (401, 403), (where, response.content[:300])


def test_the_ai_tool_endpoint_matrix(world):
    """POST /rest/theme/v1/mcp: manage_options over an application password (HTTP Basic).
    Anonymous and session callers (even an administrator's session with its nonce) get 401,
    the others without manage_options 403 (JSON-RPC error bodies, the store's code in
    `error.data.code`), holders a JSON-RPC answer; GET answers 405 to everyone."""
    url = "/" + next(iter(APP_PASSWORD_ONLY))
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    accept = {"HTTP_ACCEPT": "application/json, text/event-stream"}
    callers, sessions = world
    for name, held in callers.items():
        client = Client(**accept)
        if name != "anonymous":
            user = User.objects.get(email=_email(name))
            client.defaults["HTTP_AUTHORIZATION"] = basic_auth(user)
        outcome = expected(MANAGE_OPTIONS, held)
        where = f"POST {url} as {name} over HTTP Basic"
        assert client.get(url).status_code == 405, where
        # called twice: a new application password's first use is recorded (when and from
        # where), as any authentication's is; the second call writes nothing when refused
        first = client.post(url, ping, content_type="application/json")
        before = rows_written()
        response = client.post(url, ping, content_type="application/json")
        assert (response.status_code, response.content) == (first.status_code, first.content)
        assert response["Content-Type"].startswith("application/json"), where
        if outcome == "allowed":
            assert response.status_code == 200, (where, response.content[:300])
            assert response.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}, where
        else:
            assert response.status_code == int(outcome), (where, response.content[:300])
            code = response.json()["error"]["data"]["code"]
            assert code == ("not_authenticated" if outcome == "401" else "insufficient_capability")
            assert rows_written() == before, f"{where}: the database changed"
        if name != "anonymous":  # a session and its nonce are not credentials here
            response = sessions[name].post(url, ping, content_type="application/json", **accept)
            assert response.status_code == 401, (f"POST {url} as {name}'s session", response)
