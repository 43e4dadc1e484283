"""Fixtures of the AI tool endpoint's tests: a live server, an administrator with an
application password, the store's licence, and the SDK's own client (mcp 2.x, over httpx2,
the HTTP client the SDK brings) in either protocol era."""

from __future__ import annotations

import json

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from erp.core import services as erp_services
from licensing.models import Tier
from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.licensing.factories import LicenseFactory

PATH = "/rest/theme/v1/mcp"


@pytest.fixture
def licensed(transactional_db):
    """The store's Business licence, given to the ERP's activation (the store's licence key)."""
    licence = LicenseFactory(tier=Tier.BUSINESS)
    erp_services.erp_activate(license_key=licence.license_key)
    return licence


@pytest.fixture
def admin_auth(transactional_db) -> str:
    admin = grant(UserFactory(email="mcp-admin@example.com"), "manage_options")
    return basic_auth(admin)


@pytest.fixture
def url(live_server) -> str:
    return live_server.url + PATH


# The protocol eras the SDK's client speaks: the 2025 `initialize` handshake, and the
# 2026-07-28 per-request envelope its default mode ("auto") finds with `server/discover`.
LEGACY = "2025-11-25"
MODERN = "2026-07-28"
ERAS = (LEGACY, MODERN)


def run_session(url: str, authorization: str | None, work, *, era: str = MODERN):
    """Run `work(client)` (async) with the SDK's `Client`, connected in `era`; its result."""

    async def main():
        headers = {"Authorization": authorization} if authorization else {}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode="legacy" if era == LEGACY else "auto") as client:
                assert client.protocol_version == era
                return await work(client)

    return anyio.run(main)


def call(url: str, authorization: str, name: str, arguments: dict | None = None, *, era=MODERN):
    """One tool call through the SDK's client: the CallToolResult."""

    async def work(client):
        return await client.call_tool(name, arguments or {})

    return run_session(url, authorization, work, era=era)


def structured(result) -> dict:
    assert not result.is_error, result.content
    assert result.structured_content == json.loads(result.content[0].text)
    return result.structured_content


def raw_post(url: str, body, *, authorization: str | None = None, **headers) -> httpx2.Response:
    """A JSON-RPC POST without the SDK (for the HTTP-level refusals and hostile bodies)."""
    sent = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        **headers,
    }
    if authorization:
        sent["Authorization"] = authorization
    content = body if isinstance(body, bytes | str) else json.dumps(body)
    return httpx2.post(url, content=content, headers=sent, timeout=30)
