"""Request ids, structured logs and error tracking.

- Every request has an id: the caller's `X-Request-ID` when it is a sane token (1-128 of
  letters, digits and `._:-`), else a new one. It is echoed in the answer's `X-Request-ID`,
  put on every log record made while the request runs (`request_id`), and carried into the
  Celery tasks the request sends (a message header), whose log records then carry it too. A
  task sent outside a request carries its own task id instead, and so do the tasks it sends.
- Logs are JSON lines (common.logging_json) unless LOG_FORMAT=plain (development's default).
- With SENTRY_DSN set, errors go to Sentry (the SDK's Django and Celery integrations) with no
  personal data: `send_default_pii` off, and request bodies, cookies, authorization headers
  and user e-mails scrubbed before sending.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import uuid

HEADER = "X-Request-ID"
META_KEY = "HTTP_X_REQUEST_ID"
TASK_HEADER = "request_id"
_VALID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

_current: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")


def current() -> str:
    """The id of the request (or task) being handled here; "" outside of one."""
    return _current.get()


@contextlib.contextmanager
def bound(request_id: str):
    """Run the block under `request_id` ("" for none), then restore the outer id."""
    token = _current.set(request_id)
    try:
        yield
    finally:
        _current.reset(token)


def accepted(raw: str | None) -> str:
    """The caller's id when it is a sane token, else a new one (never reflects other text)."""
    if raw and _VALID.fullmatch(raw):
        return raw
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """Outermost: binds the request's id for its whole handling and echoes it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = accepted(request.META.get(META_KEY))
        request.request_id = request_id
        token = _current.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            _current.reset(token)
        response[HEADER] = request_id
        return response


class RequestIdFilter(logging.Filter):
    """Puts `request_id` on every record (empty outside a request or task)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", None):
            record.request_id = _current.get()
        return True


# --- Celery: the id travels in the task message's headers ----------------------------------
#
# The worker's main process logs a task's receipt, time limit or lost worker under the same id
# (common.logging_worker); the outbox keeps it with a task that waits for the broker.


def _before_publish(headers=None, **kwargs) -> None:
    """Outside a request (the beat, a command) a task is its own request: its id is the
    message's task id (`id`, Celery's protocol 2)."""
    if headers is None or TASK_HEADER in headers:
        return
    request_id = _current.get() or headers.get("id")
    if request_id:
        headers[TASK_HEADER] = request_id


def message_request_id(headers) -> str:
    """The request id a task message carries (its task id when it carries none)."""
    headers = headers or {}
    return str(headers.get(TASK_HEADER) or headers.get("id") or "")


_task_tokens: dict[str, contextvars.Token] = {}


def _task_started(task_id=None, task=None, **kwargs) -> None:
    """The message's id; else the caller's (an eager task runs inside the request that sent it);
    else the task's own."""
    request_id = getattr(task.request, TASK_HEADER, None) if task is not None else None
    if not request_id and task is not None:
        request_id = (getattr(task.request, "headers", None) or {}).get(TASK_HEADER)
    request_id = request_id or _current.get() or task_id
    if request_id and task_id:
        _task_tokens[task_id] = _current.set(str(request_id))


def _task_finished(task_id=None, **kwargs) -> None:
    token = _task_tokens.pop(task_id, None) if task_id else None
    if token is not None:
        with contextlib.suppress(ValueError):  # set in another context (an eager task)
            _current.reset(token)


def connect_celery_signals() -> None:
    from celery import signals

    signals.before_task_publish.connect(_before_publish, dispatch_uid="request_id_publish")
    signals.task_prerun.connect(_task_started, dispatch_uid="request_id_prerun")
    signals.task_postrun.connect(_task_finished, dispatch_uid="request_id_postrun")


# --- Sentry ----------------------------------------------------------------------------------

SCRUBBED = "[scrubbed]"
_SECRET_HEADERS = {"authorization", "cookie", "x-platform-nonce", "x-csrftoken", "x-api-key"}


def scrub_event(event: dict, hint: dict | None = None) -> dict:
    """Sentry's before_send: no bodies, cookies, credentials or e-mails leave the service."""
    request = event.get("request")
    if isinstance(request, dict):
        request.pop("data", None)
        request.pop("cookies", None)
        headers = request.get("headers")
        if isinstance(headers, dict):
            for name in list(headers):
                if name.lower() in _SECRET_HEADERS:
                    headers[name] = SCRUBBED
        if request.get("query_string"):
            request["query_string"] = SCRUBBED
    user = event.get("user")
    if isinstance(user, dict):
        event["user"] = {"id": user["id"]} if "id" in user else {}
    request_id = _current.get()
    if request_id:
        event.setdefault("tags", {})["request_id"] = request_id
    return event


def init_sentry(dsn: str, *, environment: str = "", release: str = "") -> bool:
    """Start the Sentry SDK when a DSN is set; answers whether it started."""
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment or None,
        release=release or None,
        send_default_pii=False,
        max_request_body_size="never",
        before_send=scrub_event,
        integrations=[DjangoIntegration(), CeleryIntegration()],
    )
    return True
