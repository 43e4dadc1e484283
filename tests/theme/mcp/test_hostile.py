"""Hostile requests to the AI tool endpoint: a JSON answer below 500 whatever is sent."""

from __future__ import annotations

import pytest

from tests.hardening.test_every_route import HOSTILE
from tests.theme.mcp.conftest import raw_post

MORE = {
    **HOSTILE,
    "empty": "",
    "not-rpc": '{"hello": "world"}',
    "batch": '[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]',
    "tool-nul": (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_products",'
        ' "arguments": {"query": "a\\u0000b"}}}'
    ),
    "tool-surrogate": (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_products",'
        ' "arguments": {"query": "\\ud800"}}}'
    ),
    "tool-huge-id": (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_product",'
        ' "arguments": {"product_id": 1' + "0" * 40 + "}}}"
    ),
    "tool-wrong-shape": (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_order",'
        ' "arguments": [1, 2]}}'
    ),
    "params-wrong-shape": '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "x"}',
    "unknown-method": '{"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage"}',
}


@pytest.mark.parametrize("kind", sorted(MORE))
def test_hostile_bodies_never_500(url, admin_auth, licensed, kind):
    response = raw_post(
        url, MORE[kind], authorization=admin_auth, **{"MCP-Protocol-Version": "2025-06-18"}
    )
    assert response.status_code < 500, (kind, response.status_code, response.text[:300])
    if response.status_code not in (202, 204):
        assert response.headers["Content-Type"].startswith("application/json"), response.text


def test_hostile_headers_and_methods(url, admin_auth, licensed):
    import httpx2

    body = '{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    for headers in (
        {"Content-Type": "text/plain"},
        {"Accept": "text/html"},
        {"MCP-Protocol-Version": "1999-01-01"},
    ):
        response = raw_post(url, body, authorization=admin_auth, **headers)
        assert response.status_code < 500, (headers, response.status_code, response.text[:300])
    for method in ("GET", "DELETE", "PUT", "PATCH"):
        response = httpx2.request(method, url, headers={"Authorization": admin_auth}, timeout=30)
        assert response.status_code == 405, (method, response.status_code)
    oversized = '{"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "' + "x" * 300_000 + '"}'
    assert raw_post(url, oversized, authorization=admin_auth).status_code == 413


def test_a_declared_length_over_the_cap_is_413_before_reading(admin_auth, licensed):
    from django.test import Client

    response = Client().post(
        "/rest/theme/v1/mcp",
        '{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
        content_type="application/json",
        HTTP_AUTHORIZATION=admin_auth,
        CONTENT_LENGTH="999999999",
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == -32600
