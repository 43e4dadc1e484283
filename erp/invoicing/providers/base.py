"""The tax authority's interface: what every provider (the sandbox, myDATA) does.

A provider takes a `Document` (what the authority needs of an issued invoice or credit note,
built by erp.invoicing.selectors.document_of) and answers an `Outcome`: accepted (the mark,
uid and QR URL the authority assigned) or rejected (its reasons). A failure that may pass (the
network, a timeout, a 5xx, the authority's technical error) raises `Transient`: the Celery
task retries it. Wrong credentials raise `NotConfigured`. The base, the failures and `Error`
are every ERP filing provider's (erp.core.filing_providers).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from erp.core.filing_providers import Error, FilingProvider, NotConfigured, Transient

__all__ = [
    "AuthorityProvider",
    "Cancelled",
    "Document",
    "Error",
    "Line",
    "NotConfigured",
    "Outcome",
    "Party",
    "Transient",
]


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
class Outcome:
    accepted: bool
    mark: str = ""
    uid: str = ""
    qr_url: str = ""
    errors: tuple[Error, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Cancelled:
    cancellation_mark: str


class AuthorityProvider(FilingProvider):
    """`credential_fields` as PATCH /invoices/settings takes them (mydata_<name>)."""

    default_environment = "dev"

    @abstractmethod
    def send(self, document: Document) -> Outcome: ...

    @abstractmethod
    def cancel(self, mark: str) -> Cancelled | Outcome:
        """Cancel the document of `mark`: its cancellation mark, or a rejection (an Outcome)."""
        ...
