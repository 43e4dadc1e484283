"""A refund on an invoiced order, in the books: its credit note (Dr sales, Dr VAT payable /
Cr receivable) and the refund payment (Dr receivable / Cr bank) together give back the sale
from the bank, and the receivables are what is left unpaid of the invoices."""

from __future__ import annotations

import pytest

from erp.accounting.models import AutoPosting
from tests.erp.accounting.conftest import REPORTS, closing_of, ok, on_commit, trial_balance
from tests.erp.accounting.test_auto_postings import entry_of, sides
from tests.erp.invoicing.helpers import INVOICES, configure
from tests.fixtures.store import API
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db


def invoiced_order(books_api) -> tuple:
    """An order of 177.00 (150.00 + 24.00 and 3.00 VAT), its invoice issued."""
    configure()
    order = make_order(
        line(stocked("Lamp", price="50.00"), 2, tax="24.00"),
        line(stocked("Book", price="50.00"), 1, tax="3.00"),
        status="processing",
        billing_address={"first_name": "Eleni", "last_name": "P", "country": "GR"},
        payment_method="cod",
    )
    with on_commit():
        invoice = ok(books_api.post(f"{INVOICES}/from-order/{order.pk}"), 201)
        ok(books_api.post(f"{INVOICES}/{invoice['id']}/issue"))
    return order, invoice


def pay_and_refund(admin, order, paid: str, refunded: str) -> None:
    with on_commit():
        ok(
            admin.post(
                f"{API}/orders/{order.pk}/payments",
                {"amount": paid, "method": "cod"},
                format="json",
            ),
            201,
        )
        ok(admin.post(f"{API}/payment/refund/{order.pk}", {"amount": refunded}, format="json"), 201)


def test_a_partial_refund_of_a_paid_invoice_leaves_nothing_owed(books_api, admin_client_api):
    order, invoice = invoiced_order(books_api)
    pay_and_refund(admin_client_api, order, "177.00", "10.00")

    (note,) = [
        row
        for row in AutoPosting.objects.filter(source_type="invoice")
        if row.source_id != str(invoice["id"])
    ]
    credit = note.entry
    assert credit.reference == f"order:{order.pk}"
    assert sides(credit) == [
        ("4100", "8.47", "0.00"),
        ("2200", "1.53", "0.00"),
        ("1200", "0.00", "10.00"),
    ]
    refund = AutoPosting.objects.get(kind="refund").entry
    assert sides(refund) == [("1200", "10.00", "0.00"), ("1100", "0.00", "10.00")]
    # Together: Dr sales + Dr VAT payable / Cr bank; the customer, paid in full, owes nothing.
    balances = closing_of(trial_balance(books_api))
    assert (balances["1100"], balances["1200"]) == ("167.00", "0.00")
    assert (balances["4100"], balances["2200"]) == ("-141.53", "-25.47")
    assert ok(books_api.get(f"{REPORTS}/accounts-receivable"))["partners"] == []
    vat_return = ok(books_api.get(f"{REPORTS}/vat-return"))
    assert (vat_return["output_vat"], vat_return["net_sales"]) == ("25.47", "141.53")
    assert not AutoPosting.objects.filter(status="failed").exists()
    assert entry_of("invoice", invoice["id"], "issued").lines.count() == 3


def test_receivables_are_what_is_left_unpaid_of_the_invoice(books_api, admin_client_api):
    order, _invoice = invoiced_order(books_api)
    pay_and_refund(admin_client_api, order, "100.00", "20.00")
    # 177.00 invoiced, 20.00 of it credited, 80.00 kept of what was paid: 77.00 unpaid.
    aged = ok(books_api.get(f"{REPORTS}/accounts-receivable"))
    items = [(i["reference"], i["amount"]) for p in aged["partners"] for i in p["items"]]
    assert items == [(f"order:{order.pk}", "77.00")]
    assert closing_of(trial_balance(books_api))["1200"] == "77.00"
