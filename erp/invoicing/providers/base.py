"""The tax authority's interface: what every provider (the sandbox, myDATA) does.

A provider takes a `Document` (what the authority needs of an issued invoice or credit note,
built by erp.invoicing.selectors.document_of) and answers an `Outcome`: accepted (the mark,
uid and QR URL the authority assigned) or rejected (its reasons). A failure that may pass (the
network, a timeout, a 5xx, the authority's technical error) raises `Transient`: the Celery
task retries it. Wrong credentials raise `NotConfigured`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import ClassVar


class Transient(Exception):
    """The authority could not be reached or failed for now: try again later."""


class NotConfigured(Exception):
    """The provider lacks credentials, or the authority refused them."""


@dataclass(frozen=True)
class Party:
    vat_number: str = ""
    country: str = ""
    branch: int = 0
    name: str = ""
    street: str = ""
    city: str = ""
    postcode: str = ""


@dataclass(frozen=True)
class Line:
    number: int
    net: Decimal
    vat_category: int
    vat: Decimal
    vat_exemption: int | None = None
    quantity: Decimal = Decimal(1)
    description: str = ""


@dataclass(frozen=True)
class Document:
    issuer: Party
    counterpart: Party | None
    series: str
    number: int
    issue_date: date
    document_type: str
    currency: str
    payment_method: int
    lines: tuple[Line, ...]
    net_total: Decimal
    vat_total: Decimal
    gross_total: Decimal
    correlated_marks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Error:
    code: str
    message: str

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class Outcome:
    accepted: bool
    mark: str = ""
    uid: str = ""
    qr_url: str = ""
    errors: tuple[Error, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Cancelled:
    cancellation_mark: str


class AuthorityProvider(ABC):
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    #: The credentials it needs (all required), as PATCH /invoices/settings takes them.
    credential_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, credentials: dict | None = None, *, environment: str = "dev"):
        self.credentials = dict(credentials or {})
        self.environment = environment

    @abstractmethod
    def send(self, document: Document) -> Outcome: ...

    @abstractmethod
    def cancel(self, mark: str) -> Cancelled | Outcome:
        """Cancel the document of `mark`: its cancellation mark, or a rejection (an Outcome)."""
        ...

    @abstractmethod
    def test_credentials(self) -> str:
        """A real call that the credentials open; answers what was checked."""
        ...
