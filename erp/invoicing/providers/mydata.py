"""Greece's myDATA (AADE) over its REST API (common.net, the guarded client; XML with xml.etree).

- `POST {base}/SendInvoices` takes an InvoicesDoc (one invoice per call here) and answers a
  ResponseDoc: per document a `statusCode` (Success, ValidationError, XMLSyntaxError,
  TechnicalError), and on success `invoiceMark`, `invoiceUid` and `qrUrl`, else `errors`.
- `POST {base}/CancelInvoice?mark=...` cancels a document; on success `cancellationMark`.
- `GET {base}/RequestTransmittedDocs?mark=0` is the credentials check.

Every call carries the headers `aade-user-id` and `Ocp-Apim-Subscription-Key`. The base URL is
settings.MYDATA_DEV_URL or MYDATA_PROD_URL by the environment chosen in the settings. A 401 or
403 is the credentials (NotConfigured); a network failure, a timeout, a 429 or 5xx, a body that
is not XML or a TechnicalError is Transient (the task retries). Tested on recorded exchanges
(tests/erp/invoicing/recordings); never called in tests.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal

import requests
from django.conf import settings

from erp.invoicing.choices import EXEMPT_CATEGORY
from erp.invoicing.providers.base import (
    AuthorityProvider,
    Cancelled,
    Document,
    Error,
    NotConfigured,
    Outcome,
    Party,
    Transient,
)

NS = "http://www.aade.gr/myDATA/invoice/v1.0"
ET.register_namespace("", NS)


def _q(tag: str) -> str:
    return f"{{{NS}}}{tag}"


def _amount(value: Decimal) -> str:
    return format(Decimal(value).quantize(Decimal("0.01")), "f")


def _sub(parent: ET.Element, tag: str, text=None) -> ET.Element:
    element = ET.SubElement(parent, _q(tag))
    if text is not None:
        element.text = str(text)
    return element


def _party(parent: ET.Element, tag: str, party: Party) -> None:
    element = _sub(parent, tag)
    _sub(element, "vatNumber", party.vat_number)
    _sub(element, "country", party.country or "GR")
    _sub(element, "branch", party.branch)
    if party.country and party.country != "GR":  # a foreign party: its name and address
        if party.name:
            _sub(element, "name", party.name)
        address = _sub(element, "address")
        if party.street:
            _sub(address, "street", party.street)
        _sub(address, "postalCode", party.postcode or "-")
        _sub(address, "city", party.city or "-")


def invoices_doc(document: Document) -> bytes:
    """The InvoicesDoc XML of one document."""
    root = ET.Element(_q("InvoicesDoc"))
    invoice = _sub(root, "invoice")
    _party(invoice, "issuer", document.issuer)
    if document.counterpart is not None and document.counterpart.vat_number:
        _party(invoice, "counterpart", document.counterpart)
    header = _sub(invoice, "invoiceHeader")
    _sub(header, "series", document.series)
    _sub(header, "aa", document.number)
    _sub(header, "issueDate", document.issue_date.isoformat())
    _sub(header, "invoiceType", document.document_type)
    _sub(header, "currency", document.currency)
    for mark in document.correlated_marks:
        _sub(header, "correlatedInvoices", mark)
    payments = _sub(invoice, "paymentMethods")
    detail = _sub(payments, "paymentMethodDetails")
    _sub(detail, "type", document.payment_method)
    _sub(detail, "amount", _amount(document.gross_total))
    for line in document.lines:
        row = _sub(invoice, "invoiceDetails")
        _sub(row, "lineNumber", line.number)
        _sub(row, "netValue", _amount(line.net))
        _sub(row, "vatCategory", line.vat_category)
        _sub(row, "vatAmount", _amount(line.vat))
        if line.vat_category == EXEMPT_CATEGORY and line.vat_exemption:
            _sub(row, "vatExemptionCategory", line.vat_exemption)
    summary = _sub(invoice, "invoiceSummary")
    _sub(summary, "totalNetValue", _amount(document.net_total))
    _sub(summary, "totalVatAmount", _amount(document.vat_total))
    for name in (
        "totalWithheldAmount",
        "totalFeesAmount",
        "totalStampDutyAmount",
        "totalOtherTaxesAmount",
        "totalDeductionsAmount",
    ):
        _sub(summary, name, "0.00")
    _sub(summary, "totalGrossValue", _amount(document.gross_total))
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def _find(element: ET.Element, tag: str) -> ET.Element | None:
    found = element.find(_q(tag))
    return found if found is not None else element.find(tag)


def _text(element: ET.Element, tag: str) -> str:
    found = _find(element, tag)
    return (found.text or "").strip() if found is not None else ""


def _errors(response: ET.Element) -> tuple[Error, ...]:
    holder = _find(response, "errors")
    if holder is None:
        return ()
    rows = holder.findall(_q("error")) or holder.findall("error")
    return tuple(Error(_text(row, "code") or "error", _text(row, "message")) for row in rows)


def parse_response(body: bytes) -> list[dict]:
    """The ResponseDoc's responses: [{status, mark, uid, qr_url, cancellation_mark, errors}]."""
    try:
        root = ET.fromstring(body)  # noqa: S314 - the authority's answer, no entities resolved
    except ET.ParseError as exc:
        raise Transient(f"myDATA answered something that is not XML: {exc}") from exc
    rows = root.findall(_q("response")) or root.findall("response")
    if not rows and root.tag in (_q("response"), "response"):
        rows = [root]
    return [
        {
            "status": _text(row, "statusCode"),
            "mark": _text(row, "invoiceMark"),
            "uid": _text(row, "invoiceUid"),
            "qr_url": _text(row, "qrUrl"),
            "cancellation_mark": _text(row, "cancellationMark"),
            "errors": _errors(row),
        }
        for row in rows
    ]


def _first(body: bytes) -> dict:
    rows = parse_response(body)
    if not rows:
        raise Transient("myDATA answered a ResponseDoc without a response.")
    row = rows[0]
    if row["status"] == "TechnicalError":
        detail = "; ".join(e.message for e in row["errors"]) or "no detail"
        raise Transient(f"myDATA had a technical error: {detail}")
    return row


class MydataAuthority(AuthorityProvider):
    name = "mydata"
    title = "myDATA (AADE)"
    authority = "myDATA"
    credential_fields = ("user_id", "subscription_key")

    @property
    def base_url(self) -> str:
        url = settings.MYDATA_PROD_URL if self.environment == "prod" else settings.MYDATA_DEV_URL
        return url.rstrip("/")

    def _request(self, method: str, endpoint: str, **kwargs) -> requests.Response:
        missing = self.missing_credentials()
        if missing:
            raise NotConfigured(
                f"myDATA has no {', '.join(missing)}: set them in PATCH /invoices/settings."
            )
        headers = {
            "aade-user-id": self.credentials["user_id"],
            "Ocp-Apim-Subscription-Key": self.credentials["subscription_key"],
            **kwargs.pop("headers", {}),
        }
        response = self.http(
            method,
            f"{self.base_url}/{endpoint}",
            headers=headers,
            timeout=settings.MYDATA_HTTP_TIMEOUT,
            **kwargs,
        )
        if response.status_code >= 400:
            raise Transient(f"myDATA answered HTTP {response.status_code}: {response.text[:200]}")
        return response

    def send(self, document: Document) -> Outcome:
        response = self._request(
            "POST",
            "SendInvoices",
            data=invoices_doc(document),
            headers={"Content-Type": "application/xml"},
        )
        row = _first(response.content)
        if row["status"] == "Success" and row["mark"]:
            return Outcome(accepted=True, mark=row["mark"], uid=row["uid"], qr_url=row["qr_url"])
        errors = row["errors"] or (Error(row["status"] or "error", "Rejected without a reason."),)
        return Outcome(accepted=False, errors=errors)

    def cancel(self, mark: str) -> Cancelled | Outcome:
        response = self._request("POST", "CancelInvoice", params={"mark": mark})
        row = _first(response.content)
        if row["status"] == "Success" and row["cancellation_mark"]:
            return Cancelled(cancellation_mark=row["cancellation_mark"])
        errors = row["errors"] or (Error(row["status"] or "error", "Refused without a reason."),)
        return Outcome(accepted=False, errors=errors)

    def test_credentials(self) -> str:
        self._request("GET", "RequestTransmittedDocs", params={"mark": "0"})
        return f"myDATA ({self.environment}) accepted the credentials."
