"""Series, settings (credentials encrypted and masked), reference data."""

from __future__ import annotations

import pytest

from erp.invoicing import crypto
from erp.invoicing.models import InvoicingSettings
from tests.erp.invoicing.helpers import INVOICES, ISSUER_VAT, SERIES, SETTINGS, configure, issued
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db


def test_series_crud(api):
    response = api.post(
        SERIES, {"code": "b-2026", "document_type": "2.1", "prefix": "B/"}, format="json"
    )
    assert response.status_code == 201, response.content
    series = response.json()
    assert (series["code"], series["next_number"], series["active"], series["in_use"]) == (
        "B-2026",
        1,
        True,
        False,
    )
    assert series["document_type_name"] == "Services invoice"
    url = f"{SERIES}/{series['id']}"
    assert api.get(url).json() == series
    changed = api.patch(url, {"next_number": 100, "name": "Services"}, format="json").json()
    assert (changed["next_number"], changed["name"]) == (100, "Services")
    assert [row["code"] for row in api.get(SERIES).json()["series"]] == ["B-2026"]
    error(api.post(SERIES, {"code": "B-2026", "document_type": "1.1"}, format="json"), 400)
    error(api.post(SERIES, {"code": "no spaces", "document_type": "1.1"}, format="json"), 400)
    error(api.post(SERIES, {"code": "X", "document_type": "9.9"}, format="json"), 400)
    error(
        api.post(SERIES, {"code": "X", "document_type": "1.1", "next_number": 0}, format="json"),
        400,
    )
    assert api.delete(url).status_code == 204
    error(api.get(url), 404, "invoice_series_not_found")


def test_a_series_with_issued_invoices_is_frozen(api):
    sales, _receipts = configure()
    issued(api)
    url = f"{SERIES}/{sales.pk}"
    assert api.get(url).json()["in_use"] is True
    for change in ({"code": "Z"}, {"document_type": "2.1"}, {"next_number": 1}):
        error(api.patch(url, change, format="json"), 409, "invoice_series_in_use")
    error(api.delete(url), 409, "invoice_series_in_use")
    body = api.patch(url, {"prefix": "A2026-", "active": False, "code": "A"}, format="json")
    assert body.status_code == 200, body.content
    assert body.json()["prefix"] == "A2026-"


def test_a_series_with_drafts_only_is_not_deleted(api):
    sales, _ = configure()
    api.post(INVOICES, {"lines": []}, format="json")
    error(api.delete(f"{SERIES}/{sales.pk}"), 409, "invoice_series_in_use")


def test_settings_read_and_update_with_masked_credentials(api):
    body = api.get(SETTINGS).json()
    assert (body["provider"], body["auto_invoice"], body["credentials_set"]) == (
        "sandbox",
        False,
        False,
    )
    sales, receipts = configure()
    response = api.patch(
        SETTINGS,
        {
            "issuer_vat_number": "el 094 259 216",
            "issuer_branch": 2,
            "provider": "mydata",
            "mydata_user_id": "emporion-user",
            "mydata_subscription_key": "0123456789abcdef0123456789abcdef",
            "auto_invoice": True,
            "order_series_id": receipts.pk,
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["issuer_vat_number"] == ISSUER_VAT
    assert (body["default_series_id"], body["order_series_id"]) == (sales.pk, receipts.pk)
    assert body["mydata_subscription_key"] == "****cdef"
    assert body["mydata_user_id"] == "****user"
    assert "0123456789abcdef" not in response.content.decode()
    assert body["credentials_set"] is True
    row = InvoicingSettings.objects.get()
    assert b"emporion-user" not in bytes(row.credentials)
    assert crypto.unseal(row.credentials)["user_id"] == "emporion-user"
    # An empty value removes one secret; the other stays.
    api.patch(SETTINGS, {"mydata_user_id": ""}, format="json")
    assert crypto.unseal(InvoicingSettings.objects.get().credentials) == {
        "subscription_key": "0123456789abcdef0123456789abcdef"
    }


def test_settings_refusals(api):
    for body in (
        {"issuer_vat_number": "EL123456789"},
        {"default_series_id": 999999},
        {"provider": "nope"},
        {"auto_invoice": "yes"},
        {"issuer_branch": -1},
        {"issuer_address": {"country": "XX"}},
    ):
        error(api.patch(SETTINGS, body, format="json"), 400)
    body = error(api.patch(SETTINGS, {"issuer_vat_number": "EL123456789"}, format="json"), 400)
    assert body["code"] == "invalid_vat_number"


def test_reference_data(api):
    body = api.get(f"{INVOICES}/reference-data").json()
    types = {row["code"]: row for row in body["document_types"]}
    assert types["1.1"]["name"] == "Sales invoice"
    assert types["11.1"]["needs_counterpart_vat_number"] is False
    assert types["5.1"]["credit_note"] is True
    rates = {row["code"]: row["rate"] for row in body["vat_categories"]}
    assert (rates[1], rates[2], rates[3], rates[7]) == ("24", "13", "6", "0")
    assert {row["code"] for row in body["payment_methods"]} >= {1, 3, 7}
    assert {row["code"] for row in body["providers"]} == {"sandbox", "mydata"}
