"""Fixtures of the AI tool endpoint's tests: a live server, an administrator with an
application password, the store's licence, and the SDK's own client."""

from __future__ import annotations

import json

import anyio
import httpx
import pytest
from mcp import ClientSession
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


def run_session(url: str, authorization: str | None, work):
    """Run `work(session)` (async) in an initialized SDK client session; its result."""

    async def main():
        headers = {"Authorization": authorization} if authorization else {}
        async with (
            httpx.AsyncClient(headers=headers, timeout=30) as http,
            streamable_http_client(url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await work(session)

    return anyio.run(main)


def call(url: str, authorization: str, name: str, arguments: dict | None = None):
    """One tool call through the SDK's client: the CallToolResult."""

    async def work(session):
        return await session.call_tool(name, arguments or {})

    return run_session(url, authorization, work)


def structured(result) -> dict:
    assert not result.isError, result.content
    assert result.structuredContent == json.loads(result.content[0].text)
    return result.structuredContent


def raw_post(url: str, body, *, authorization: str | None = None, **headers) -> httpx.Response:
    """A JSON-RPC POST without the SDK (for the HTTP-level refusals and hostile bodies)."""
    sent = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        **headers,
    }
    if authorization:
        sent["Authorization"] = authorization
    content = body if isinstance(body, bytes | str) else json.dumps(body)
    return httpx.post(url, content=content, headers=sent, timeout=30)
