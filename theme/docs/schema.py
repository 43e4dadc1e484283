"""The theme namespace's OpenAPI description (settings.THEME_SPECTACULAR_SETTINGS, served at
GET /{REST_ROOT}/{THEME_NS}/v1/docs/openapi.json): every theme route, the modules' included
whether or not they are on (a module that is off answers 404, which each of its operations
documents), and the AI tool endpoint, a plain Django view that drf-spectacular cannot see,
described by hand here (JSON-RPC over Streamable HTTP, JSON answers)."""

from __future__ import annotations

from django.conf import settings

from common.api.examples import add_examples
from store.common.schema import namespace_endpoints

MCP_PATH = "/mcp"
MCP_TAG = "Theme AI tools (MCP)"


def only_theme_paths(endpoints):
    """The theme namespace only, without its own docs routes."""
    return namespace_endpoints(endpoints, settings.THEME_NS)


def _jsonrpc_error(description: str) -> dict:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/McpError"}}},
    }


MCP_SCHEMAS = {
    "McpRequest": {
        "type": "object",
        "description": "A JSON-RPC 2.0 request (with an id) or notification (without), e.g. "
        "`initialize`, `tools/list`, `tools/call` with `{name, arguments}`.",
        "properties": {
            "jsonrpc": {"type": "string", "enum": ["2.0"]},
            "id": {
                "oneOf": [
                    {"type": "integer", "minimum": 0, "maximum": 2_147_483_647},
                    {"type": "string", "maxLength": 64},
                ],
                "description": "Absent for a notification.",
            },
            "method": {"type": "string", "maxLength": 100},
            "params": {"type": "object", "additionalProperties": True},
        },
        "required": ["jsonrpc", "method"],
    },
    "McpResponse": {
        "type": "object",
        "description": "A JSON-RPC 2.0 response: `result` on success, else `error` (an "
        "ability refused for a missing capability, an unlicensed store, a per-user limit "
        "reached, invalid arguments, an unknown method).",
        "properties": {
            "jsonrpc": {"type": "string", "enum": ["2.0"]},
            "id": {"oneOf": [{"type": "integer"}, {"type": "string"}], "nullable": True},
            "result": {"type": "object", "additionalProperties": True},
            "error": {"$ref": "#/components/schemas/McpErrorObject"},
        },
        "required": ["jsonrpc"],
    },
    "McpErrorObject": {
        "type": "object",
        "properties": {
            "code": {"type": "integer", "description": "JSON-RPC error code."},
            "message": {"type": "string"},
            "data": {"description": "More about the error, when there is more."},
        },
        "required": ["code", "message"],
    },
    "McpError": {
        "type": "object",
        "description": "A JSON-RPC 2.0 error answer at the HTTP level.",
        "properties": {
            "jsonrpc": {"type": "string", "enum": ["2.0"]},
            "id": {"oneOf": [{"type": "integer"}, {"type": "string"}], "nullable": True},
            "error": {"$ref": "#/components/schemas/McpErrorObject"},
        },
        "required": ["jsonrpc", "error"],
    },
}


def mcp_operation() -> dict:
    return {
        "post": {
            "operationId": "mcp_post",
            "summary": "The AI tool endpoint (MCP over Streamable HTTP)",
            "description": "A stateless Model Context Protocol server answering in JSON (no "
            "session, no SSE stream: GET and DELETE answer 405). For administrators "
            "(manage_options) with an application password over HTTP Basic. Read-only "
            "abilities (tools/list names them): product search and details, orders, store "
            "stats, low stock, customer summaries, personal data redacted. Each ability "
            "checks its own capability and the store's licence; per-user limits per minute "
            "and per day (THEME_MCP_CALLS_PER_MINUTE, THEME_MCP_CALLS_PER_DAY) answer a "
            "JSON-RPC error. The body is capped at THEME_MCP_MAX_BODY_BYTES.",
            "tags": [MCP_TAG],
            "security": [{"appPasswordAuth": []}],
            "parameters": [
                {
                    "name": "Accept",
                    "in": "header",
                    "required": True,
                    "schema": {"type": "string", "enum": ["application/json, text/event-stream"]},
                    "description": "Must include application/json (406 otherwise).",
                }
            ],
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/McpRequest"}}
                },
            },
            "responses": {
                "200": {
                    "description": "The JSON-RPC response to a request.",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/McpResponse"}}
                    },
                },
                "202": {"description": "A notification or a response, accepted (no body)."},
                "400": _jsonrpc_error(
                    "Not JSON (-32700), not a JSON-RPC message, too deep, or holding NUL "
                    "characters or lone surrogates (-32600)."
                ),
                "401": _jsonrpc_error("No or bad application password (WWW-Authenticate)."),
                "403": _jsonrpc_error("Not an administrator (manage_options)."),
                "404": _jsonrpc_error("A session id was sent: this server keeps no sessions."),
                "406": _jsonrpc_error("The Accept header does not include application/json."),
                "413": _jsonrpc_error("The body is over THEME_MCP_MAX_BODY_BYTES."),
                "415": _jsonrpc_error("The Content-Type is not application/json."),
                "429": _jsonrpc_error(
                    "Too many failed log-ins of the account or the address (-32029, "
                    "`login_locked`); see Retry-After."
                ),
            },
        }
    }


def add_mcp_operation(result, generator, request, public):
    """POSTPROCESSING_HOOKS: the AI tool endpoint's operation and its bodies."""
    operation = mcp_operation()
    add_examples(operation["post"], "theme")  # the recorded exchange (common.api.examples)
    result.setdefault("paths", {})[MCP_PATH] = operation
    result.setdefault("components", {}).setdefault("schemas", {}).update(MCP_SCHEMAS)
    return result
