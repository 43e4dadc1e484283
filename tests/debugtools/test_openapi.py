"""The core namespace's own OpenAPI description (GET /rest/core/v1/docs/openapi.json): the
store's gate, the debug routes and nothing else, each operation described as the store's are."""

import pytest
from drf_spectacular.drainage import GENERATOR_STATS
from openapi_spec_validator import validate

from store.docs.schema import CORE, generate, schema_document
from store.settings import services as settings_services
from tests.fixtures.store import error
from tests.store.test_openapi import assert_answer_described, assert_well_described

from .conftest import client_of

pytestmark = pytest.mark.django_db

DOCS = "/rest/core/v1/docs/openapi.json"
CORE_PATHS = {
    "/debug/entries",
    "/debug/stats",
    "/debug/settings",
    "/debug/clear",
    "/debug/download",
    "/debug/diagnostics",
    "/debug/test",
    "/debug/opcache-reset",
    "/debug/js-log",
}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return schema_document(CORE)


def test_the_gate(admin, callers):
    error(client_of(admin).get(DOCS), 403, "api_docs_disabled")
    settings_services.settings_update(section="developer", values={"api_docs_enabled": True})
    for client, _status in callers.values():  # spec: 403, logged in or not
        error(client.get(DOCS), 403, "insufficient_capability")
    response = client_of(admin).get(DOCS)
    assert response.status_code == 200
    body = response.json()
    validate(body)
    assert body["servers"] == [{"url": "/rest/core/v1"}]
    assert set(body["paths"]) == CORE_PATHS


def test_every_operation_declares_its_answers_and_errors(schema):
    assert_well_described(schema)
    js_log = schema["paths"]["/debug/js-log"]["post"]
    assert {} in js_log["security"]  # the public sink
    assert {"413", "429"} <= set(js_log["responses"])
    assert {} not in schema["paths"]["/debug/entries"]["get"]["security"]


def test_the_queries_and_answers_are_described(schema):
    paths = schema["paths"]
    names = {p["name"] for p in paths["/debug/entries"]["get"]["parameters"]}
    assert names >= {"level", "logger", "search", "request_id", "source", "since", "until"}
    assert {"page", "per_page"} <= names
    assert {p["name"] for p in paths["/debug/download"]["get"]["parameters"]} >= {"format"}
    assert {p["name"] for p in paths["/debug/stats"]["get"]["parameters"]} == {"since", "until"}
    shapes = schema["components"]["schemas"]
    assert set(shapes["EntryListAnswer"]["properties"]) == {
        "entries",
        "total",
        "page",
        "per_page",
        "total_pages",
    }
    assert "by_logger" in shapes["StatsAnswer"]["properties"]
    for path, method, status in (
        ("/debug/entries", "get", "200"),
        ("/debug/settings", "put", "200"),
        ("/debug/test", "post", "201"),
        ("/debug/opcache-reset", "post", "200"),
        ("/debug/js-log", "post", "202"),
    ):
        body = paths[path][method]["responses"][status]["content"]["application/json"]
        assert "$ref" in body["schema"], (path, method)


def test_the_schema_generates_without_warnings():
    GENERATOR_STATS.reset()
    generate(CORE)
    assert not GENERATOR_STATS._warn_cache, GENERATOR_STATS._warn_cache
    assert not GENERATOR_STATS._error_cache, GENERATOR_STATS._error_cache


def test_the_diagnostics_answer_as_described(schema, admin, monkeypatch):
    from debugtools import selectors

    response = client_of(admin).get("/rest/core/v1/debug/diagnostics")
    assert response.status_code == 200
    assert isinstance(response.json()["checks"], list)
    assert response.json()["checks"]  # the test settings make warnings (insecure cookies)
    assert_answer_described(schema, "/debug/diagnostics", "get", response)

    def fails():
        raise RuntimeError("the checks crashed")

    monkeypatch.setattr(selectors, "_deploy_warnings", fails)
    response = client_of(admin).get("/rest/core/v1/debug/diagnostics")
    assert response.json()["checks"] == {
        "status": "error",
        "error": "RuntimeError",
        "what": "checks",
    }
    assert_answer_described(schema, "/debug/diagnostics", "get", response)
