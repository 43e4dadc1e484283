"""The request a receiver gets: its body, its headers and its signature (spec: delivery rules).

The signature header is GitHub's: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the exact
body bytes, keyed with the webhook secret>`. The delivery id header stays the same on every
retry and redelivery of one event, so receivers can drop duplicates.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import hmac
import json
import secrets
import uuid

from django.conf import settings

EVENT_HEADER = "X-Hub-Event"
SIGNATURE_HEADER = "X-Hub-Signature-256"
DELIVERY_HEADER = "X-Hub-Delivery"
SIGNATURE_PREFIX = "sha256="


def new_secret() -> str:
    """64 lower-case hexadecimal characters (256 random bits)."""
    return secrets.token_hex(32)


def sign(secret: str, body: bytes) -> str:
    """The X-Hub-Signature-256 value for `body`."""
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return SIGNATURE_PREFIX + digest


def verify(secret: str, body: bytes, signature: str | None) -> bool:
    """What a receiver does: recompute and compare in constant time."""
    return hmac.compare_digest(sign(secret, body), signature or "")


def utc_timestamp(moment: dt.datetime) -> str:
    """ISO 8601 with a +00:00 offset (spec), to the millisecond."""
    return moment.astimezone(dt.UTC).isoformat(timespec="milliseconds")


def _json_default(value):
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            raise TypeError(f"naive datetime {value!r} in webhook data; use an aware one")
        return utc_timestamp(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable in webhook data")


def build_body(*, event: str, moment: dt.datetime, data: dict) -> str:
    """`{event, timestamp, data}` as compact JSON: the exact text every attempt sends."""
    document = {"event": event, "timestamp": utc_timestamp(moment), "data": data}
    return json.dumps(document, default=_json_default, separators=(",", ":"), ensure_ascii=False)


def headers(*, secret: str, body: bytes, event: str, delivery_id: uuid.UUID | str) -> dict:
    return {
        "Content-Type": "application/json",
        "User-Agent": settings.WEBHOOK_USER_AGENT,
        EVENT_HEADER: event,
        SIGNATURE_HEADER: sign(secret, body),
        DELIVERY_HEADER: str(delivery_id),
    }
