"""gunicorn's own refusals (a request it could not parse: a request line over its maximum,
headers too large, a malformed line) answered as JSON instead of its HTML page.

gunicorn answers these before any URL is read, so the namespace of the request is unknown: the
body carries the keys of both error shapes, the portal's (`detail`, `code`) and the store's
and the other namespaces' (`code`, `message`, `data.status`), so that a client of either
reads it as it reads the application's own errors. Installed by config/gunicorn_conf.py in the
master, before the workers fork.
"""

from __future__ import annotations

import json

from gunicorn import util

# Codes by status, as the application names the same refusals.
CODES = {
    400: "bad_request",
    403: "forbidden",
    414: "uri_too_long",
    417: "expectation_failed",
    431: "request_header_fields_too_large",
    500: "server_error",
    501: "not_implemented",
}


def body(status: int, reason: str, message: str) -> bytes:
    text = message or reason
    return json.dumps(
        {
            "code": CODES.get(status, "bad_request"),
            "message": text,
            "detail": text,
            "data": {"status": status},
        },
        separators=(",", ":"),
    ).encode()


def write_error(sock, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's `util.write_error`, answering JSON."""
    content = body(int(status_int), reason, mesg)
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(content)}\r\n"
        "Cache-Control: no-store\r\n"
        "\r\n"
    )
    util.write_nonblock(sock, head.encode("latin1") + content)


def install() -> None:
    util.write_error = write_error
