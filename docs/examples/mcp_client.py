"""The AI tool endpoint (MCP) from the official Python SDK: connect, list the tools, call two.

Against `make run` (the demo data), from the repository root:

    .venv/bin/python docs/examples/mcp_client.py

Settings, from the environment:

- EMPORION_URL: where the server answers (default http://127.0.0.1:8000).
- EMPORION_EMAIL: the administrator to connect as (default admin@example.com, the demo's).
- EMPORION_APP_PASSWORD: that administrator's application password. Without it the script
  makes one with the repository's `manage.py create_app_password` (the service makes
  application passwords there or in the admin, not over HTTP), which works against the
  database of `make run`; against another server, make one there and set this variable.

The endpoint takes HTTP Basic with the e-mail and an application password. The SDK (mcp 2.x)
talks to it over httpx2, the HTTP client it brings; its `Client` finds the protocol era by
itself (the 2026-07-28 per-request envelope here, the 2025 `initialize` handshake with older
servers). Results use the SDK's field names: `structured_content`, `is_error`,
`input_schema`, `annotations.read_only_hint`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import httpx2
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

DEFAULT_URL = "http://127.0.0.1:8000"
DEMO_ADMIN = "admin@example.com"
MCP_PATH = "/rest/theme/v1/mcp"
PURPOSE = "MCP client example"
REPOSITORY = Path(__file__).resolve().parents[2]


def app_password(email: str) -> str:
    """EMPORION_APP_PASSWORD, or a new application password of `email` made by the
    repository's manage.py (printed once on its standard output)."""
    given = os.environ.get("EMPORION_APP_PASSWORD", "").strip()
    if given:
        return given
    made = subprocess.run(  # noqa: S603 - this interpreter, the repository's manage.py
        [
            sys.executable,
            str(REPOSITORY / "manage.py"),
            "create_app_password",
            email,
            PURPOSE,
        ],
        cwd=REPOSITORY,
        env={"DEBUG": "1", **os.environ},  # the settings of `make run`
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0 or not made.stdout.strip():
        raise SystemExit(
            f"No application password for {email}: {made.stderr.strip() or 'none printed'}\n"
            "Set EMPORION_APP_PASSWORD (make one in the admin or with "
            "`manage.py create_app_password EMAIL NAME` on the server)."
        )
    return made.stdout.strip()


def show_result(name: str, arguments: dict, result) -> None:
    """A tool's answer: a summary of its structured content, or the store's error body."""
    print(f"\n{name} {json.dumps(arguments)}")
    body = result.structured_content
    if result.is_error:
        # a tool error (a missing record, a refused argument): the store's error body
        print(f"  tool error {body['data']['status']} {body['code']}: {body['message']}")
        return
    if name == "search_products":
        print(f"  {body['total']} product(s)")
        for product in body["products"]:
            print(
                f"  #{product['id']:<4} {product['title']:<28} {product['sku'] or '-':<14} "
                f"{product['price']:>9}  {product['stock_status']}"
            )
    elif name == "list_orders":
        print(f"  {body['total']} order(s), page {body['page']} of {body['total_pages']}")
        for order in body["orders"]:
            print(
                f"  #{order['id']:<4} {order['order_number']:<14} {order['status']:<11} "
                f"{order['total']:>9} {order['currency']}  {order['created_at'][:10]}"
            )
    else:
        print(json.dumps(body, indent=2))


async def show(base_url: str, email: str, password: str) -> None:
    """Connect to the endpoint at `base_url` as `email`, list its tools and call two."""
    url = base_url.rstrip("/") + MCP_PATH
    async with (
        httpx2.AsyncClient(auth=httpx2.BasicAuth(email, password), timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        name = client.server_info.name if client.server_info else "the server"
        print(f"Connected to {name} at {url} (MCP {client.protocol_version}).")
        listed = await client.list_tools()
        print(f"{len(listed.tools)} tools:")
        for tool in listed.tools:
            arguments = ", ".join(tool.input_schema["properties"])
            kind = "read-only" if tool.annotations.read_only_hint else "writes"
            print(f"  {tool.name}({arguments}): {tool.title} ({kind})")
        for tool_name, arguments in (
            ("search_products", {"query": "tee", "limit": 5}),
            ("list_orders", {"per_page": 5}),
        ):
            try:
                result = await client.call_tool(tool_name, arguments)
            except MCPError as refused:
                # refused before the tool ran (a capability, the store's licence, a limit)
                print(f"\n{tool_name}: refused {refused.code} {refused.message} {refused.data}")
                continue
            show_result(tool_name, arguments, result)


def _cause(exc: BaseException) -> BaseException:
    """The first exception inside the task groups the SDK raises through."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


def main() -> None:
    base_url = os.environ.get("EMPORION_URL", DEFAULT_URL)
    email = os.environ.get("EMPORION_EMAIL", DEMO_ADMIN)
    password = app_password(email)
    try:
        anyio.run(show, base_url, email, password)
    except Exception as exc:
        cause = _cause(exc)
        if isinstance(cause, MCPError):  # the endpoint said no: credentials, rights, licence
            detail = f" {cause.data}" if cause.data else ""
            raise SystemExit(f"{base_url} refused: {cause.message}{detail}") from exc
        if isinstance(cause, httpx2.TransportError):
            raise SystemExit(f"No answer from {base_url} ({cause!r}): is it running?") from exc
        raise


if __name__ == "__main__":
    main()
