"""POST /rest/theme/v1/mcp: the AI tool endpoint (MCP over Streamable HTTP, stateless, JSON
answers). A plain Django view: it authenticates the caller (an application password over
HTTP Basic, the store's AppPasswordAuthentication, behind the log-in limits: 429 while
locked), requires manage_options, refuses bodies the protocol cannot take without reaching
the SDK, then hands the request to the SDK's transport (api.server.serve). GET (the SSE
stream) and DELETE (sessions) answer 405: the server keeps no sessions and does not stream."""

from __future__ import annotations

import json

from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, JsonResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions

from accounts.authentication import AppPasswordAuthentication, LoginLockedError
from store.common.capabilities import MANAGE_OPTIONS, has_capability
from theme.mcp import services

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
MAX_DEPTH = 32


def _error(status: int, code: int, message: str, *, data: dict | None = None, **headers):
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    if data is not None:
        body["error"]["data"] = data
    response = JsonResponse(body, status=status)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def _hostile(value, depth: int = 0) -> str | None:
    """Why a parsed body cannot be taken (too deep, NUL, lone surrogates), or None."""
    if depth > MAX_DEPTH:
        return "The body is nested too deeply."
    if isinstance(value, str):
        if "\x00" in value:
            return "Text may not contain NUL characters."
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
            return "Text may not contain lone surrogates."
        return None
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, list):
        items = value
    else:
        return None
    for item in items:
        why = _hostile(item, depth + 1)
        if why:
            return why
    return None


def _port(request) -> int:
    try:
        return int(request.get_port())
    except (TypeError, ValueError):
        return 443 if request.is_secure() else 80


def _scope(request, user, user_key: str) -> dict:
    headers = [
        (name.lower().encode("latin-1", "replace"), value.encode("latin-1", "replace"))
        for name, value in request.headers.items()
    ]
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode("utf-8", "replace"),
        "root_path": "",
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1", "replace"),
        "headers": headers,
        "server": (request.META.get("SERVER_NAME", "localhost"), _port(request)),
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
        "state": {},
        user_key: user,
    }


@method_decorator(csrf_exempt, name="dispatch")
class McpView(View):
    def get(self, request, *args, **kwargs):
        return self._not_streamed()

    def http_method_not_allowed(self, request, *args, **kwargs):
        return self._not_streamed()

    def options(self, request, *args, **kwargs):
        response = HttpResponse(status=204)
        response["Allow"] = "POST, OPTIONS"
        return response

    def _not_streamed(self):
        return _error(
            405,
            INVALID_REQUEST,
            "This MCP server is stateless and answers in JSON: POST JSON-RPC messages; there "
            "is no SSE stream and no session to delete.",
            Allow="POST, OPTIONS",
        )

    def post(self, request, *args, **kwargs):
        request.get_host()  # ALLOWED_HOSTS (the SDK's own host check is off)
        try:
            found = AppPasswordAuthentication().authenticate(request)
        except LoginLockedError as exc:
            return _error(
                429,
                services.RATE_LIMITED,
                str(exc.detail),
                data={"status": 429, "code": "login_locked", "retry_after": exc.wait},
                Retry_After=str(exc.wait),
            )
        except exceptions.AuthenticationFailed as exc:
            return self._unauthorized(str(exc.detail))
        if found is None:
            return self._unauthorized(
                "Authenticate with an application password over HTTP Basic "
                "(your e-mail and the password)."
            )
        user = found[0]
        if not user.is_active or not has_capability(user, MANAGE_OPTIONS):
            return _error(
                403,
                services.FORBIDDEN,
                "The AI tool endpoint is for administrators (manage_options).",
                data={"status": 403, "code": "insufficient_capability"},
            )
        limit = settings.THEME_MCP_MAX_BODY_BYTES
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        if declared > limit:
            return _error(413, INVALID_REQUEST, f"The body is over {limit} bytes.")
        try:
            body = request.body
        except RequestDataTooBig:
            return _error(413, INVALID_REQUEST, f"The body is over {limit} bytes.")
        if len(body) > limit:
            return _error(413, INVALID_REQUEST, f"The body is over {limit} bytes.")
        try:
            parsed = json.loads(body)
        except (ValueError, RecursionError):
            return _error(400, PARSE_ERROR, "Parse error: the body is not JSON.")
        why = _hostile(parsed)
        if why:
            return _error(400, INVALID_REQUEST, why)
        # The MCP SDK (and its HTTP and ASGI stack) loads with the first call, not with the URL
        # configuration of every process: most never serve this endpoint (a second of start-up).
        from theme.mcp.api import server

        scope = _scope(request, user, server.USER_KEY)
        status, headers, content = async_to_sync(server.serve)(scope, body)
        response = HttpResponse(content, status=status)
        for name, value in headers:
            name = name.decode("latin-1")
            if name.lower() not in ("content-length",):
                response[name] = value.decode("latin-1")
        if not response.has_header("Content-Type"):
            response["Content-Type"] = "application/json"
        response["Cache-Control"] = "no-store"
        return response

    def _unauthorized(self, message: str):
        return _error(
            401,
            INVALID_REQUEST,
            message,
            data={"status": 401, "code": "not_authenticated"},
            WWW_Authenticate='Basic realm="store"',
        )
