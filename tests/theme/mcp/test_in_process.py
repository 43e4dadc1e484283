"""The bridge runs the abilities on the request's own thread and database connection: through
Django's in-process client, inside the test's transaction (never committed), a tool sees the
rows the test made. On another thread's connection it would not (PostgreSQL) or would fail
(SQLite in memory)."""

from __future__ import annotations

import json
import threading

import pytest
from django.test import Client

from erp.core import services as erp_services
from tests.accounts.factories import UserFactory
from tests.erp.conftest import store_licence
from tests.fixtures.store import basic_auth, grant
from tests.store.catalog.factories import make_product
from theme.mcp import selectors

pytestmark = pytest.mark.django_db
HEADERS = {
    "HTTP_ACCEPT": "application/json, text/event-stream",
    "HTTP_MCP_PROTOCOL_VERSION": "2025-06-18",
}


def test_a_tool_reads_the_request_transaction_on_the_request_thread(monkeypatch):
    erp_services.erp_activate(license_key=store_licence().license_key)
    admin = grant(UserFactory(email="in-process@example.com"), "manage_options")
    lamp = make_product(title="Uncommitted lamp")
    threads = []
    real = selectors.read_product

    def spy(**kwargs):
        threads.append(threading.get_ident())
        return real(**kwargs)

    monkeypatch.setattr(selectors, "read_product", spy)
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "get_product", "arguments": {"product_id": lamp.pk}},
    }
    response = Client().post(
        "/rest/theme/v1/mcp",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=basic_auth(admin),
        **HEADERS,
    )
    assert response.status_code == 200, response.content
    result = response.json()["result"]
    assert result["isError"] is False, result
    assert result["structuredContent"]["title"] == "Uncommitted lamp"
    assert threads == [threading.get_ident()]


@pytest.mark.parametrize("method", ["get", "put", "patch", "delete"])
def test_other_methods_are_a_json_405(method):
    response = getattr(Client(), method)("/rest/theme/v1/mcp")
    assert response.status_code == 405
    assert response["Allow"] == "POST, OPTIONS"
    assert response.json()["error"]["code"] == -32600
