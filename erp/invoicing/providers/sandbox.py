"""The sandbox authority (the default): checks a document as myDATA would, in the process.

A well-formed document is accepted with a mark (a unique 15-digit number), a uid (the SHA-1 of
issuer, date, branch, type, series and number, as myDATA's) and a QR URL; a malformed one is
rejected with every reason found: no lines, a B2B document without the counterpart's VAT
number, a correlated credit note without the original's mark, a 0% line without its exemption
category, a line's VAT that is not its net at its category's rate, totals that do not add up.
"""

from __future__ import annotations

import hashlib
import secrets
from decimal import ROUND_HALF_UP, Decimal

from erp.invoicing.choices import B2B_TYPES, CORRELATED_TYPES, EXEMPT_CATEGORY, VAT_RATES
from erp.invoicing.models import Transmission
from erp.invoicing.providers.base import (
    AuthorityProvider,
    Cancelled,
    Document,
    Error,
    Outcome,
)

CENT = Decimal("0.01")
QR_BASE = "https://sandbox-authority.invalid/qr/"


def _cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def problems(document: Document) -> list[Error]:
    found: list[Error] = []

    def add(code: str, message: str) -> None:
        found.append(Error(code, message))

    if not document.issuer.vat_number:
        add("issuer_vat_number", "The issuer's VAT number is missing.")
    if not document.lines:
        add("no_lines", "The document has no lines.")
    if document.document_type in B2B_TYPES and (
        document.counterpart is None or not document.counterpart.vat_number
    ):
        add(
            "counterpart_vat_number",
            f"A document of type {document.document_type} needs the counterpart's VAT number.",
        )
    if document.document_type in CORRELATED_TYPES and not document.correlated_marks:
        add("correlated_invoices", "A correlated credit note needs the original's mark.")
    if document.number < 1:
        add("aa", "The document has no number.")
    for line in document.lines:
        where = f"Line {line.number}"
        if line.vat_category not in VAT_RATES:
            add("vat_category", f"{where}: unknown VAT category {line.vat_category}.")
            continue
        if line.net < 0 or line.vat < 0:
            add("negative_amount", f"{where}: amounts cannot be negative.")
        if line.vat_category == EXEMPT_CATEGORY and not line.vat_exemption:
            add("vat_exemption_category", f"{where}: a 0% line needs its exemption category.")
        expected = _cents(line.net * VAT_RATES[line.vat_category] / 100)
        if abs(expected - line.vat) > CENT:
            add("vat_amount", f"{where}: VAT {line.vat} is not {expected}.")
    net = sum((line.net for line in document.lines), Decimal(0))
    vat = sum((line.vat for line in document.lines), Decimal(0))
    if net != document.net_total:
        add("total_net_value", f"The lines' net values add up to {net}, not {document.net_total}.")
    if vat != document.vat_total:
        add("total_vat_amount", f"The lines' VAT adds up to {vat}, not {document.vat_total}.")
    if document.net_total + document.vat_total != document.gross_total:
        add(
            "total_gross_value",
            f"Net {document.net_total} plus VAT {document.vat_total} is not gross "
            f"{document.gross_total}.",
        )
    return found


def uid_of(document: Document) -> str:
    parts = (
        document.issuer.vat_number,
        document.issue_date.isoformat(),
        str(document.issuer.branch),
        document.document_type,
        document.series,
        str(document.number),
    )
    return hashlib.sha1("-".join(parts).encode(), usedforsecurity=False).hexdigest().upper()


class SandboxAuthority(AuthorityProvider):
    name = "sandbox"
    title = "Sandbox authority"

    def send(self, document: Document) -> Outcome:
        errors = problems(document)
        if errors:
            return Outcome(accepted=False, errors=tuple(errors))
        uid = uid_of(document)
        return Outcome(
            accepted=True,
            mark=str(400_000_000_000_000 + secrets.randbelow(10**14)),
            uid=uid,
            qr_url=QR_BASE + uid,
        )

    def cancel(self, mark: str) -> Cancelled | Outcome:
        if not Transmission.objects.filter(provider=self.name, mark=mark).exists():
            return Outcome(accepted=False, errors=(Error("mark", f"No document has mark {mark}."),))
        return Cancelled(cancellation_mark=str(400_000_000_000_000 + secrets.randbelow(10**14)))

    def test_credentials(self) -> str:
        return "The sandbox authority needs no credentials: documents are checked locally."
