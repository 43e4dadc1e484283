"""The marketplace interface: what every marketplace (Skroutz, the generic one) does.

A provider turns a verified notification into a `ParsedEvent` (its payload validated with its
own serializer: 400 `invalid_payload` naming each bad field, never a 500), and makes the calls
to the marketplace's API (acknowledge, reject, ship) through a client: the sandbox client by
default, which records each call (MarketplaceCall) and answers at once; the live client, with
MARKETPLACE_LIVE_API on, sends them over HTTPS with the marketplace's credentials.

Every marketplace's notifications are signed the same way, by the shop's secret for it:
`X-Marketplace-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + the raw body>`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from decimal import Decimal
from typing import ClassVar

from django.conf import settings
from rest_framework import serializers

from common.errors import ServiceError
from store.common.errors import invalid_params, rule_broken
from store.common.params import validate_body

SIGNATURE_HEADER = "X-Marketplace-Signature"
EVENT_ID_HEADER = "X-Marketplace-Event-Id"

NEW_ORDER = "new_order"
ORDER_UPDATED = "order_updated"
OTHER = "other"


def bad_signature(message: str) -> ServiceError:
    return ServiceError(
        message,
        code="invalid_signature",
        status_code=401,
        headers={"WWW-Authenticate": f'Signature header="{SIGNATURE_HEADER}"'},
    )


def invalid_payload(errors: dict) -> ServiceError:
    return invalid_params(errors, code="invalid_payload")


def unavailable(message: str) -> ServiceError:
    return rule_broken(message, code="marketplace_unavailable", status=502)


def not_configured(message: str) -> ServiceError:
    return rule_broken(message, code="marketplace_not_configured", status=409)


_EVENT_ID = re.compile(r"^[\x21-\x7e]{1,200}$")


def event_id_of(headers, default: str) -> str:
    """The event id a marketplace names in X-Marketplace-Event-Id (printable ASCII, at most
    200 characters: 400 `invalid_payload` otherwise), else `default` (at most 200)."""
    named = headers.get(EVENT_ID_HEADER)
    if named is None:
        return default[:200]
    if not _EVENT_ID.match(named):
        raise invalid_payload({EVENT_ID_HEADER: ["1-200 printable ASCII characters."]})
    return named


def sign(body: bytes, secret: str, *, timestamp: int | None = None) -> str:
    """The signature header's value for `body` (what a marketplace, or a test, sends)."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify(body: bytes, header: str, secret: str, *, now: float | None = None) -> None:
    """Refuse (401 `invalid_signature`) a body whose signature is missing, malformed, made with
    another secret, or older or newer than the tolerance; constant-time compare."""
    if not secret:
        raise bad_signature("No webhook secret is set for this marketplace.")
    parts: dict[str, list[str]] = {}
    for item in (header or "")[:1000].split(","):
        key, _, value = item.strip().partition("=")
        parts.setdefault(key, []).append(value)
    stamps = parts.get("t") or []
    if len(stamps) != 1 or not stamps[0].isdigit() or len(stamps[0]) > 12:
        raise bad_signature(f"{SIGNATURE_HEADER} needs t=<unix seconds>,v1=<hex HMAC-SHA256>.")
    timestamp = int(stamps[0])
    now = time.time() if now is None else now
    if abs(now - timestamp) > settings.MARKETPLACE_WEBHOOK_TOLERANCE_SECONDS:
        raise bad_signature("The signature's timestamp is outside the tolerance.")
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    wanted = expected.hexdigest().encode()
    if not any(hmac.compare_digest(wanted, v.encode()) for v in parts.get("v1", [])[:5]):
        raise bad_signature("The signature does not match the body.")


# --- What a notification says ---------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedLine:
    sku: str
    quantity: int
    unit_price: Decimal
    title: str = ""


@dataclass(frozen=True)
class ParsedOrder:
    code: str
    state: str
    cancelled: bool
    currency: str
    lines: list[ParsedLine]
    billing_address: dict = field(default_factory=dict)
    shipping_address: dict = field(default_factory=dict)
    shipping_total: Decimal = Decimal(0)
    note: str = ""
    extra: dict = field(default_factory=dict)  # the marketplace's own bits (accept options)

    @property
    def total(self) -> Decimal:
        items = sum((line.unit_price * line.quantity for line in self.lines), Decimal(0))
        return items + self.shipping_total

    def data(self) -> dict:
        """JSON of the order, as MarketplaceOrder.data keeps it."""
        return {
            "code": self.code,
            "state": self.state,
            "cancelled": self.cancelled,
            "currency": self.currency,
            "lines": [
                {
                    "sku": line.sku,
                    "quantity": line.quantity,
                    "unit_price": str(line.unit_price),
                    "title": line.title,
                }
                for line in self.lines
            ],
            "billing_address": self.billing_address,
            "shipping_address": self.shipping_address,
            "shipping_total": str(self.shipping_total),
            "note": self.note,
            "extra": self.extra,
        }

    @classmethod
    def of(cls, data: dict) -> ParsedOrder:
        return cls(
            code=data["code"],
            state=data["state"],
            cancelled=data["cancelled"],
            currency=data["currency"],
            lines=[
                ParsedLine(
                    sku=line["sku"],
                    quantity=line["quantity"],
                    unit_price=Decimal(line["unit_price"]),
                    title=line.get("title", ""),
                )
                for line in data["lines"]
            ],
            billing_address=data.get("billing_address") or {},
            shipping_address=data.get("shipping_address") or {},
            shipping_total=Decimal(data.get("shipping_total") or 0),
            note=data.get("note", ""),
            extra=data.get("extra") or {},
        )


@dataclass(frozen=True)
class ParsedEvent:
    event_id: str
    type: str  # the marketplace's own name of the event
    kind: str  # NEW_ORDER, ORDER_UPDATED or OTHER
    order: ParsedOrder | None


def validated(serializer_class, payload) -> dict:
    """The payload validated by `serializer_class` (as the store validates bodies), or 400
    `invalid_payload` naming each bad field. The marketplace's other keys are not refused:
    it writes the payload, and sends more than the store reads."""
    try:
        return validate_body(serializer_class, payload, allow_unknown_keys=True)
    except ServiceError as exc:
        raise invalid_payload(exc.errors or {"body": [exc.detail]}) from exc


class Text(serializers.CharField):
    """A JSON string (or null, read as ""), trimmed, at most `max_length` characters."""

    def __init__(self, max_length: int = 255, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("allow_null", True)
        if not kwargs["required"]:
            kwargs.setdefault("default", "")
        super().__init__(max_length=max_length, **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)

    def validate_empty_values(self, data):
        empty, value = super().validate_empty_values(data)
        return (True, "") if empty and value is None else (empty, value)


class Code(serializers.RegexField):
    def __init__(self, **kwargs):
        super().__init__(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$", max_length=64, **kwargs)


# --- The API calls ------------------------------------------------------------------------------


class MarketplaceProvider(ABC):
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    #: The API credentials the live client needs (all required).
    credential_fields: ClassVar[tuple[str, ...]] = ()
    #: States of the marketplace in which its order is cancelled.
    cancelled_states: ClassVar[frozenset[str]] = frozenset({"cancelled"})

    def __init__(self, credentials: dict | None = None):
        self.credentials = dict(credentials or {})

    @abstractmethod
    def parse(self, payload: dict, headers) -> ParsedEvent: ...

    # The live calls: (path, JSON body) of each action; the client sends them.
    @abstractmethod
    def acknowledge_request(self, order: ParsedOrder, data: dict) -> tuple[str, dict]: ...

    @abstractmethod
    def reject_request(self, order: ParsedOrder, reason: str) -> tuple[str, dict]: ...

    @abstractmethod
    def ship_request(
        self, order: ParsedOrder, tracking_number: str, carrier: str
    ) -> tuple[str, dict] | None: ...

    @abstractmethod
    def api_base(self) -> str: ...

    def api_headers(self) -> dict:
        return {"Authorization": f"Bearer {self.credentials.get('api_token', '')}"}

    def ensure_configured(self) -> None:
        missing = [name for name in self.credential_fields if not self.credentials.get(name)]
        if missing:
            raise not_configured(
                f"The {self.title} API has no {', '.join(missing)}: set them in PATCH "
                "/marketplace/settings."
            )
