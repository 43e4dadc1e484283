"""The courier interface: what every provider (the sandbox, ACS) does, and its errors.

A provider is built with its decrypted credentials. It never fails silently: missing
credentials answer 409 `courier_not_configured` naming them, an unreachable or failing courier
502 `courier_unavailable`, a courier that refuses the request (a bad address, an unknown
voucher) 502 `courier_refused` with its own message.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import ClassVar

from store.common.errors import rule_broken

NOT_CONFIGURED = "courier_not_configured"
UNAVAILABLE = "courier_unavailable"
REFUSED = "courier_refused"


def not_configured(message: str):
    return rule_broken(message, code=NOT_CONFIGURED, status=409)


def unavailable(message: str):
    return rule_broken(message, code=UNAVAILABLE, status=502)


def refused(message: str):
    return rule_broken(message, code=REFUSED, status=502)


@dataclass(frozen=True)
class Parcel:
    """What a voucher is made from."""

    recipient: dict
    sender: dict
    weight: Decimal
    parcels: int
    pickup_date: date
    cod_amount: Decimal = Decimal(0)
    currency: str = ""
    reference: str = ""
    note: str = ""


@dataclass(frozen=True)
class Created:
    number: str
    label: bytes = b""  # the provider's own PDF; empty: the store draws one


@dataclass(frozen=True)
class Tracking:
    status: str  # a VoucherStatus value
    events: list[dict] = field(default_factory=list)  # {at, status, description, location}
    delivered_at: datetime | None = None


class CourierProvider(ABC):
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    sandbox: ClassVar[bool] = False
    #: The credentials it needs (all required), as the settings route takes them.
    credential_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, credentials: dict | None = None):
        self.credentials = dict(credentials or {})

    def ensure_configured(self) -> None:
        missing = [name for name in self.credential_fields if not self.credentials.get(name)]
        if missing:
            raise not_configured(
                f"The {self.title} courier has no {', '.join(missing)}: set them in "
                "PATCH /courier/settings."
            )

    # Each one starts with ensure_configured() (the base's refusals, then the courier's).
    @abstractmethod
    def test_connection(self) -> str: ...

    @abstractmethod
    def create(self, parcel: Parcel) -> Created: ...

    @abstractmethod
    def cancel(self, number: str) -> None: ...

    @abstractmethod
    def track(self, number: str, *, created_at: datetime, now: datetime) -> Tracking: ...
