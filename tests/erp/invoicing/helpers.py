"""Invoicing's test helpers: series, settings and draft bodies, through the services."""

from __future__ import annotations

from django.test import TestCase

from erp.invoicing import services
from tests.fixtures.store import API

INVOICES = f"{API}/invoices"
SERIES = f"{API}/invoice-series"
SETTINGS = f"{INVOICES}/settings"
ISSUER_VAT = "EL094259216"  # a valid Greek VAT number (python-stdnum)
CUSTOMER_VAT = "EL094014201"
# An order's billing address (a Greek retail customer).
BILLING = {
    "first_name": "Eleni",
    "last_name": "Papadopoulou",
    "address_1": "Ermou 10",
    "city": "Athens",
    "postcode": "10563",
    "country": "GR",
    "email": "eleni@example.com",
}


def make_series(code: str = "A", document_type: str = "1.1", prefix: str = "A-", **fields):
    return services.series_create(
        fields={"code": code, "document_type": document_type, "prefix": prefix, **fields}
    )


def configure(**fields):
    """The issuer set, a sales-invoice series as the default and a receipts series for orders."""
    sales = make_series("A", "1.1", "A-")
    receipts = make_series("R", "11.1", "R-")
    services.settings_update(
        fields={
            "issuer_name": "Emporion S.A.",
            "issuer_vat_number": ISSUER_VAT,
            "issuer_address": {"address_1": "Ermou 1", "city": "Athens", "country": "GR"},
            "default_series_id": sales.pk,
            "order_series_id": receipts.pk,
            **fields,
        }
    )
    return sales, receipts


def draft_body(**fields) -> dict:
    body = {
        "counterpart_name": "Acme Ltd",
        "counterpart_vat_number": CUSTOMER_VAT,
        "counterpart_country": "GR",
        "billing_address": {
            "address_1": "Stadiou 5",
            "city": "Athens",
            "postcode": "10562",
            "country": "GR",
        },
        "currency": "EUR",
        "payment_method": 3,
        "lines": [
            {"description": "Lamp", "quantity": "2", "unit_price": "10.00", "vat_category": 1},
            {
                "description": "Book",
                "quantity": 1,
                "unit_price": "15.50",
                "discount": "0.50",
                "vat_category": 3,
            },
        ],
    }
    body.update(fields)
    return body


def create(client, **fields) -> dict:
    response = client.post(INVOICES, draft_body(**fields), format="json")
    assert response.status_code == 201, response.content
    return response.json()


def issued(client, **fields) -> dict:
    invoice = create(client, **fields)
    response = client.post(f"{INVOICES}/{invoice['id']}/issue")
    assert response.status_code == 200, response.content
    return response.json()


def on_commit():
    """Run what the block enqueues on commit (the outbox's publish: eager tasks) at its end."""
    return TestCase.captureOnCommitCallbacks(execute=True)
