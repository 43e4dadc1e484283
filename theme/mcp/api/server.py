"""The MCP server of the AI tool endpoint, on the official SDK's low-level `Server` (mcp 2.x),
and the bridge that runs its Streamable HTTP transport for one Django request.

Each HTTP request gets a fresh `StreamableHTTPSessionManager` in stateless mode with JSON
responses (no session, no SSE stream): the view hands it the request as an ASGI scope and
collects its answer, through asgiref's `async_to_sync`. The SDK serves both protocol eras on
it: the 2025 handshake (`initialize`, then calls) and the 2026-07-28 per-request envelope
(`server/discover`, then calls), chosen by the `MCP-Protocol-Version` header. Abilities read
the database through `sync_to_async(thread_sensitive=True)`, i.e. on the request's own thread
and connection.

The low-level server of mcp 2.x hands `tools/call` to the handler as it came: checking the
arguments against the tool's JSON schema and shaping a dict as a result (structured content
and its JSON text) are this module's, as the 1.x SDK's `call_tool` decorator did them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

import anyio
from asgiref.sync import sync_to_async
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaError
from jsonschema.exceptions import best_match
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError

from common.api.errors import ApiError, to_api_error
from store.common.capabilities import MANAGE_CUSTOMERS, MANAGE_ORDERS, MANAGE_PRODUCTS, manage
from store.common.errors import StoreErrorStyle, not_found
from store.orders.choices import OrderStatus
from theme.mcp import selectors, services

logger = logging.getLogger(__name__)

SERVER_NAME = "emporion-store"
USER_KEY = "emporion.user"
MAX_ID = 2_147_483_647
PERIODS = ("today", "7d", "30d", "month", "year")


def _int(description: str, *, default: int | None = None, maximum: int = MAX_ID) -> dict:
    schema = {"type": "integer", "minimum": 1, "maximum": maximum, "description": description}
    if default is not None:
        schema["default"] = default
    return schema


def _text(description: str, *, max_length: int = 200, min_length: int = 0) -> dict:
    return {
        "type": "string",
        "minLength": min_length,
        "maxLength": max_length,
        "description": description,
    }


def _date(description: str) -> dict:
    return {
        "type": "string",
        "format": "date",
        "pattern": r"^\d{4}-\d{2}-\d{2}$",
        "description": description,
    }


def _object(properties: dict, required: tuple = ()) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class Ability:
    name: str
    title: str
    description: str
    capability: str
    input_schema: dict
    run: Callable[[dict], dict]
    # the kind of record the ability reads by "<record>_id", named when it is missing
    record: str | None = None


class BadArgument(ValueError):
    """An argument its JSON schema let through but the ability cannot take (named)."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


def _clean_text(value: str, name: str) -> str:
    if "\x00" in value or any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
        raise BadArgument(name, "Text may not contain NUL characters or lone surrogates.")
    return value.strip()


def _day(value: str | None, name: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise BadArgument(name, f"Not a date (YYYY-MM-DD): {value}") from None


ABILITIES: tuple[Ability, ...] = (
    Ability(
        "search_products",
        "Search products",
        "Search the store's published products by title, SKU or description.",
        MANAGE_PRODUCTS,
        _object(
            {
                "query": _text("Words to search for", min_length=1),
                "limit": _int("At most this many products", default=10, maximum=50),
            },
            ("query",),
        ),
        lambda a: selectors.search_products(
            query=_clean_text(a["query"], "query"), limit=a.get("limit", 10)
        ),
    ),
    Ability(
        "get_product",
        "Read a product",
        "One product by id (drafts and archived ones included), with its variants and stock.",
        MANAGE_PRODUCTS,
        _object({"product_id": _int("The product's id")}, ("product_id",)),
        lambda a: selectors.read_product(product_id=a["product_id"]),
        record="product",
    ),
    Ability(
        "list_orders",
        "List orders",
        "A page of orders, the newest first, optionally filtered by status and dates. "
        "Buyers' personal data is redacted.",
        MANAGE_ORDERS,
        _object(
            {
                "status": {"type": "string", "enum": list(OrderStatus.values)},
                "date_from": _date("Orders made on or after this day"),
                "date_to": _date("Orders made on or before this day"),
                "page": _int("The page", default=1, maximum=10_000),
                "per_page": _int("Orders per page", default=20, maximum=selectors.MAX_PER_PAGE),
            }
        ),
        lambda a: selectors.list_orders(
            status=a.get("status"),
            date_from=_day(a.get("date_from"), "date_from"),
            date_to=_day(a.get("date_to"), "date_to"),
            page=a.get("page", 1),
            per_page=a.get("per_page", 20),
        ),
    ),
    Ability(
        "get_order",
        "Read an order",
        "One order by id with its items, payments (a refund's amount negative, so completed "
        "payments add up to what the shop kept), shipments and status history. The buyer's "
        "identity and addresses are redacted (countries kept).",
        MANAGE_ORDERS,
        _object({"order_id": _int("The order's id")}, ("order_id",)),
        lambda a: selectors.read_order(order_id=a["order_id"]),
        record="order",
    ),
    Ability(
        "store_stats",
        "Store statistics",
        "Sales, orders, new customers, top products and low stock for a period, with the "
        "previous period for comparison.",
        manage("reports"),
        _object({"period": {"type": "string", "enum": list(PERIODS), "default": "30d"}}),
        lambda a: selectors.store_stats(period=a.get("period", "30d")),
    ),
    Ability(
        "low_stock",
        "Low stock",
        "Tracked products and variants at or below their low-stock threshold, emptiest first.",
        manage("inventory"),
        _object({"limit": _int("At most this many items", default=20, maximum=100)}),
        lambda a: selectors.low_stock(limit=a.get("limit", 20)),
    ),
    Ability(
        "customer_summaries",
        "Customer summaries",
        "A page of customers with their order count, total spent and last order. Who they are "
        "(e-mail, names, phone) is redacted.",
        MANAGE_CUSTOMERS,
        _object(
            {
                "search": _text("Words in the customer's e-mail or name", max_length=100),
                "page": _int("The page", default=1, maximum=10_000),
                "per_page": _int("Customers per page", default=20, maximum=selectors.MAX_PER_PAGE),
            }
        ),
        lambda a: selectors.customer_summaries(
            search=_clean_text(a.get("search", ""), "search"),
            page=a.get("page", 1),
            per_page=a.get("per_page", 20),
        ),
    ),
)
BY_NAME = {ability.name: ability for ability in ABILITIES}
VALIDATORS = {ability.name: Draft202012Validator(ability.input_schema) for ability in ABILITIES}

_JSON_TYPES = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "object": "an object",
    "array": "an array",
}


def tools() -> list[types.Tool]:
    return [
        types.Tool(
            name=a.name,
            title=a.title,
            description=a.description,
            input_schema=a.input_schema,
            annotations=types.ToolAnnotations(
                title=a.title, read_only_hint=True, destructive_hint=False, open_world_hint=False
            ),
        )
        for a in ABILITIES
    ]


def _refuse(refusal: services.Refusal) -> MCPError:
    return MCPError(code=refusal.code, message=refusal.message, data=refusal.data)


def _check(user, ability: Ability) -> services.Refusal | None:
    """The ability's capability and the store's licence, then the limits (a refused call
    is not counted against the day)."""
    return services.check_access(user, ability.capability) or services.count_call(user)


def _schema_message(error: SchemaError) -> str:
    """What a schema violation means, in the words of the store's other errors (the value
    itself is not echoed: it may be long, or the reason it was refused)."""
    kind, limit = error.validator, error.validator_value
    if kind == "type":
        return f"Must be {_JSON_TYPES.get(limit, limit)}."
    if kind == "minimum":
        return f"At least {limit}."
    if kind == "maximum":
        return f"At most {limit}."
    if kind == "minLength":
        return "May not be blank." if limit == 1 else f"At least {limit} characters."
    if kind == "maxLength":
        return f"At most {limit} characters."
    if kind == "enum":
        return "One of: " + ", ".join(str(choice) for choice in limit) + "."
    if kind == "pattern":
        if error.schema.get("format") == "date":
            return "Not a date (YYYY-MM-DD)."
        return f"Does not match {limit}."
    if kind == "required":
        return "This argument is required."
    if kind == "additionalProperties":
        return "Not an argument of this tool."
    return error.message[:200]


def schema_refusal(ability: Ability, arguments: dict) -> BadArgument | None:
    """The first argument the tool's JSON schema refuses (named), or None."""
    error = best_match(VALIDATORS[ability.name].iter_errors(arguments))
    if error is None:
        return None
    if error.path:
        name = str(error.path[0])
    elif error.validator == "required":
        name = next(p for p in error.validator_value if p not in arguments)
    elif error.validator == "additionalProperties":
        name = sorted(set(arguments) - set(ability.input_schema["properties"]))[0]
    else:
        name = "arguments"
    return BadArgument(name, _schema_message(error))


def tool_result(data: dict) -> types.CallToolResult:
    """A tool's answer: the structured content, and the same as JSON text for clients that read
    text only."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(data, indent=2))],
        structured_content=data,
    )


def tool_error(error: ApiError) -> types.CallToolResult:
    """A tool execution error as MCP has it: a result with `isError` that the agent reads and
    can act on (another id, another argument), not a protocol error. Its structured content
    is the store's error body (`code`, `message`, `data.status`, `data.params`), and its text
    that body as JSON, as for every other result."""
    style = StoreErrorStyle()
    error.status = style.status_for(error)
    body = style.body(error)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(body, indent=2))],
        structured_content=body,
        is_error=True,
    )


def _refusal(ability: Ability, arguments: dict, exc: Exception) -> ApiError | None:
    """What the store would answer for `exc` (None for a crash). A missing record that the
    store's not_found did not name is named from the ability's record and id argument."""
    if isinstance(exc, BadArgument):
        return ApiError(400, "invalid_param", str(exc), {exc.name: [exc.message]})
    if isinstance(exc, ObjectDoesNotExist):
        exc = Http404()
    error = to_api_error(exc)
    if error is not None and error.code == "not_found" and ability.record:
        named = not_found(ability.record, arguments.get(f"{ability.record}_id"))
        error = ApiError(404, named.code, named.detail)
    return error


def _run(ability: Ability, arguments: dict) -> types.CallToolResult:
    """The ability, on the request's thread, once its arguments pass its JSON schema. A bad
    argument, a missing record or another refusal of the store is the tool's own error
    result, logged without a traceback (the agent's mistake, not the service's); anything
    else is a bug: logged with its traceback and answered without its details."""
    try:
        refused = schema_refusal(ability, arguments)
        if refused is not None:
            raise refused
        return tool_result(ability.run(arguments))
    except Exception as exc:
        error = _refusal(ability, arguments, exc)
        if error is None:
            logger.exception("MCP tool %s failed", ability.name)
            return tool_error(
                ApiError(
                    500, "server_error", f"The {ability.name} tool failed; the error was logged."
                )
            )
        result = tool_error(error)
        logger.log(
            logging.WARNING if error.status >= 500 else logging.INFO,
            "MCP tool %s refused: %s %s",
            ability.name,
            error.status,
            result.structured_content["code"],
        )
        return result


async def list_tools(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=tools())


async def call_tool(
    ctx: ServerRequestContext, params: types.CallToolRequestParams
) -> types.CallToolResult:
    """One tool call: the guard (an unknown tool; the caller's capability, the store's
    licence and the limits), raised as the protocol's errors, then the tool, whose own
    refusals are results."""
    ability = BY_NAME.get(params.name)
    if ability is None:
        raise MCPError(code=types.INVALID_PARAMS, message="Unknown tool.")
    user = ctx.request.scope[USER_KEY]
    refusal = await sync_to_async(_check, thread_sensitive=True)(user, ability)
    if refusal is not None:
        raise _refuse(refusal)
    return await sync_to_async(_run, thread_sensitive=True)(ability, params.arguments or {})


def _input_schema(name: str) -> dict | None:
    ability = BY_NAME.get(name)
    return ability.input_schema if ability else None


def build_server() -> Server:
    """The server: the tools and their guard. It keeps no state between requests (the caller
    is read from each request's scope), so one serves every request."""
    return Server(
        SERVER_NAME,
        instructions=(
            "Read-only tools over the Emporion store: products, orders, statistics, low stock "
            "and customer summaries. Personal data (people's names, e-mails, phones, "
            "addresses) is redacted; product, category and other names are shown. A missing "
            "record or an argument the store refuses is a tool error whose structured content "
            "is the store's error body (code, message, data.status)."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        # the 2026-07-28 era checks a call's Mcp-Param-* headers against the tool's schema:
        # read from the table, not by running tools/list
        get_tool_input_schema=_input_schema,
    )


SERVER = build_server()


async def serve(scope: dict, body: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """One HTTP request through the SDK's Streamable HTTP transport (stateless, JSON
    answers): (status, headers, body)."""
    manager = StreamableHTTPSessionManager(app=SERVER, json_response=True, stateless=True)
    delivered = False
    answer: dict = {"status": 500, "headers": [], "body": []}

    async def receive() -> dict:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()  # no disconnect: the answer is collected whole
        return {"type": "http.disconnect"}  # pragma: no cover

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
            answer["headers"] = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            answer["body"].append(message.get("body", b""))

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    return answer["status"], answer["headers"], b"".join(answer["body"])
