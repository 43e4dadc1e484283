"""gunicorn's logs in the project's format (config/gunicorn_conf.py names this logger class).

The access log is one line per request (INFO, logger `gunicorn.access`): `method`, `path`,
`status`, `duration_ms`, `bytes` (of the body sent), `remote_addr` (the peer: the reverse proxy
behind one), `forwarded_for` (its X-Forwarded-For, when sent), `user_agent` and `request_id`,
the id the answer's X-Request-ID carries (common.observability), so that the line joins the
request's own log lines. gunicorn's own lines (`gunicorn.error`: workers booting, timeouts) get
the same format. Both follow LOG_FORMAT (common.logging_json).

No credentials: headers are not logged (Authorization, cookies, API keys), nor query strings
(feed and page tokens travel in them), and the path segment of the routes whose path carries a
token (SECRET_PATHS) is replaced by SCRUBBED.
"""

from __future__ import annotations

import logging
import re
import traceback

from gunicorn import glogging

from common import logging_json
from common.observability import HEADER, RequestIdFilter

SCRUBBED = "[scrubbed]"
# The routes whose last path segment is a credential (a one-time or bearer token); a new route
# taking a `token` in its path belongs here (tests/common/test_logs_json.py walks the URLconf).
SECRET_PATHS = re.compile(r"(/(?:pay/sandbox|downloads|recover-cart|newsletter/confirm)/)[^/]+")
# The longest user agent or X-Forwarded-For kept (they are the caller's text).
MAX_HEADER_CHARS = 512
_PLAIN_ACCESS = (
    f'{logging_json.PLAIN} %(remote_addr)s %(bytes)sB %(duration_ms)sms "%(user_agent)s"'
)


def loggable_path(path: str) -> str:
    return SECRET_PATHS.sub(rf"\1{SCRUBBED}", path)


def _header(value: str | None) -> str:
    return (value or "")[:MAX_HEADER_CHARS]


def access_fields(resp, environ, request_time) -> dict:
    """The fields of one request's access line."""
    status = resp.status
    if isinstance(status, str):
        status = status.split(None, 1)[0]
    request_id = ""
    for name, value in resp.headers:
        if name.lower() == HEADER.lower():
            request_id = value
    fields = {
        "method": environ.get("REQUEST_METHOD", ""),
        "path": loggable_path(environ.get("PATH_INFO", "")),
        "status": int(status) if str(status).isdigit() else status,
        "duration_ms": round(request_time.total_seconds() * 1000, 3),
        "bytes": getattr(resp, "sent", None) or 0,
        "remote_addr": environ.get("REMOTE_ADDR", ""),
        "user_agent": _header(environ.get("HTTP_USER_AGENT")),
        "request_id": request_id,
    }
    if environ.get("HTTP_X_FORWARDED_FOR"):
        fields["forwarded_for"] = _header(environ["HTTP_X_FORWARDED_FOR"])
    return fields


class Logger(glogging.Logger):
    """gunicorn's logger: its handlers (set by `accesslog` and `errorlog`) get the project's
    formatter, and an access line is built from the request, not from `access_log_format`."""

    # json or plain: set by config/gunicorn_conf.py, which reads the environment
    log_format = "json"

    def setup(self, cfg) -> None:
        super().setup(cfg)
        kind = self.log_format
        access = logging.Formatter(_PLAIN_ACCESS) if kind == "plain" else None
        for log, chosen in ((self.error_log, None), (self.access_log, access)):
            for handler in log.handlers:
                if getattr(handler, "_gunicorn", False):
                    handler.setFormatter(chosen or logging_json.formatter(kind))
                    handler.addFilter(RequestIdFilter())

    def access(self, resp, req, environ, request_time) -> None:
        if not self.access_log_enabled:
            return
        try:
            fields = access_fields(resp, environ, request_time)
            self.access_log.info(
                "%s %s %s", fields["method"], fields["path"], fields["status"], extra=fields
            )
        except Exception:  # noqa: BLE001 - as gunicorn's: a log line never fails a request
            self.error(traceback.format_exc())
