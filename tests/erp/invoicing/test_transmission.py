"""Sending to the tax authority: the sandbox (default) and myDATA on recorded exchanges, the
task's retries, the authority's cancel, the credentials check, the PDF."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path

import pytest
import requests
import responses
from pypdf import PdfReader

from erp.invoicing import selectors, services
from erp.invoicing.models import Invoice, Transmission
from erp.invoicing.providers.base import Error, Line
from erp.invoicing.providers.mydata import NS, MydataAuthority, invoices_doc
from erp.invoicing.providers.sandbox import SandboxAuthority, problems
from tests.erp.invoicing.helpers import INVOICES, SETTINGS, configure, create, issued, on_commit
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db

RECORDINGS = Path(__file__).parent / "recordings"
DEV = "https://mydataapidev.aade.gr"


def recording(name: str) -> bytes:
    return (RECORDINGS / name).read_bytes()


@pytest.fixture
def series(erp_on):
    return configure()


def transmit(api, invoice_id: int):
    with on_commit():
        response = api.post(f"{INVOICES}/{invoice_id}/transmit")
    return response


def use_mydata(api, environment: str = "dev") -> None:
    response = api.patch(
        SETTINGS,
        {
            "provider": "mydata",
            "mydata_environment": environment,
            "mydata_user_id": "emporion-user",
            "mydata_subscription_key": "0123456789abcdef0123456789abcdef",
        },
        format="json",
    )
    assert response.status_code == 200, response.content


# --- The sandbox ----------------------------------------------------------------------------


def test_the_sandbox_accepts_and_assigns_a_mark(api, series):
    invoice = issued(api)
    response = transmit(api, invoice["id"])
    assert response.status_code == 202, response.content
    assert (response.json()["status"], response.json()["provider"]) == ("pending", "sandbox")
    sent = api.get(f"{INVOICES}/{invoice['id']}").json()["transmission"]
    assert sent["status"] == "sent"
    assert len(sent["mark"]) == 15
    assert sent["mark"].isdigit()
    assert len(sent["uid"]) == 40
    assert sent["qr_url"].endswith(sent["uid"])
    assert (sent["attempts"], sent["errors"]) == (1, [])
    error(api.post(f"{INVOICES}/{invoice['id']}/transmit"), 409, "transmission_in_progress")
    other = issued(api)
    transmit(api, other["id"])
    assert Transmission.objects.get(invoice_id=other["id"]).mark != sent["mark"]


def test_the_sandbox_rejects_a_b2b_invoice_without_the_counterpart_vat_number(api, series):
    # Issuing refuses it now (test_issue_rules); a document issued before that check was not.
    invoice = issued(api)
    Invoice.objects.filter(pk=invoice["id"]).update(counterpart_vat_number="")
    transmit(api, invoice["id"])
    rejected = api.get(f"{INVOICES}/{invoice['id']}").json()["transmission"]
    assert rejected["status"] == "rejected"
    assert rejected["mark"] == ""
    assert [e["code"] for e in rejected["errors"]] == ["counterpart_vat_number"]
    assert "VAT number" in rejected["errors"][0]["message"]
    assert rejected["last_error"]
    # A rejected document may be sent again (it is rejected again: the document is frozen).
    assert transmit(api, invoice["id"]).status_code == 202


def test_the_sandbox_checks_totals_lines_and_exemptions(api, series):
    invoice = issued(api)
    document = selectors.document_of(selectors.invoice_get(invoice["id"]))
    assert problems(document) == []
    from dataclasses import replace

    broken = replace(
        document, net_total=document.net_total + 1, issuer=replace(document.issuer, vat_number="")
    )
    codes = [e.code for e in problems(broken)]
    assert codes == ["issuer_vat_number", "total_net_value", "total_gross_value"]
    bad_line = Line(number=1, net=Decimal("10.00"), vat_category=7, vat=Decimal("1.00"))
    broken = replace(
        document,
        lines=(bad_line,),
        net_total=Decimal("10.00"),
        vat_total=Decimal("1.00"),
        gross_total=Decimal("11.00"),
    )
    assert [e.code for e in problems(broken)] == ["vat_exemption_category", "vat_amount"]
    outcome = SandboxAuthority().send(replace(document, lines=()))
    assert not outcome.accepted
    assert Error("no_lines", "The document has no lines.") in outcome.errors


def test_transmit_refusals(api, series):
    draft = create(api)
    error(api.post(f"{INVOICES}/{draft['id']}/transmit"), 409, "invoice_is_draft")
    error(api.post(f"{INVOICES}/999999/transmit"), 404, "invoice_not_found")
    error(api.post(f"{INVOICES}/{draft['id']}/cancel-transmission"), 409, "transmission_not_sent")


def test_cancel_at_the_sandbox_and_send_again(api, series):
    invoice = issued(api)
    transmit(api, invoice["id"])
    mark = Transmission.objects.get(invoice_id=invoice["id"]).mark
    response = api.post(f"{INVOICES}/{invoice['id']}/cancel-transmission")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["mark"]) == ("cancelled", mark)
    assert body["cancellation_mark"]
    assert body["cancelled_at"]
    error(api.post(f"{INVOICES}/{invoice['id']}/cancel-transmission"), 409, "transmission_not_sent")
    assert api.get(f"{INVOICES}/{invoice['id']}").json()["status"] == "issued"
    transmit(api, invoice["id"])
    again = Transmission.objects.get(invoice_id=invoice["id"])
    assert (again.status, again.cancellation_mark) == ("sent", "")
    assert again.mark != mark


def test_a_credit_note_of_a_sent_invoice_is_sent_with_its_mark(api, series):
    invoice = issued(api)
    transmit(api, invoice["id"])
    with on_commit():
        credit = api.post(f"{INVOICES}/{invoice['id']}/cancel").json()
    original = Transmission.objects.get(invoice_id=invoice["id"])
    sent = Transmission.objects.get(invoice_id=credit["id"])
    assert sent.status == "sent"
    document = selectors.document_of(selectors.invoice_get(credit["id"]))
    assert document.correlated_marks == (original.mark,)
    assert document.document_type == "5.1"


def test_a_credit_note_waits_for_its_originals_mark(api, series):
    invoice = issued(api)
    assert api.post(f"{INVOICES}/{invoice['id']}/transmit").status_code == 202  # not run yet
    services.settings_update(fields={"auto_transmit": True})
    credit = api.post(f"{INVOICES}/{invoice['id']}/cancel").json()
    outcome, detail = services.transmission_run(invoice_id=credit["id"])
    assert (outcome, detail) == ("retry", "The original is not sent yet: its mark is needed.")
    waiting = Transmission.objects.get(invoice_id=credit["id"])
    assert (waiting.status, waiting.attempts) == ("pending", 0)
    services.transmission_run(invoice_id=invoice["id"])
    assert services.transmission_run(invoice_id=credit["id"])[0] == "sent"


def test_auto_transmit_sends_at_issue(api, series):
    services.settings_update(fields={"auto_transmit": True})
    invoice = create(api)
    with on_commit():
        api.post(f"{INVOICES}/{invoice['id']}/issue")
    assert Transmission.objects.get(invoice_id=invoice["id"]).status == "sent"


def test_the_transmission_test_route(api, series):
    response = api.post(f"{INVOICES}/transmission/test")
    assert response.status_code == 200
    assert response.json()["provider"] == "sandbox"
    assert response.json()["ok"] is True


# --- myDATA on recorded exchanges ----------------------------------------------------------


def test_mydata_send_success(api, series):
    use_mydata(api)
    invoice = issued(api)
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        mock.add(
            responses.POST,
            f"{DEV}/SendInvoices",
            body=recording("send_success.xml"),
            content_type="application/xml",
            match=[
                responses.matchers.header_matcher(
                    {
                        "aade-user-id": "emporion-user",
                        "Ocp-Apim-Subscription-Key": "0123456789abcdef0123456789abcdef",
                        "Content-Type": "application/xml",
                    }
                )
            ],
        )
        transmit(api, invoice["id"])
        sent_body = mock.calls[0].request.body
    root = ET.fromstring(sent_body)  # noqa: S314 - our own document
    q = lambda path: "/".join(f"{{{NS}}}{part}" for part in path.split("/"))  # noqa: E731
    doc = root.find(q("invoice"))
    assert doc.findtext(q("issuer/vatNumber")) == "094259216"
    assert doc.findtext(q("counterpart/vatNumber")) == "094014201"
    assert doc.find(q("counterpart/name")) is None  # a Greek counterpart: no name, no address
    assert doc.findtext(q("invoiceHeader/series")) == "A"
    assert doc.findtext(q("invoiceHeader/aa")) == "1"
    assert doc.findtext(q("invoiceHeader/invoiceType")) == "1.1"
    assert doc.findtext(q("invoiceHeader/currency")) == "EUR"
    assert doc.findtext(q("paymentMethods/paymentMethodDetails/type")) == "3"
    rows = doc.findall(q("invoiceDetails"))
    assert [
        (r.findtext(q("netValue")), r.findtext(q("vatCategory")), r.findtext(q("vatAmount")))
        for r in rows
    ] == [
        ("20.00", "1", "4.80"),
        ("15.00", "3", "0.90"),
    ]
    assert doc.findtext(q("invoiceSummary/totalGrossValue")) == "40.70"
    sent = api.get(f"{INVOICES}/{invoice['id']}").json()["transmission"]
    assert (sent["status"], sent["provider"], sent["mark"], sent["uid"]) == (
        "sent",
        "mydata",
        "400001912345678",
        "8F5D1C7C0D3B4E1E9A2B6C3D4E5F60718293A4B5",
    )
    assert sent["qr_url"] == "https://mydataapidev.aade.gr/TimologioQR/QRInfo?q=abc123"


def test_mydata_validation_error_is_a_rejection_with_its_reasons(api, series):
    use_mydata(api)
    invoice = issued(api)
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, f"{DEV}/SendInvoices", body=recording("send_validation_error.xml"))
        transmit(api, invoice["id"])
    rejected = api.get(f"{INVOICES}/{invoice['id']}").json()["transmission"]
    assert rejected["status"] == "rejected"
    assert rejected["errors"] == [
        {"code": "219", "message": "Counterpart VAT number is mandatory for this invoice type"},
        {"code": "203", "message": "Total net value does not match the sum of the invoice lines"},
    ]


def test_mydata_cancel_by_mark(api, series):
    use_mydata(api, "prod")
    invoice = issued(api)
    prod = "https://mydatapi.aade.gr/myDATA"
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, f"{prod}/SendInvoices", body=recording("send_success.xml"))
        transmit(api, invoice["id"])
        mock.add(
            responses.POST,
            f"{prod}/CancelInvoice",
            body=recording("cancel_refused.xml"),
            match=[responses.matchers.query_param_matcher({"mark": "400001912345678"})],
        )
        refused = api.post(f"{INVOICES}/{invoice['id']}/cancel-transmission")
        body = error(refused, 502, "authority_refused")
        assert "already cancelled" in body["message"]
        assert Transmission.objects.get(invoice_id=invoice["id"]).status == "sent"
        mock.replace(responses.POST, f"{prod}/CancelInvoice", body=recording("cancel_success.xml"))
        response = api.post(f"{INVOICES}/{invoice['id']}/cancel-transmission")
    assert response.status_code == 200, response.content
    assert (response.json()["status"], response.json()["cancellation_mark"]) == (
        "cancelled",
        "400001912345999",
    )


def test_mydata_transient_failures_retry_then_fail(api, series, settings):
    use_mydata(api)
    invoice = issued(api)
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, f"{DEV}/SendInvoices", body=recording("send_technical_error.xml"))
        mock.add(responses.POST, f"{DEV}/SendInvoices", status=503)
        mock.add(responses.POST, f"{DEV}/SendInvoices", body=requests.ConnectionError("down"))
        mock.add(responses.POST, f"{DEV}/SendInvoices", body=b"<not xml")
        services.transmission_request(invoice_id=invoice["id"])
        outcomes = [services.transmission_run(invoice_id=invoice["id"])[0] for _ in range(4)]
        assert outcomes == ["retry"] * 4
        mock.add(responses.POST, f"{DEV}/SendInvoices", body=recording("send_success.xml"))
        assert services.transmission_run(invoice_id=invoice["id"])[0] == "sent"
        assert services.transmission_run(invoice_id=invoice["id"])[0] == "skipped"
    sent = Transmission.objects.get(invoice_id=invoice["id"])
    assert (sent.status, sent.attempts, sent.last_error) == ("sent", 5, "")


def test_the_task_gives_up_after_its_retries(api, series):
    use_mydata(api)
    invoice = issued(api)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add(responses.POST, f"{DEV}/SendInvoices", status=500)
        transmit(api, invoice["id"])  # eager: nothing can wait for a retry
    failed = api.get(f"{INVOICES}/{invoice['id']}").json()["transmission"]
    assert failed["status"] == "failed"
    assert failed["attempts"] == 1
    assert "500" in failed["last_error"]
    assert transmit(api, invoice["id"]).status_code == 202  # may be sent again


def test_mydata_wrong_credentials(api, series):
    use_mydata(api)
    with responses.RequestsMock() as mock:
        mock.add(
            responses.GET,
            f"{DEV}/RequestTransmittedDocs",
            body=recording("unauthorized.json"),
            status=401,
            match=[responses.matchers.query_param_matcher({"mark": "0"})],
        )
        body = api.post(f"{INVOICES}/transmission/test").json()
        assert (body["provider"], body["ok"]) == ("mydata", False)
        assert "401" in body["message"]
        mock.replace(
            responses.GET, f"{DEV}/RequestTransmittedDocs", body=recording("transmitted_docs.xml")
        )
        assert api.post(f"{INVOICES}/transmission/test").json()["ok"] is True
        mock.replace(
            responses.GET, f"{DEV}/RequestTransmittedDocs", body=requests.ConnectTimeout("slow")
        )
        error(api.post(f"{INVOICES}/transmission/test"), 502, "authority_unavailable")
        invoice = issued(api)
        mock.add(responses.POST, f"{DEV}/SendInvoices", status=401)
        transmit(api, invoice["id"])
    failed = Transmission.objects.get(invoice_id=invoice["id"])
    assert (failed.status, failed.errors[0]["code"]) == ("failed", "credentials")


def test_mydata_without_credentials_is_not_configured(api, series):
    services.settings_update(fields={"provider": "mydata"})
    body = api.post(f"{INVOICES}/transmission/test").json()
    assert body["ok"] is False
    assert "user_id" in body["message"]


def test_a_foreign_counterpart_is_sent_with_its_name_and_address():
    from datetime import date

    from erp.invoicing.providers.base import Document, Party

    document = Document(
        issuer=Party(vat_number="094259216", country="GR"),
        counterpart=Party(
            vat_number="136695976",
            country="DE",
            name="Muster GmbH",
            street="Hauptstr. 1",
            city="Berlin",
            postcode="10115",
        ),
        series="A",
        number=7,
        issue_date=date(2026, 1, 2),
        document_type="1.2",
        currency="EUR",
        payment_method=1,
        lines=(
            Line(number=1, net=Decimal("100"), vat_category=7, vat=Decimal(0), vat_exemption=14),
        ),
        net_total=Decimal("100"),
        vat_total=Decimal(0),
        gross_total=Decimal("100"),
    )
    root = ET.fromstring(invoices_doc(document))  # noqa: S314 - our own document
    q = lambda path: "/".join(f"{{{NS}}}{part}" for part in path.split("/"))  # noqa: E731
    assert root.findtext(q("invoice/counterpart/name")) == "Muster GmbH"
    assert root.findtext(q("invoice/counterpart/address/city")) == "Berlin"
    assert root.findtext(q("invoice/invoiceDetails/vatExemptionCategory")) == "14"
    assert MydataAuthority({}).base_url == DEV


# --- The PDF --------------------------------------------------------------------------------


def test_the_pdf_of_a_sent_invoice(api, series):
    greek = "Ακμή ΑΕ"  # noqa: RUF001 - Greek letters print as they are
    invoice = issued(api, counterpart_name=greek)
    transmit(api, invoice["id"])
    mark = Transmission.objects.get(invoice_id=invoice["id"]).mark
    response = api.get(f"{INVOICES}/{invoice['id']}/pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert 'filename="invoice-A-1.pdf"' in response["Content-Disposition"]
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)
    for expected in (
        "Sales invoice",
        "A-1",
        "Lamp",
        "Book",
        "20.00",
        "4.80",
        "40.70",
        mark,
        "094259216"[:5],
    ):
        assert expected in text, expected
    draft = create(api)
    text = PdfReader(io.BytesIO(api.get(f"{INVOICES}/{draft['id']}/pdf").content)).pages[0]
    assert "DRAFT" in text.extract_text()
    error(api.get(f"{INVOICES}/999999/pdf"), 404, "invoice_not_found")


def test_the_task_retries_on_a_worker_then_gives_up(api, series, monkeypatch):
    """On a worker (not eager) a transient failure is retried with backoff; the last retry
    marks it failed."""
    from celery.exceptions import Retry

    from erp.invoicing import tasks

    use_mydata(api)
    invoice = issued(api)
    services.transmission_request(invoice_id=invoice["id"])
    monkeypatch.setattr(
        services, "transmission_run", lambda *, invoice_id: ("retry", "myDATA answered 503.")
    )
    retried = []

    def retry(exc=None, countdown=None, **kwargs):
        retried.append(countdown)
        return Retry(exc=exc, when=countdown)

    monkeypatch.setattr(tasks.transmit, "retry", retry)
    tasks.transmit.push_request(retries=2, is_eager=False)
    try:
        with pytest.raises(Retry):
            tasks.transmit.run(invoice_id=invoice["id"])
    finally:
        tasks.transmit.pop_request()
    assert retried == [120]
    assert Transmission.objects.get(invoice_id=invoice["id"]).status == "pending"
    tasks.transmit.push_request(retries=tasks.MAX_RETRIES, is_eager=False)
    try:
        assert tasks.transmit.run(invoice_id=invoice["id"]) == "failed"
    finally:
        tasks.transmit.pop_request()
    assert Transmission.objects.get(invoice_id=invoice["id"]).status == "failed"


@pytest.mark.sqlite_only  # the demo of `make run`: one pass
@pytest.mark.django_db(transaction=True)
def test_the_demo_stores_order_invoice_goes_through_the_sandbox_authority(seeded_demo, client):
    """docs/api/erp.md's walk-through on the demo data: order -> invoice -> issue -> transmit
    -> PDF."""

    from django.test import TestCase

    from accounts.models import User
    from store.orders.models import Order
    from tests.fixtures.store import basic_auth

    admin = User.objects.get(email="admin@example.com")
    auth = {"HTTP_AUTHORIZATION": basic_auth(admin)}
    order = Order.objects.filter(status="processing").order_by("pk").first()
    made = client.post(f"{INVOICES}/from-order/{order.pk}", **auth)
    assert made.status_code == 201, made.content
    invoice_id = made.json()["id"]
    assert client.post(f"{INVOICES}/{invoice_id}/issue", **auth).status_code == 200
    with TestCase.captureOnCommitCallbacks(execute=True):
        sent = client.post(f"{INVOICES}/{invoice_id}/transmit", **auth)
    assert sent.status_code == 202, sent.content
    body = client.get(f"{INVOICES}/{invoice_id}", **auth).json()
    assert body["transmission"]["status"] == "sent", body["transmission"]
    assert body["transmission"]["mark"]
    pdf = client.get(f"{INVOICES}/{invoice_id}/pdf", **auth)
    assert (pdf.status_code, pdf["Content-Type"]) == (200, "application/pdf")


def test_an_authority_adapter_must_implement_every_operation():
    from erp.invoicing.providers.base import AuthorityProvider

    class Half(AuthorityProvider):
        name = "half"

        def send(self, document):
            raise AssertionError

    with pytest.raises(TypeError, match="abstract"):
        Half({})
