"""The theme namespace's own OpenAPI description (GET /rest/theme/v1/docs/openapi.json): the
store's gate (manage_options, then developer.api_docs_enabled), every theme route and nothing
else, each operation described as the store's are; the ec/v1 description holds no theme
route."""

import pytest
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import EndpointEnumerator
from openapi_spec_validator import validate

from debugtools.api.schema import only_core_paths
from store.common.schema import only_store_paths
from store.docs.schema import CORE, STORE, THEME, generate, schema_document
from store.settings import services as settings_services
from tests.fixtures.store import error
from tests.store.test_openapi import assert_well_described
from theme.docs.schema import MCP_PATH, only_theme_paths

pytestmark = pytest.mark.django_db

DOCS = "/rest/theme/v1/docs/openapi.json"
STOREFRONT_PATHS = {
    "/settings",
    "/menus/{location}",
    "/search",
    "/cart/totals",
    "/wishlist",
    "/wishlist/{product_id}",
    "/validate-vat",
    "/newsletter/subscribe",
    "/newsletter/confirm/{token}",
    "/icons",
}
BUILDER_PATHS = {
    "/builder/layout/{page_id}",
    "/builder/preview/{page_id}",
    "/builder/blocks",
    "/builder/render",
    "/builder/templates",
    "/builder/templates/{template_id}",
    "/presets",
    "/presets/{category}/{slug}",
}
MODULE_PATHS = {
    "/recently-viewed",
    "/bundles",
    "/points/balance",
    "/points/transactions",
    "/promotions",
    "/promotions/cart",
    "/quotes",
    "/products/names",
    "/labels/product/{product_id}",
    "/b2b/groups",
    "/b2b/groups/{group_id}",
    "/b2b/my-group",
    "/recover-cart/{token}",
}
THEME_PATHS = STOREFRONT_PATHS | BUILDER_PATHS | MODULE_PATHS | {MCP_PATH}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return schema_document(THEME)


def _tags(document) -> set[str]:
    return {
        tag
        for item in document["paths"].values()
        for operation in item.values()
        for tag in operation.get("tags", [])
    }


def enable():
    settings_services.settings_update(section="developer", values={"api_docs_enabled": True})


def test_403_without_manage_options(anon, customer_client, manager_client):
    enable()
    for client in (anon, customer_client, manager_client):  # spec: 403, logged in or not
        error(client.get(DOCS), 403, "insufficient_capability")


def test_403_while_api_docs_are_off(admin_client_api):
    error(admin_client_api.get(DOCS), 403, "api_docs_disabled")


def test_the_description_for_an_administrator(admin_client_api):
    enable()
    response = admin_client_api.get(DOCS)
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    validate(body)
    assert body["servers"] == [{"url": "/rest/theme/v1"}]
    assert body["info"]["title"].startswith("Emporion Commerce Theme API")


def test_the_description_covers_every_theme_route(schema):
    assert set(schema["paths"]) == THEME_PATHS
    assert not any(path.startswith("/docs") for path in schema["paths"])


def test_the_namespaces_do_not_mix(schema):
    """By the views behind each description's routes, then by the descriptions themselves
    (their paths are relative to their servers, so the names alone could coincide)."""
    endpoints = EndpointEnumerator().get_api_endpoints()
    modules = {
        hook.__name__: {callback.cls.__module__ for *_rest, callback in hook(endpoints)}
        for hook in (only_store_paths, only_theme_paths, only_core_paths)
    }
    assert all(m.startswith("theme.") for m in modules["only_theme_paths"])
    assert all(m.startswith("debugtools.") for m in modules["only_core_paths"])
    assert not any(m.startswith(("theme.", "debugtools.")) for m in modules["only_store_paths"]), (
        modules["only_store_paths"]
    )
    store = schema_document(STORE)
    core = schema_document(CORE)
    assert MCP_PATH not in store["paths"]
    assert not _tags(store) & _tags(schema)
    assert not _tags(store) & _tags(core)
    assert not _tags(schema) & _tags(core)
    assert not any(tag.startswith("Theme") for tag in _tags(store))
    assert not any(name.startswith("Mcp") for name in store["components"]["schemas"])


def test_every_operation_declares_its_answers_and_errors(schema):
    assert_well_described(schema, skip={MCP_PATH})


def test_public_reads_and_protected_writes(schema):
    paths = schema["paths"]
    for path, method in (("/settings", "get"), ("/search", "get"), ("/icons", "get")):
        assert {} in paths[path][method]["security"], path
    for path, method in (("/settings", "patch"), ("/builder/render", "post")):
        security = paths[path][method]["security"]
        assert {} not in security, path
        assert {"appPasswordAuth": []} in security, path


def test_the_ai_tool_endpoint_is_described(schema):
    operation = schema["paths"][MCP_PATH]["post"]
    assert set(schema["paths"][MCP_PATH]) == {"post"}
    assert operation["security"] == [{"appPasswordAuth": []}]
    assert {"200", "202", "400", "401", "403", "406", "413", "415"} <= set(operation["responses"])
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/McpRequest"}
    assert schema["components"]["schemas"]["McpRequest"]["required"] == ["jsonrpc", "method"]


def test_the_schema_generates_without_warnings():
    GENERATOR_STATS.reset()
    generate(THEME)
    assert not GENERATOR_STATS._warn_cache, GENERATOR_STATS._warn_cache
    assert not GENERATOR_STATS._error_cache, GENERATOR_STATS._error_cache
