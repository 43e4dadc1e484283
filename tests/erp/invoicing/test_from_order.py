"""Invoices made from orders (one per order) and the auto-invoice of completed orders."""

from __future__ import annotations

from decimal import Decimal

import pytest

from erp.invoicing import services
from erp.invoicing.models import Invoice
from store.orders import services as order_services
from tests.erp.invoicing.helpers import BILLING, INVOICES, configure, on_commit
from tests.fixtures.store import API, error
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db


@pytest.fixture
def series(erp_on):
    return configure(zero_vat_exemption=24)


def an_order(status: str = "processing"):
    lamp = stocked("Lamp", price="10.00")
    book = stocked("Book", price="20.00")
    return make_order(
        line(lamp, 2, tax="4.32"),  # 24% of 18.00 (20.00 less its share of the discount)
        line(book, 1, tax="0.00"),
        status=status,
        billing_address=BILLING,
        payment_method="cod",
        shipping_method_title="Courier",
        shipping_total="5.00",
        shipping_tax="1.20",
        discount_total="6.00",
    )


def test_an_order_gets_one_invoice(api, series):
    order = an_order()
    response = api.post(f"{INVOICES}/from-order/{order.pk}")
    assert response.status_code == 201, response.content
    invoice = response.json()
    assert (invoice["status"], invoice["order_id"], invoice["document_type"]) == (
        "draft",
        order.pk,
        "11.1",
    )
    assert invoice["series_code"] == "R"
    assert invoice["counterpart_name"] == "Eleni Papadopoulou"
    assert invoice["counterpart_country"] == "GR"
    assert invoice["billing_address"]["city"] == "Athens"
    assert invoice["payment_method"] == 3  # cash on delivery
    assert invoice["currency"] == order.currency
    lamp, book, shipping = invoice["lines"]
    # The 6.00 discount shared over 20.00 and 20.00: 3.00 each.
    assert (lamp["quantity"], lamp["unit_price"], lamp["discount"], lamp["net_amount"]) == (
        "2.000",
        "10.00",
        "3.00",
        "17.00",
    )
    assert (lamp["vat_category"], lamp["vat_amount"]) == (1, "4.08")
    assert (book["net_amount"], book["vat_category"], book["vat_exemption"]) == ("17.00", 7, 24)
    assert (shipping["description"], shipping["net_amount"], shipping["vat_category"]) == (
        "Shipping: Courier",
        "5.00",
        1,
    )
    assert invoice["net_total"] == "39.00"
    again = api.post(f"{INVOICES}/from-order/{order.pk}")
    assert again.status_code == 200
    assert again.json()["id"] == invoice["id"]
    assert Invoice.objects.filter(order=order).count() == 1
    assert api.get(f"{INVOICES}?order_id={order.pk}").json()["total"] == 1


def test_from_order_refusals(api, series):
    error(api.post(f"{INVOICES}/from-order/999999"), 404, "order_not_found")
    services.settings_update(fields={"default_series_id": None, "order_series_id": None})
    error(api.post(f"{INVOICES}/from-order/{an_order().pk}"), 409, "invoice_series_required")
    assert Invoice.objects.count() == 0


def test_a_completed_order_gets_its_invoice_issued_when_the_settings_ask(api, series):
    order = an_order()
    with on_commit():
        order_services.order_status_set(order_id=order.pk, status="completed")
    assert not Invoice.objects.exists()  # auto_invoice is off by default

    services.settings_update(fields={"auto_invoice": True, "auto_transmit": True})
    other = an_order()
    with on_commit():
        order_services.order_status_set(order_id=other.pk, status="completed")
    invoice = Invoice.objects.get(order=other)
    assert (invoice.status, invoice.full_number) == ("issued", "R-1")
    assert invoice.transmission.status == "sent"
    # Completed again (after a refund and a reopening) or the task run twice: still one.
    services.invoice_for_order(order_id=other.pk)
    assert Invoice.objects.filter(order=other).count() == 1
    assert Invoice.objects.get(order=other).number == 1


def test_an_auto_invoice_issues_a_draft_made_earlier(api, series):
    order = an_order()
    draft = api.post(f"{INVOICES}/from-order/{order.pk}").json()
    services.settings_update(fields={"auto_invoice": True})
    with on_commit():
        order_services.order_status_set(order_id=order.pk, status="completed")
    assert Invoice.objects.get(pk=draft["id"]).status == "issued"


def test_order_lines_of_a_tax_inclusive_order(series):
    lamp = stocked("Lamp", price="12.40")
    order = make_order(line(lamp, 3, subtotal="30.00", tax="7.20"), status="processing")
    (only,) = services.order_lines(order)
    assert (only["unit_price"], only["discount"], only["vat_category"]) == (
        Decimal("12.40"),
        Decimal("7.20"),
        1,
    )


def test_an_order_with_an_invoice_cannot_be_deleted_409_not_500(api, series, admin_client_api):
    order = an_order()
    assert api.post(f"{INVOICES}/from-order/{order.pk}").status_code == 201
    response = admin_client_api.delete(f"{API}/orders/{order.pk}")
    assert response.status_code == 409, response.content
    assert response.json()["code"] == "in_use"
    assert "invoice" in response.json()["message"]
    assert admin_client_api.get(f"{API}/orders/{order.pk}").status_code == 200
