"""Turning a log record (or a client's report) into the fields of a stored entry: every text
made storable (no NUL, no lone surrogate: PostgreSQL refuses both) and capped, the context made
JSON (anything else by its repr), secrets scrubbed by key, and the whole entry size-capped.

No model import here: the logging handler loads this while logging is configured, before the
apps are ready.
"""

from __future__ import annotations

import json
import logging
import math
import re
import traceback

from django.conf import settings
from django.http import HttpRequest

from common import observability
from common.jsonload import UNSTORABLE
from debugtools.choices import Level

SCRUBBED = "[scrubbed]"
# Context keys whose values are never stored (matched anywhere in the key, any case).
_SECRET_KEY = re.compile(
    r"pass(word|wd)?|secret|token|authori[sz]ation|cookie|api[_-]?key|signature|credential|"
    r"session|csrf|nonce|private",
    re.IGNORECASE,
)
# A LogRecord's own attributes: everything else on a record is the caller's `extra`.
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message",
    "asctime",
    "request_id",
    "taskName",
}
MAX_DEPTH = 4
MAX_ITEMS = 50
MAX_VALUE_CHARS = 1000
MAX_LOGGER_CHARS = 200
MAX_REQUEST_ID_CHARS = 128


def max_message_chars() -> int:
    return settings.DEBUGTOOLS_MAX_MESSAGE_CHARS


def max_context_bytes() -> int:
    return settings.DEBUGTOOLS_MAX_CONTEXT_BYTES


def clean_text(value, limit: int) -> str:
    """`value` as storable text of at most `limit` characters (a cut one ends with `…`)."""
    text = value if isinstance(value, str) else str(value)
    text = UNSTORABLE.sub("\ufffd", text)
    if len(text) > limit:
        text = text[: max(limit - 1, 0)] + "…"
    return text


def _jsonable(value, depth: int = 0):
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if abs(value) <= 2**53 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return clean_text(value, MAX_VALUE_CHARS)
    if isinstance(value, HttpRequest):  # never its query string, headers or body
        return {"method": value.method, "path": clean_text(value.path, MAX_VALUE_CHARS)}
    if depth >= MAX_DEPTH:
        return clean_text(repr(value), 200)
    if isinstance(value, dict):
        out = {}
        for index, (key, child) in enumerate(value.items()):
            if index >= MAX_ITEMS:
                out["…"] = f"{len(value) - MAX_ITEMS} more"
                break
            name = clean_text(key, 100)
            out[name] = SCRUBBED if _SECRET_KEY.search(name) else _jsonable(child, depth + 1)
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        out = [_jsonable(child, depth + 1) for child in items[:MAX_ITEMS]]
        if len(items) > MAX_ITEMS:
            out.append(f"… {len(items) - MAX_ITEMS} more")
        return out
    try:
        return clean_text(repr(value), MAX_VALUE_CHARS)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not lose the entry
        return f"<{type(value).__name__}>"


def clean_context(context: dict | None) -> dict:
    """JSON-safe, scrubbed and at most DEBUGTOOLS_MAX_CONTEXT_BYTES once serialised; a larger
    context is replaced by its truncated text, marked `truncated`."""
    cleaned = _jsonable(context or {})
    if not isinstance(cleaned, dict):
        cleaned = {"value": cleaned}
    text = json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"))
    limit = max_context_bytes()
    size = len(text.encode())
    if size <= limit:
        return cleaned
    return {"truncated": True, "size": size, "preview": clean_text(text, max(limit // 4, 100))}


def _message(record: logging.LogRecord) -> str:
    try:
        return record.getMessage()
    except Exception:  # noqa: BLE001 - a record whose arguments do not fit its format
        return f"{record.msg!r} {record.args!r}"


def from_log_record(record: logging.LogRecord) -> dict:
    """The entry's fields (for LogEntry) of a server log record."""
    context: dict = {key: value for key, value in record.__dict__.items() if key not in _STANDARD}
    context["location"] = f"{record.module}.{record.funcName}:{record.lineno}"
    context["process"] = record.process
    context["thread"] = record.threadName
    if record.exc_info and record.exc_info[0] is not None:
        exc_type = record.exc_info[0]
        context["exception"] = {
            "type": f"{exc_type.__module__}.{exc_type.__qualname__}",
            "traceback": clean_text("".join(traceback.format_exception(*record.exc_info)), 8000),
        }
    elif record.exc_text:
        context["exception"] = {"traceback": clean_text(record.exc_text, 8000)}
    request_id = getattr(record, "request_id", "") or observability.current()
    return {
        "level": int(Level.of(record.levelno)),
        "logger": clean_text(record.name or "root", MAX_LOGGER_CHARS),
        "message": clean_text(_message(record), max_message_chars()),
        "request_id": clean_text(request_id or "", MAX_REQUEST_ID_CHARS),
        "context": clean_context(context),
    }
