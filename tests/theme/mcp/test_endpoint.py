"""The AI tool endpoint through the official SDK's client against a live server: the tools
listed and called, every answer redacted, and the refusals (no credentials, a non-admin, no
licence, over the limits) as the protocol's errors."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from mcp import MCPError

from licensing.models import License, LicenseStatus, Tier
from store.common.capabilities import MANAGE_ORDERS
from store.orders.choices import OrderStatus
from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked
from tests.theme.mcp.conftest import ERAS, LEGACY, call, raw_post, run_session, structured
from theme.mcp.api.server import ABILITIES
from theme.mcp.models import McpDailyUsage
from theme.mcp.redaction import REDACTED
from theme.mcp.services import FORBIDDEN, LICENSE_REQUIRED, RATE_LIMITED

TOOLS = {
    "search_products",
    "get_product",
    "list_orders",
    "get_order",
    "store_stats",
    "low_stock",
    "customer_summaries",
}


@pytest.fixture
def shop(licensed):
    """A product low on stock and an order by a customer whose details must never leak."""
    lamp = stocked(
        title="Desk lamp",
        stock=2,
        price="25.00",
        sku="LAMP-1",
        description="Call +30 210 123 4567 or write to sales@example.com",
        low_stock_threshold=5,
    )
    buyer = CustomerFactory(
        email="cleo.private@example.com", first_name="Cleo", last_name="Secret", phone="6912345678"
    )
    address = {
        "first_name": "Cleo",
        "last_name": "Secret",
        "address_1": "1 Hidden Street",
        "city": "Athens",
        "postcode": "10558",
        "country": "GR",
        "email": "cleo.private@example.com",
        "phone": "6912345678",
    }
    order = make_order(
        line(lamp, 1),
        customer=buyer,
        status="processing",
        billing_address=address,
        shipping_address=address,
        customer_note="Ring Cleo on 6912345678",
    )
    return {"lamp": lamp, "buyer": buyer, "order": order}


PERSONAL = ("cleo.private@example.com", "Cleo", "Secret", "6912345678", "Hidden Street", "10558")


def assert_redacted(payload) -> None:
    text = json.dumps(payload)
    for secret in (*PERSONAL, "sales@example.com", "210 123 4567"):
        assert secret not in text, (secret, text[:500])


@pytest.mark.parametrize("era", ERAS)
def test_the_sdk_client_lists_every_tool(url, admin_auth, era):
    async def work(client):
        return client.instructions, await client.list_tools()

    instructions, listed = run_session(url, admin_auth, work, era=era)
    assert {tool.name for tool in listed.tools} == TOOLS == {a.name for a in ABILITIES}
    for tool in listed.tools:
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.destructive_hint is False
        assert tool.input_schema["additionalProperties"] is False
    assert "Personal data" in instructions


@pytest.mark.parametrize("era", ERAS)
def test_every_tool_answers_redacted(url, admin_auth, shop, era):
    lamp, order, buyer = shop["lamp"], shop["order"], shop["buyer"]

    async def work(client):
        return {
            "search": await client.call_tool("search_products", {"query": "lamp"}),
            "product": await client.call_tool("get_product", {"product_id": lamp.pk}),
            "orders": await client.call_tool("list_orders", {"status": "processing"}),
            "order": await client.call_tool("get_order", {"order_id": order.pk}),
            "stats": await client.call_tool("store_stats", {"period": "30d"}),
            "low": await client.call_tool("low_stock", {"limit": 5}),
            "customers": await client.call_tool("customer_summaries", {"search": "cleo"}),
        }

    answers = run_session(url, admin_auth, work, era=era)
    results = {name: structured(result) for name, result in answers.items()}
    assert results["search"]["total"] == 1
    assert results["search"]["products"][0]["sku"] == "LAMP-1"
    assert results["product"]["id"] == lamp.pk
    assert REDACTED in results["product"]["description"]
    assert results["orders"]["total"] == 1
    assert results["orders"]["orders"][0]["id"] == order.pk
    got = results["order"]
    assert got["id"] == order.pk
    assert got["items"][0]["sku"] == "LAMP-1"
    assert got["billing_country"] == "GR"
    assert got["billing_address"] == REDACTED
    assert got["customer_note"] == REDACTED
    assert got["customer"]["id"] == buyer.pk
    assert got["customer"]["email"] == REDACTED
    assert results["stats"]["totals"]["orders"] == 1
    assert results["stats"]["period"]["name"] == "30d"
    assert results["low"]["items"][0]["product_id"] == lamp.pk
    customers = results["customers"]["customers"]
    assert [c["id"] for c in customers] == [buyer.pk]
    assert customers[0]["orders_count"] == 1
    assert customers[0]["email"] == REDACTED
    assert_redacted(results)


@pytest.mark.parametrize("era", ERAS)
def test_a_missing_record_or_a_bad_argument_is_a_tool_error(url, admin_auth, licensed, era):
    async def work(client):
        return [
            await client.call_tool("get_product", {"product_id": 999999}),
            await client.call_tool("get_order", {"order_id": 999999}),
            await client.call_tool("list_orders", {"date_from": "2026-02-31"}),
            await client.call_tool("get_order", {"order_id": 10**40}),
            await client.call_tool("get_order", {"order_id": "1; DROP TABLE"}),
            await client.call_tool("get_order", {}),
            await client.call_tool("list_orders", {"status": "nope"}),
            await client.call_tool("list_orders", {"date_to": "31/12/2026"}),
            await client.call_tool("search_products", {"query": ""}),
            await client.call_tool("search_products", {"query": "x" * 5000}),
            await client.call_tool("low_stock", {"extra": True}),
        ]

    results = run_session(url, admin_auth, work, era=era)
    for result in results:
        assert result.is_error is True, result
        assert json.loads(result.content[0].text) == result.structured_content
    # the store's refusals come with the store's error body
    assert results[0].structured_content["code"] == "product_not_found"
    assert results[1].structured_content == {
        "code": "order_not_found",
        "message": "No order with id 999999.",
        "data": {"status": 404},
    }
    assert results[2].structured_content["data"]["params"] == {
        "date_from": "Not a date (YYYY-MM-DD): 2026-02-31"
    }
    # so do the arguments the tool's JSON schema refuses: each named, its value not echoed
    refused = [r.structured_content for r in results[3:]]
    assert {(e["code"], e["data"]["status"]) for e in refused} == {("invalid_param", 400)}
    assert [e["data"]["params"] for e in refused] == [
        {"order_id": "At most 2147483647."},
        {"order_id": "Must be an integer."},
        {"order_id": "This argument is required."},
        {"status": "One of: " + ", ".join(OrderStatus.values) + "."},
        {"date_to": "Not a date (YYYY-MM-DD)."},
        {"query": "May not be blank."},
        {"query": "At most 200 characters."},
        {"extra": "Not an argument of this tool."},
    ]
    assert "x" * 201 not in results[-2].content[0].text


@pytest.mark.parametrize("era", ERAS)
def test_an_unknown_tool_is_a_protocol_error(url, admin_auth, licensed, era):
    async def work(client):
        with pytest.raises(MCPError) as caught:
            await client.call_tool("drop_tables", {})
        return caught.value.error

    error = run_session(url, admin_auth, work, era=era)
    assert error.code == -32602
    assert error.message == "Unknown tool."
    assert McpDailyUsage.objects.count() == 0  # not counted


def test_without_credentials_401(url):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = raw_post(url, body)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Basic realm="store"'
    assert response.json()["error"]["data"]["code"] == "not_authenticated"
    wrong = "Basic " + __import__("base64").b64encode(b"mcp-admin@example.com:nope").decode()
    assert raw_post(url, body, authorization=wrong).status_code == 401


def test_a_non_admin_is_refused(url, transactional_db):
    manager = grant(UserFactory(email="orders-only@example.com"), MANAGE_ORDERS)
    response = raw_post(
        url, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, authorization=basic_auth(manager)
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == FORBIDDEN
    shopper = UserFactory(email="shopper-mcp@example.com")
    assert (
        raw_post(
            url, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, authorization=basic_auth(shopper)
        )
    ).status_code == 403


def test_each_ability_checks_its_own_capability(transactional_db, licensed):
    """The endpoint admits administrators only, but every ability still checks the capability
    it needs (the guard the server runs before each call)."""
    from theme.mcp.api.server import BY_NAME, _check

    orders_only = grant(UserFactory(email="orders-guard@example.com"), MANAGE_ORDERS)
    assert _check(orders_only, BY_NAME["list_orders"]) is None
    refusal = _check(orders_only, BY_NAME["customer_summaries"])
    assert refusal.code == FORBIDDEN
    assert refusal.data["capability"] == "ec_manage_customers"


@pytest.mark.parametrize("how", ["none", "revoked", "expired", "starter"])
def test_without_the_store_licence_calls_are_refused(url, admin_auth, licensed, how):
    if how == "none":
        from erp.core.models import ErpSettings

        ErpSettings.objects.update(license_key="", active=False)
    elif how == "revoked":
        License.objects.filter(pk=licensed.pk).update(status=LicenseStatus.REVOKED)
    elif how == "expired":
        License.objects.filter(pk=licensed.pk).update(expires_at=timezone.now() - timedelta(days=1))
    else:
        License.objects.filter(pk=licensed.pk).update(tier=Tier.STARTER)
    from erp.core import gate

    gate.forget()

    async def work(client):
        with pytest.raises(MCPError) as caught:
            await client.call_tool("low_stock", {})
        return caught.value.error

    error = run_session(url, admin_auth, work)
    assert error.code == LICENSE_REQUIRED
    assert error.data["code"] == "mcp_license_required"
    assert McpDailyUsage.objects.count() == 0  # a refused call is not counted


def test_the_licence_need_not_turn_the_erp_on(url, admin_auth, licensed):
    from erp.core import gate
    from erp.core.models import ErpSettings

    ErpSettings.objects.update(active=False)
    gate.forget()
    assert structured(call(url, admin_auth, "low_stock"))["count"] == 0


@pytest.fixture
def mid_minute(time_machine):
    """The clock (ticking) ten seconds into the next minute: the per-minute count is kept per
    calendar minute, so calls that straddle a minute's end would be counted in two windows."""
    start = timezone.now().replace(second=10, microsecond=0) + timedelta(minutes=1)
    time_machine.move_to(start, tick=True)


@override_settings(THEME_MCP_CALLS_PER_MINUTE=2, THEME_MCP_CALLS_PER_DAY=100)
def test_over_the_minute_limit_the_protocol_error(url, admin_auth, licensed, mid_minute):
    async def work(client):
        first = await client.call_tool("low_stock", {})
        second = await client.call_tool("low_stock", {})
        with pytest.raises(MCPError) as caught:
            await client.call_tool("low_stock", {})
        return first, second, caught.value.error

    # in the 2025 handshake era (the other tests' refusals are the default 2026 era's)
    first, second, error = run_session(url, admin_auth, work, era=LEGACY)
    assert not first.is_error
    assert not second.is_error
    assert error.code == RATE_LIMITED
    assert error.data["window"] == "minute"
    assert error.data["limit"] == 2
    assert 1 <= error.data["retry_after"] <= 60


@override_settings(THEME_MCP_CALLS_PER_MINUTE=0, THEME_MCP_CALLS_PER_DAY=3)
def test_over_the_day_limit_the_protocol_error_counted_in_the_database(
    url, admin_auth, licensed, mid_minute
):
    async def work(client):
        for _ in range(3):
            assert not (await client.call_tool("low_stock", {})).is_error
        with pytest.raises(MCPError) as caught:
            await client.call_tool("low_stock", {})
        return caught.value.error

    error = run_session(url, admin_auth, work)
    assert error.code == RATE_LIMITED
    assert error.data["window"] == "day"
    usage = McpDailyUsage.objects.get()
    assert usage.calls == 3
    assert usage.day == timezone.now().date()
    # the raw answer is a JSON-RPC error (HTTP 200), never a bare 429 page
    response = raw_post(
        url,
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "low_stock", "arguments": {}},
        },
        authorization=admin_auth,
        **{"MCP-Protocol-Version": "2025-06-18"},
    )
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json()["id"] == 7
    assert response.json()["error"]["code"] == RATE_LIMITED
