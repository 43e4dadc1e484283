"""What a tool call answers, through Django's in-process client: a missing record or another
refusal of the store is the tool's own error result (isError, the store's error body, no
traceback logged), only a bug logs one; refunds are negative in an order's payments; names
that are not a person's are shown."""

from __future__ import annotations

import json
import logging
from decimal import Decimal

import pytest
from django.test import Client

from erp.core import services as erp_services
from store.common.errors import invalid_params, rule_broken
from store.orders.models import Order
from store.orders.services.payments import payment_create
from tests.accounts.factories import UserFactory
from tests.erp.conftest import store_licence
from tests.fixtures.store import basic_auth, grant
from tests.store.catalog.factories import CategoryFactory
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked
from theme.mcp import selectors
from theme.mcp.redaction import REDACTED

pytestmark = pytest.mark.django_db
HEADERS = {
    "HTTP_ACCEPT": "application/json, text/event-stream",
    "HTTP_MCP_PROTOCOL_VERSION": "2025-06-18",
}
LOGGER = "theme.mcp.api.server"


@pytest.fixture
def auth() -> str:
    erp_services.erp_activate(license_key=store_licence().license_key)
    return basic_auth(grant(UserFactory(email="mcp-results@example.com"), "manage_options"))


def call(auth: str, name: str, arguments: dict) -> dict:
    """One tools/call: the CallToolResult as JSON."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    response = Client().post(
        "/rest/theme/v1/mcp",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=auth,
        **HEADERS,
    )
    assert response.status_code == 200, response.content
    result = response.json()["result"]
    # the text is the structured content as JSON, for clients that read text only
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    return result


def error_of(result: dict) -> dict:
    assert result["isError"] is True, result
    return result["structuredContent"]


def tool_logs(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == LOGGER]


def assert_no_traceback(caplog, *, refusal: str) -> None:
    """The call was logged once, as an INFO line naming the refusal, with no traceback."""
    records = tool_logs(caplog)
    assert [(r.levelno, r.getMessage()) for r in records] == [(logging.INFO, refusal)]
    assert all(r.exc_info is None for r in caplog.records)
    assert all(r.levelno < logging.WARNING for r in caplog.records), [
        r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING
    ]


@pytest.mark.parametrize(
    ("tool", "argument", "kind"),
    [("get_order", "order_id", "order"), ("get_product", "product_id", "product")],
)
def test_a_missing_record_is_a_not_found_result_without_a_traceback(
    auth, caplog, tool, argument, kind
):
    caplog.set_level(logging.INFO)
    result = call(auth, tool, {argument: 999999})
    assert error_of(result) == {
        "code": f"{kind}_not_found",
        "message": f"No {kind} with id 999999.",
        "data": {"status": 404},
    }
    assert_no_traceback(caplog, refusal=f"MCP tool {tool} refused: 404 {kind}_not_found")


def test_a_missing_row_the_selector_did_not_name_is_named_from_the_tool(auth, caplog, monkeypatch):
    def missing(**kwargs):
        raise Order.DoesNotExist

    monkeypatch.setattr(selectors, "read_order", missing)
    caplog.set_level(logging.INFO)
    error = error_of(call(auth, "get_order", {"order_id": 4242}))
    assert error["code"] == "order_not_found"
    assert error["message"] == "No order with id 4242."
    assert error["data"]["status"] == 404
    assert_no_traceback(caplog, refusal="MCP tool get_order refused: 404 order_not_found")


def test_a_broken_rule_is_a_tool_error_with_its_code(auth, caplog, monkeypatch):
    def refused(**kwargs):
        raise rule_broken("The order is being edited.", code="order_locked", status=409)

    monkeypatch.setattr(selectors, "read_order", refused)
    caplog.set_level(logging.INFO)
    assert error_of(call(auth, "get_order", {"order_id": 1})) == {
        "code": "order_locked",
        "message": "The order is being edited.",
        "data": {"status": 409},
    }
    assert_no_traceback(caplog, refusal="MCP tool get_order refused: 409 order_locked")


def test_an_invalid_parameter_is_a_tool_error_naming_it(auth, caplog, monkeypatch):
    def refused(**kwargs):
        raise invalid_params({"period": ["Unknown period."]})

    monkeypatch.setattr(selectors, "store_stats", refused)
    caplog.set_level(logging.INFO)
    error = error_of(call(auth, "store_stats", {"period": "7d"}))
    assert error["code"] == "invalid_param"
    assert error["data"] == {"status": 400, "params": {"period": "Unknown period."}}
    assert_no_traceback(caplog, refusal="MCP tool store_stats refused: 400 invalid_param")


def test_an_argument_the_schema_lets_through_but_the_tool_cannot_take(auth, caplog):
    caplog.set_level(logging.INFO)
    error = error_of(call(auth, "list_orders", {"date_from": "2026-02-31"}))
    assert error["code"] == "invalid_param"
    assert error["data"]["status"] == 400
    assert error["data"]["params"] == {"date_from": "Not a date (YYYY-MM-DD): 2026-02-31"}
    assert_no_traceback(caplog, refusal="MCP tool list_orders refused: 400 invalid_param")


def test_an_argument_the_schema_refuses_is_named_without_a_traceback(auth, caplog, monkeypatch):
    """The tool's JSON schema is checked by the endpoint itself (the SDK's low-level server
    does not): the refusal is the store's error body naming the argument, and the tool never
    runs."""
    ran = []
    monkeypatch.setattr(selectors, "read_order", lambda **kwargs: ran.append(kwargs))
    caplog.set_level(logging.INFO)
    assert error_of(call(auth, "get_order", {"order_id": 0})) == {
        "code": "invalid_param",
        "message": "order_id: At least 1.",
        "data": {"status": 400, "params": {"order_id": "At least 1."}},
    }
    assert_no_traceback(caplog, refusal="MCP tool get_order refused: 400 invalid_param")
    caplog.clear()
    error = error_of(call(auth, "get_order", {"order_id": 1, "verbose": True}))
    assert error["data"]["params"] == {"verbose": "Not an argument of this tool."}
    assert ran == []


def test_only_a_bug_logs_a_traceback_and_its_details_stay_in_the_log(auth, caplog, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("internal detail 7f3a")

    monkeypatch.setattr(selectors, "read_order", broken)
    caplog.set_level(logging.INFO)
    result = call(auth, "get_order", {"order_id": 1})
    assert error_of(result) == {
        "code": "server_error",
        "message": "The get_order tool failed; the error was logged.",
        "data": {"status": 500},
    }
    assert "7f3a" not in json.dumps(result)
    (record,) = tool_logs(caplog)
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None
    assert "internal detail 7f3a" in str(record.exc_info[1])


def test_an_orders_refunds_are_negative_and_its_payments_sum_to_what_was_kept(auth):
    lamp = stocked(title="Desk lamp", stock=5, price="25.00")
    order = make_order(line(lamp, 2), status="processing")
    payment_create(order_id=order.pk, fields={"kind": "payment", "amount": Decimal("50.00")})
    payment_create(order_id=order.pk, fields={"kind": "refund", "amount": Decimal("20.00")})
    payment_create(
        order_id=order.pk,
        fields={"kind": "refund", "amount": Decimal("5.00"), "status": "failed"},
    )
    got = call(auth, "get_order", {"order_id": order.pk})["structuredContent"]
    assert [(p["kind"], p["status"], p["amount"]) for p in got["payments"]] == [
        ("payment", "completed", "50.00"),
        ("refund", "completed", "-20.00"),
        ("refund", "failed", "-5.00"),
    ]
    kept = sum(Decimal(p["amount"]) for p in got["payments"] if p["status"] == "completed")
    assert kept == Decimal("30.00")
    assert kept == Decimal(got["amount_paid"]) - Decimal(got["amount_refunded"])


def test_names_that_are_not_a_persons_are_shown(auth):
    lighting = CategoryFactory(name="Lighting")
    lamp = stocked(title="Desk lamp", stock=2, price="123456.78", low_stock_threshold=5)
    lamp.categories.add(lighting)
    buyer = CustomerFactory(
        email="dora.hidden@example.com", first_name="Dora", last_name="Hidden", company="Dora Co"
    )
    order = make_order(line(lamp, 1), customer=buyer, status="processing")

    product = call(auth, "get_product", {"product_id": lamp.pk})["structuredContent"]
    assert product["title"] == "Desk lamp"
    assert product["categories"] == [{"id": lighting.pk, "name": "Lighting", "slug": lighting.slug}]

    stats = call(auth, "store_stats", {"period": "30d"})["structuredContent"]
    assert stats["period"]["name"] == "30d"
    assert stats["previous_period"]["name"] == "previous"
    assert stats["top_products"][0]["title"] == "Desk lamp"
    # an amount is a number, never taken for a phone number
    assert stats["totals"]["revenue"] == str(order.total)
    assert stats["top_products"][0]["revenue"] == str(order.total)

    got = call(auth, "get_order", {"order_id": order.pk})["structuredContent"]
    assert got["items"][0]["title"] == "Desk lamp"
    assert got["customer"]["first_name"] == REDACTED
    assert got["customer"]["email"] == REDACTED
    customers = call(auth, "customer_summaries", {})["structuredContent"]["customers"]
    assert [c["id"] for c in customers] == [buyer.pk]
    assert customers[0]["total_spent"] == str(order.total)
    text = json.dumps([got, customers])
    for secret in ("Dora", "Hidden", "dora.hidden"):
        assert secret not in text
