"""Drafts, issuing, cancelling by credit note, the list: every route and refusal."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from erp.invoicing.models import Invoice, InvoiceSeries
from tests.erp.invoicing.helpers import (
    CUSTOMER_VAT,
    INVOICES,
    configure,
    create,
    draft_body,
    issued,
    make_series,
)
from tests.fixtures.store import basic_auth, error

pytestmark = pytest.mark.django_db

# The credentials and capabilities, the count, the page with its series and transmissions.
LIST_QUERIES = 4


@pytest.fixture
def series(erp_on):
    return configure()


def test_without_the_erp_the_routes_answer_403(store_client, clerk):
    configure()
    error(store_client(clerk).get(INVOICES), 403, "erp_not_active")


def test_without_the_capability_403(erp_on, series, store_client):
    from tests.accounts.factories import UserFactory

    error(store_client(UserFactory()).get(INVOICES), 403, "insufficient_capability")


def test_create_a_draft_computes_lines_and_totals(api, series):
    body = create(api)
    assert body["status"] == "draft"
    assert (body["number"], body["full_number"], body["issue_date"]) == (None, "", None)
    assert body["series_code"] == "A"
    assert body["document_type"] == "1.1"
    assert body["counterpart_vat_number"] == CUSTOMER_VAT
    lamp, book = body["lines"]
    assert (lamp["net_amount"], lamp["vat_amount"], lamp["gross_amount"]) == (
        "20.00",
        "4.80",
        "24.80",
    )
    assert (book["net_amount"], book["vat_amount"], book["gross_amount"]) == (
        "15.00",
        "0.90",
        "15.90",
    )
    assert (body["net_total"], body["vat_total"], body["gross_total"]) == (
        "35.00",
        "5.70",
        "40.70",
    )
    assert body["vat_breakdown"] == [
        {"vat_category": 1, "rate": "24.00", "net": "20.00", "vat": "4.80"},
        {"vat_category": 3, "rate": "6.00", "net": "15.00", "vat": "0.90"},
    ]
    assert body["transmission"] is None
    assert api.get(f"{INVOICES}/{body['id']}").json() == body


def test_create_refusals(api, series):
    error(api.post(INVOICES, draft_body(series_id=999999), format="json"), 400, "invalid_param")
    bad = draft_body(counterpart_vat_number="EL123")
    assert (
        "counterpart_vat_number"
        in error(api.post(INVOICES, bad, format="json"), 400)["data"]["params"]
    )
    line = {"description": "X", "quantity": 1, "unit_price": "1.00", "vat_category": 99}
    error(api.post(INVOICES, draft_body(lines=[line]), format="json"), 400)
    line = {"description": "X", "quantity": 0, "unit_price": "1.00", "vat_category": 1}
    error(api.post(INVOICES, draft_body(lines=[line]), format="json"), 400)
    line = {
        "description": "X",
        "quantity": 1,
        "unit_price": "1.00",
        "discount": "2.00",
        "vat_category": 1,
    }
    body = error(api.post(INVOICES, draft_body(lines=[line]), format="json"), 400)
    assert "lines.0.discount" in body["data"]["params"]
    line = {
        "description": "X",
        "quantity": 1,
        "unit_price": "1.00",
        "vat_category": 1,
        "vat_exemption": 14,
    }
    body = error(api.post(INVOICES, draft_body(lines=[line]), format="json"), 400)
    assert "lines.0.vat_exemption" in body["data"]["params"]
    credit = make_series("C", "5.1", "C-")
    error(api.post(INVOICES, draft_body(series_id=credit.pk), format="json"), 400)
    assert Invoice.objects.count() == 0


def test_a_third_country_tax_number_is_kept_as_given(api, series):
    body = create(api, counterpart_vat_number="12-3456789", counterpart_country="US")
    assert body["counterpart_vat_number"] == "12-3456789"


def test_without_a_default_series_a_series_is_required(api):
    body = error(api.post(INVOICES, draft_body(), format="json"), 400)
    assert "series_id" in body["data"]["params"]


def test_edit_a_draft_then_issue_then_every_edit_is_409(api, series):
    draft = create(api)
    url = f"{INVOICES}/{draft['id']}"
    response = api.patch(
        url,
        {
            "lines": [
                {"description": "Chair", "quantity": 1, "unit_price": "100", "vat_category": 2}
            ],
            "notes": "Thanks",
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    assert (response.json()["gross_total"], response.json()["notes"]) == ("113.00", "Thanks")
    assert api.put(url, {"counterpart_name": "Acme SA"}, format="json").status_code == 200

    first = api.post(f"{url}/issue")
    assert first.status_code == 200
    body = first.json()
    assert (body["status"], body["number"], body["full_number"]) == ("issued", 1, "A-1")
    assert body["issue_date"]
    assert body["issued_at"]
    assert InvoiceSeries.objects.get(code="A").next_number == 2

    error(api.post(f"{url}/issue"), 409, "invoice_not_draft")
    error(api.patch(url, {"notes": "x"}, format="json"), 409, "invoice_not_draft")
    error(api.put(url, {"notes": "x"}, format="json"), 409, "invoice_not_draft")
    error(api.delete(url), 409, "invoice_not_draft")
    assert api.get(url).json()["notes"] == "Thanks"


def test_numbers_follow_each_other_per_series_and_drafts_take_none(api, series):
    _sales, receipts = series
    a = create(api)
    b = create(api)
    r = create(api, series_id=receipts.pk, counterpart_vat_number="")
    assert api.post(f"{INVOICES}/{b['id']}/issue").json()["full_number"] == "A-1"
    assert api.post(f"{INVOICES}/{r['id']}/issue").json()["full_number"] == "R-1"
    assert api.post(f"{INVOICES}/{a['id']}/issue").json()["full_number"] == "A-2"
    assert api.delete(f"{INVOICES}/{create(api)['id']}").status_code == 204
    assert api.post(f"{INVOICES}/{create(api)['id']}/issue").json()["number"] == 3


def test_issue_refusals(api, series):
    empty = create(api, lines=[])
    error(api.post(f"{INVOICES}/{empty['id']}/issue"), 409, "invoice_incomplete")
    draft = create(api)
    InvoiceSeries.objects.filter(code="A").update(active=False)
    error(api.post(f"{INVOICES}/{draft['id']}/issue"), 409, "invoice_incomplete")
    error(api.post(f"{INVOICES}/999999/issue"), 404, "invoice_not_found")
    assert InvoiceSeries.objects.get(code="A").next_number == 1


def test_delete_a_draft(api, series):
    draft = create(api)
    assert api.delete(f"{INVOICES}/{draft['id']}").status_code == 204
    error(api.get(f"{INVOICES}/{draft['id']}"), 404, "invoice_not_found")


def test_cancel_by_a_credit_note(api, series):
    invoice = issued(api)
    response = api.post(
        f"{INVOICES}/{invoice['id']}/cancel", {"reason": "Returned."}, format="json"
    )
    assert response.status_code == 201, response.content
    credit = response.json()
    assert (credit["document_type"], credit["status"], credit["full_number"]) == (
        "5.1",
        "issued",
        "CN-1",
    )
    assert credit["corrects_id"] == invoice["id"]
    assert credit["gross_total"] == invoice["gross_total"]
    assert [line["net_amount"] for line in credit["lines"]] == [
        line["net_amount"] for line in invoice["lines"]
    ]
    assert credit["notes"] == "Cancels A-1. Returned."
    original = api.get(f"{INVOICES}/{invoice['id']}").json()
    assert (original["status"], original["credit_note_ids"]) == ("cancelled", [credit["id"]])
    assert original["cancelled_at"]

    error(api.post(f"{INVOICES}/{invoice['id']}/cancel"), 409, "invoice_cancelled")
    error(api.post(f"{INVOICES}/{credit['id']}/cancel"), 409, "invoice_not_cancellable")
    error(api.delete(f"{INVOICES}/{invoice['id']}"), 409, "invoice_not_draft")
    assert Invoice.objects.count() == 2


def test_cancel_a_draft_is_409_and_a_receipt_gets_a_retail_credit_note(api, series):
    _sales, receipts = series
    draft = create(api)
    error(api.post(f"{INVOICES}/{draft['id']}/cancel"), 409, "invoice_is_draft")
    receipt = issued(api, series_id=receipts.pk, counterpart_vat_number="")
    credit = api.post(f"{INVOICES}/{receipt['id']}/cancel").json()
    assert (credit["document_type"], credit["series_code"]) == ("11.4", "CNR")


def test_the_list_filters_and_pages(api, series):
    _sales, receipts = series
    a = issued(api, counterpart_name="Alpha Traders")
    b = create(api, counterpart_name="Beta Foods")
    c = issued(api, series_id=receipts.pk, counterpart_vat_number="", counterpart_name="Gamma")

    def ids(query: str = "") -> list[int]:
        response = api.get(f"{INVOICES}?{query}")
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()["invoices"]]

    assert ids() == [c["id"], b["id"], a["id"]]
    assert ids("status=draft") == [b["id"]]
    assert ids("status=issued,draft&order=asc") == [a["id"], b["id"], c["id"]]
    assert ids(f"series_id={receipts.pk}") == [c["id"]]
    assert ids("document_type=11.1") == [c["id"]]
    assert ids("search=beta") == [b["id"]]
    assert ids("search=A-1") == [a["id"]]
    assert ids(f"search={CUSTOMER_VAT[2:6]}&status=issued") == [a["id"]]
    assert ids(f"date_from={a['issue_date']}&date_to={a['issue_date']}") == [c["id"], a["id"]]
    assert ids("date_from=2999-01-01") == []
    assert ids("transmission=none&status=issued") == [c["id"], a["id"]]
    page = api.get(f"{INVOICES}?per_page=2&page=2").json()
    assert (page["total"], page["page"], page["per_page"], page["total_pages"]) == (3, 2, 2, 2)
    assert len(page["invoices"]) == 1
    assert "lines" not in page["invoices"][0]
    assert api.get(f"{INVOICES}?per_page=1000").json()["per_page"] == 100
    for bad in ("status=nope", "page=0", "date_from=yesterday", "series_id=abc", "orderby=x"):
        error(api.get(f"{INVOICES}?{bad}"), 400, "invalid_param")


def test_the_list_costs_the_same_queries_for_more_rows(api, series, django_assert_num_queries):
    def listed(count: int) -> None:
        with django_assert_num_queries(LIST_QUERIES):
            assert len(api.get(INVOICES).json()["invoices"]) == count

    issued(api)
    listed(1)
    for _ in range(4):
        invoice = issued(api)
        assert api.post(f"{INVOICES}/{invoice['id']}/transmit").status_code == 202
        create(api)
    listed(9)


@pytest.mark.parametrize(
    "body",
    [
        {"lines": [{"description": "\x00", "quantity": 1, "unit_price": "1", "vat_category": 1}]},
        {"counterpart_name": "\ud800"},
        {"lines": {"description": "not a list"}},
        {"lines": [["nested"]]},
        {"payment_method": 10**30},
        {"series_id": 10**30},
        {
            "lines": [
                {"description": "x", "quantity": "1e400", "unit_price": "1", "vat_category": 1}
            ]
        },
        {"lines": [{"description": "x", "quantity": 1, "unit_price": "NaN", "vat_category": 1}]},
        {"lines": [{"description": "x", "quantity": 1, "unit_price": "1", "vat_category": True}]},
        {"billing_address": "Athens"},
        {"currency": "€€€"},
        {"issue_date": "2026-02-30"},
    ],
)
def test_hostile_bodies_are_400_never_500(api, series, body):
    response = api.post(INVOICES, json.dumps(draft_body(**body)), content_type="application/json")
    assert response.status_code in (400, 422), response.content
    assert Invoice.objects.count() == 0


def test_deep_json_and_non_objects(api, series):
    deep = "[" * 5000 + "]" * 5000
    response = api.post(INVOICES, deep, content_type="application/json")
    assert response.status_code in (400, 413, 422)
    assert api.post(INVOICES, [1, 2], format="json").status_code == 400
    assert api.post(INVOICES, "{", content_type="application/json").status_code == 400


def test_unsafe_methods_without_a_csrf_token_answer_json(erp_on, series, clerk):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(clerk)
    response = browser.post(INVOICES, json.dumps(draft_body()), content_type="application/json")
    assert response.status_code in (401, 403)
    assert response["Content-Type"].startswith("application/json")
    assert set(response.json()) == {"code", "message", "data"}
    # With application-password credentials (no session) CSRF does not apply.
    basic = Client(enforce_csrf_checks=True, headers={"Authorization": basic_auth(clerk)})
    response = basic.post(INVOICES, json.dumps(draft_body()), content_type="application/json")
    assert response.status_code == 201, response.content
    invoice_id = response.json()["id"]
    assert basic.post(f"{INVOICES}/{invoice_id}/issue").status_code == 200


def test_idempotency_key_replays_the_creation(api, series):
    first = api.post(INVOICES, draft_body(), format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = api.post(INVOICES, draft_body(), format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert first.json()["id"] == again.json()["id"]
    assert Invoice.objects.count() == 1
