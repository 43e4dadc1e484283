"""One HTTP attempt: POST the body to the receiver and classify what happened.

No database here: the caller records the result. The receiver's body is read only up to a
small bound and kept truncated; it is never shown through the API.
"""

from __future__ import annotations

import email.utils
import logging
import time
from dataclasses import dataclass

import requests
from urllib3.util import Timeout

from common import net
from webhooks import signing
from webhooks.models import DeliveryAttempt

logger = logging.getLogger(__name__)

TIMEOUT_SECONDS = 10.0  # spec: deliveries time out after 10 seconds
RESPONSE_BODY_LIMIT = 1024  # characters of the receiver's answer kept in the log
_READ_LIMIT = 4 * RESPONSE_BODY_LIMIT

Outcome = DeliveryAttempt.Outcome


@dataclass(frozen=True)
class Result:
    outcome: str
    status_code: int | None = None
    error: str = ""
    response_body: str = ""
    duration_ms: int | None = None
    retry_after: float | None = None  # seconds, from the receiver's Retry-After

    @property
    def success(self) -> bool:
        return self.outcome == Outcome.SUCCESS


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Retry-After as seconds: delta-seconds or an HTTP date; None if absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment is None or moment.tzinfo is None:
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _read_some(response: requests.Response, deadline: float) -> str:
    """Up to _READ_LIMIT bytes of the answer, stopping at the deadline."""
    chunks: list[bytes] = []
    size = 0
    try:
        for chunk in response.iter_content(chunk_size=1024):
            chunks.append(chunk)
            size += len(chunk)
            if size >= _READ_LIMIT or time.monotonic() >= deadline:
                break
    except requests.RequestException:
        pass
    text = b"".join(chunks).decode(response.encoding or "utf-8", errors="replace")
    return _clip(text, RESPONSE_BODY_LIMIT)


def _connection_error(exc: BaseException) -> str:
    """A short reason without the library's repr noise."""
    text = str(exc)
    for marker in ("Failed to resolve", "Name or service not known", "No address associated"):
        if marker in text:
            return "Could not resolve the host."
    if "CERTIFICATE_VERIFY_FAILED" in text or "certificate verify failed" in text:
        return "TLS error: the receiver's certificate could not be verified."
    if isinstance(exc, requests.exceptions.SSLError):
        return "TLS error: the secure connection could not be established."
    if "Connection refused" in text:
        return "Could not connect: connection refused."
    if "Network is unreachable" in text or "No route to host" in text:
        return "Could not connect: network unreachable."
    if "RemoteDisconnected" in text or "Connection aborted" in text:
        return "The receiver closed the connection without answering."
    return _clip(f"Could not connect: {text}", 300)


def _blocked_cause(exc: BaseException) -> net.AddressNotAllowed | None:
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, net.AddressNotAllowed):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__ or (exc.args[0] if exc.args else None)
        if not isinstance(exc, BaseException):
            return None
    return None


def send(*, url: str, body: str, secret: str, event: str, delivery_id: str) -> Result:
    """POST `body` to `url` once. Never raises for anything the receiver or network does."""
    payload = body.encode()
    request_headers = signing.headers(
        secret=secret, body=payload, event=event, delivery_id=delivery_id
    )
    started = time.monotonic()
    deadline = started + TIMEOUT_SECONDS

    def elapsed_ms() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        scheme = url.split(":", 1)[0].lower()
        if scheme != "https" and not net.allow_private():
            return Result(Outcome.BLOCKED, error="Only https:// URLs are delivered to.")
        response = net.session().post(
            url,
            data=payload,
            headers=request_headers,
            timeout=Timeout(total=TIMEOUT_SECONDS),
            allow_redirects=False,
            stream=True,
        )
    except net.AddressNotAllowed as exc:
        return Result(Outcome.BLOCKED, error=f"Blocked: {exc}", duration_ms=elapsed_ms())
    except requests.Timeout:
        return Result(
            Outcome.TIMEOUT,
            error=f"Timed out after {TIMEOUT_SECONDS:g} seconds.",
            duration_ms=elapsed_ms(),
        )
    except (requests.RequestException, OSError, ValueError) as exc:
        blocked = _blocked_cause(exc)
        if blocked is not None:
            return Result(Outcome.BLOCKED, error=f"Blocked: {blocked}", duration_ms=elapsed_ms())
        return Result(
            Outcome.CONNECTION_ERROR, error=_connection_error(exc), duration_ms=elapsed_ms()
        )

    with response:
        status = response.status_code
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        location = response.headers.get("Location", "")
        text = _read_some(response, deadline)
    duration = elapsed_ms()
    if duration > TIMEOUT_SECONDS * 1000:
        return Result(
            Outcome.TIMEOUT,
            status_code=status,
            error=f"The receiver took longer than {TIMEOUT_SECONDS:g} seconds to answer.",
            response_body=text,
            duration_ms=duration,
        )
    if 200 <= status < 300:
        return Result(Outcome.SUCCESS, status_code=status, response_body=text, duration_ms=duration)
    if 300 <= status < 400:
        where = f" to {_clip(location, 200)}" if location else ""
        return Result(
            Outcome.REDIRECT,
            status_code=status,
            error=f"The receiver answered {status} (redirect{where}); redirects are not "
            "followed: use the final URL.",
            response_body=text,
            duration_ms=duration,
            retry_after=retry_after,
        )
    return Result(
        Outcome.HTTP_ERROR,
        status_code=status,
        error=f"The receiver answered {status}.",
        response_body=text,
        duration_ms=duration,
        retry_after=retry_after,
    )
