"""The entries business events post: issued invoices and credit notes, payments, refunds and
their deletion, goods received. After the commit, once each, into the first open year when
their own is closed, and recorded as failed (then retried) when they cannot be posted."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.db import transaction
from django.utils import timezone

from erp.accounting import services
from erp.accounting.models import Account, AutoPosting, FiscalYear, JournalEntry
from erp.core import signals as core_signals
from erp.invoicing import services as invoicing
from erp.invoicing.models import Invoice
from erp.purchasing import services as purchasing
from store.orders import services as order_services
from store.payments import services as payment_services
from tests.erp.accounting.conftest import (
    ENTRIES,
    REPORTS,
    closing_of,
    ok,
    on_commit,
    trial_balance,
    year,
)
from tests.erp.invoicing.helpers import INVOICES, configure, draft_body
from tests.erp.purchasing.conftest import make_supplier, product, sent_order
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()


def issue(api, **fields) -> dict:
    with on_commit():
        invoice = ok(api.post(INVOICES, draft_body(**fields), format="json"), 201)
        issued = ok(api.post(f"{INVOICES}/{invoice['id']}/issue"))
    return issued


def entry_of(source_type: str, source_id, kind: str) -> JournalEntry:
    return AutoPosting.objects.get(
        source_type=source_type, source_id=str(source_id), kind=kind
    ).entry


def sides(entry: JournalEntry) -> list[tuple[str, str, str]]:
    return [
        (line.account.code, str(line.debit), str(line.credit))
        for line in entry.lines.select_related("account").order_by("position")
    ]


def test_an_issued_invoice_posts_receivable_revenue_and_vat(books_api):
    configure()
    invoice = issue(books_api)
    entry = entry_of("invoice", invoice["id"], "issued")
    assert (entry.status, entry.kind, entry.reference) == (
        "posted",
        "automatic",
        f"invoice:{invoice['id']}",
    )
    gross, vat = invoice["gross_total"], invoice["vat_total"]
    net = str(Decimal(gross) - Decimal(vat))
    assert sides(entry) == [("1200", gross, "0.00"), ("4100", "0.00", net), ("2200", "0.00", vat)]
    # no fiscal year held the day: its calendar year was made
    assert FiscalYear.objects.get().name == str(TODAY.year)
    assert entry.full_number == f"{TODAY.year}/00001"
    listing = ok(books_api.get(ENTRIES, {"source_type": "invoice"}))
    assert [e["source_id"] for e in listing["journal_entries"]] == [str(invoice["id"])]
    vat_return = ok(books_api.get(f"{REPORTS}/vat-return"))
    assert (vat_return["output_vat"], vat_return["net_sales"]) == (vat, net)


def test_a_credit_note_reverses_the_invoice(books_api):
    configure()
    invoice = issue(books_api)
    with on_commit():
        credit = ok(
            books_api.post(
                f"{INVOICES}/{invoice['id']}/cancel", {"reason": "Returned"}, format="json"
            ),
            201,
        )
    entry = entry_of("invoice", credit["id"], "issued")
    assert entry.reference == f"invoice:{invoice['id']}"
    assert [row[0] for row in sides(entry)] == ["4100", "2200", "1200"]
    balances = closing_of(trial_balance(books_api))
    assert set(balances.values()) == {"0.00"}
    aged = ok(books_api.get(f"{REPORTS}/accounts-receivable"))
    assert aged["partners"] == []


def test_an_event_posts_once(books_api):
    configure()
    invoice = issue(books_api)
    row = AutoPosting.objects.get()
    with on_commit():
        core_signals.send_after_commit(
            core_signals.invoice_issued, sender=Invoice, event=row.payload
        )
    services.invoice_issued(row.payload)
    assert JournalEntry.objects.count() == 1
    assert AutoPosting.objects.get().attempts == 1
    assert invoice["id"] == int(row.source_id)


def test_nothing_posts_for_a_rolled_back_change(books_api):
    configure()
    invoice = ok(books_api.post(INVOICES, draft_body(), format="json"), 201)

    def issue_then_fail():
        with transaction.atomic():
            invoicing.invoice_issue(invoice_id=invoice["id"])
            raise RuntimeError("rolled back")

    with on_commit(), pytest.raises(RuntimeError):
        issue_then_fail()
    assert not AutoPosting.objects.exists()
    assert not JournalEntry.objects.exists()


def an_order():
    return make_order(
        line(stocked("Lamp", price="50.00"), 2, tax="24.00"),
        status="processing",
        billing_address={"first_name": "Eleni", "last_name": "P", "country": "GR"},
        payment_method="cod",
    )


def test_payments_refunds_and_deleted_payments_post(books_api):
    order = an_order()
    with on_commit():
        payment = order_services.payment_create(
            order_id=order.pk, fields={"amount": Decimal("124.00"), "method": "cod"}
        )
    entry = entry_of("payment", payment.pk, "payment")
    assert sides(entry) == [("1100", "124.00", "0.00"), ("1200", "0.00", "124.00")]
    assert entry.reference == f"order:{order.pk}"
    line_ = entry.lines.get(account__code="1200")
    assert (line_.partner_type, line_.partner_name) == ("", "Eleni P")
    with on_commit():
        payment_services.refund_create(order_id=order.pk, amount=Decimal("24.00"), reason="Damaged")
    refund = AutoPosting.objects.get(kind="refund").entry
    assert sides(refund) == [("1200", "24.00", "0.00"), ("1100", "0.00", "24.00")]
    balances = closing_of(trial_balance(books_api))
    assert (balances["1100"], balances["1200"]) == ("100.00", "-100.00")
    # a pending payment posts nothing; completing it posts it
    with on_commit():
        pending = order_services.payment_create(
            order_id=order.pk, fields={"amount": Decimal("5.00"), "status": "pending"}
        )
    assert not AutoPosting.objects.filter(source_id=str(pending.pk)).exists()
    with on_commit():
        order_services.payment_update(payment_id=pending.pk, fields={"status": "completed"})
        order_services.payment_update(payment_id=pending.pk, fields={"note": "again"})
    assert AutoPosting.objects.filter(source_id=str(pending.pk)).count() == 1
    with on_commit():
        order_services.payment_delete(payment_id=pending.pk)
    deleted = entry_of("payment", pending.pk, "deleted")
    assert sides(deleted) == [("1200", "5.00", "0.00"), ("1100", "0.00", "5.00")]
    assert trial_balance(books_api)["balanced"] is True


def test_an_invoice_and_its_payment_settle_the_receivable(books_api):
    configure()
    order = an_order()
    with on_commit():
        invoice, _made = invoicing.invoice_from_order(order_id=order.pk)
        invoicing.invoice_issue(invoice_id=invoice.pk)
    invoice.refresh_from_db()
    aged = ok(books_api.get(f"{REPORTS}/accounts-receivable"))
    assert [(i["reference"], i["amount"]) for i in aged["partners"][0]["items"]] == [
        (f"order:{order.pk}", str(invoice.gross_total))
    ]
    with on_commit():
        order_services.payment_create(order_id=order.pk, fields={"amount": invoice.gross_total})
    assert ok(books_api.get(f"{REPORTS}/accounts-receivable"))["partners"] == []
    assert closing_of(trial_balance(books_api))["1100"] == str(invoice.gross_total)


def test_goods_received_post_inventory_against_payables(books_api):
    supplier = make_supplier(name="Acme", payment_terms_days=45)
    order = sent_order(supplier, (product("Bolt"), 10, "2.50"))
    with on_commit():
        note = purchasing.purchase_order_receive(order_id=order.pk)
    entry = entry_of("goods_received", note.pk, "received")
    assert sides(entry) == [("1300", "25.00", "0.00"), ("2100", "0.00", "25.00")]
    payable = entry.lines.get(account__code="2100")
    assert (payable.partner_type, payable.partner_id, payable.partner_name) == (
        "supplier",
        supplier.pk,
        "Acme",
    )
    assert (payable.due_date - entry.date).days == 45
    aged = ok(books_api.get(f"{REPORTS}/accounts-payable"))
    assert (aged["totals"]["not_due"], aged["partners"][0]["items"][0]["reference"]) == (
        "25.00",
        f"grn:{note.pk}",
    )


def test_an_event_in_a_closed_year_posts_on_the_first_day_of_the_next_open_one(books_api):
    configure()
    this = year(books_api, f"{TODAY.year}-01-01", f"{TODAY.year}-12-31")
    ok(books_api.post(f"/rest/ec/v1/fiscal-years/{this['id']}/close"))
    invoice = issue(books_api)
    entry = entry_of("invoice", invoice["id"], "issued")
    assert entry.date == date(TODAY.year + 1, 1, 1)
    assert entry.fiscal_year.name == str(TODAY.year + 1)
    assert FiscalYear.objects.get(name=str(TODAY.year)).entries.count() == 0


def test_a_failed_posting_is_recorded_and_posted_again(books_api):
    configure()
    services.chart_ensure()
    Account.objects.filter(role="receivable").update(role="")
    invoice = issue(books_api)
    assert Invoice.objects.get(pk=invoice["id"]).status == "issued"  # the invoice is not held up
    row = AutoPosting.objects.get()
    assert (row.status, row.entry) == ("failed", None)
    assert "receivable" in row.error
    assert not JournalEntry.objects.exists()
    Account.objects.filter(code="1200").update(role="receivable")
    retried = services.event_retry(posting_id=row.pk)
    assert (retried.status, retried.attempts) == ("posted", 2)
    assert retried.entry.lines.count() == 3


def test_store_payments_post_only_while_the_erp_runs(db):
    order = an_order()
    with on_commit():
        order_services.payment_create(order_id=order.pk, fields={"amount": Decimal("3.00")})
    assert not AutoPosting.objects.exists()
    assert not JournalEntry.objects.exists()
