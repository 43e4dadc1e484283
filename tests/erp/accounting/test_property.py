"""Property: after any sequence of business events (invoices issued and cancelled, payments,
refunds, goods received, manual entries, reversals, a year closed), the books balance: the
trial balance's debits equal its credits, and assets = liabilities + equity + the earnings
not yet closed.

Hypothesis draws the sequence; each step goes through the real services (the senders'
signals after the commit, accounting's listeners), accepted or refused. The invariants are
checked after every step, and once at the end through the HTTP API.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.errors import ServiceError
from erp.accounting import selectors, services
from erp.accounting.models import Account, AutoPosting, FiscalYear, JournalEntry
from erp.invoicing import services as invoicing
from erp.invoicing.models import Invoice, InvoiceSeries
from erp.purchasing import services as purchasing
from store.orders import services as order_services
from store.payments import services as payment_services
from tests.erp.accounting.conftest import REPORTS, ok, on_commit
from tests.erp.invoicing.helpers import configure, draft_body
from tests.erp.purchasing.conftest import make_supplier, product, sent_order
from tests.fixtures.properties import examples
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

CENTS = st.integers(1, 500_000)
CODES = ["1100", "1110", "1200", "1300", "2100", "2200", "3100", "4100", "4200", "5200", "5300"]
DAYS = st.dates(min_value=date(2025, 1, 1), max_value=date(2026, 12, 31))

STEP = st.one_of(
    st.tuples(st.just("invoice"), CENTS, st.sampled_from([1, 2, 3, 7])),
    st.tuples(st.just("cancel"), st.integers(0, 5), st.none()),
    st.tuples(st.just("payment"), CENTS, st.none()),
    st.tuples(st.just("refund"), CENTS, st.none()),
    st.tuples(st.just("receive"), st.integers(1, 20), st.integers(1, 10_000)),
    st.tuples(
        st.just("manual"),
        st.lists(st.tuples(st.sampled_from(CODES), CENTS), min_size=1, max_size=4),
        DAYS,
    ),
    st.tuples(st.just("reverse"), st.integers(0, 10), DAYS),
    st.tuples(st.just("close"), st.none(), st.none()),
)


def _money(cents: int) -> Decimal:
    return Decimal(cents) / 100


def _setup():
    if not InvoiceSeries.objects.exists():
        configure(zero_vat_exemption=24)
    services.chart_ensure()
    for y in (2025, 2026):
        if not FiscalYear.objects.filter(name=str(y)).exists():
            services.fiscal_year_create(
                fields={"name": str(y), "start_date": date(y, 1, 1), "end_date": date(y, 12, 31)}
            )
    order = make_order(line(stocked(price="10.00"), 1), status="processing", payment_method="cod")
    return order, make_supplier(name="Acme")


def _apply(step, order, supplier) -> None:
    kind, a, b = step
    if kind == "invoice":
        item = {
            "description": "Thing",
            "quantity": Decimal(1),
            "unit_price": _money(a),
            "discount": Decimal(0),
            "vat_category": b,
        }
        if b == 7:
            item["vat_exemption"] = 24
        body = draft_body(lines=[item])
        invoice = invoicing.invoice_create(fields=body)
        invoicing.invoice_issue(invoice_id=invoice.pk)
    elif kind == "cancel":
        issued = list(Invoice.objects.filter(status="issued", corrects=None).order_by("id"))
        if issued:
            invoicing.invoice_cancel(invoice_id=issued[a % len(issued)].pk)
    elif kind == "payment":
        order_services.payment_create(
            order_id=order.pk, fields={"amount": _money(a), "method": "cod"}
        )
    elif kind == "refund":
        payment_services.refund_create(order_id=order.pk, amount=_money(a))
    elif kind == "receive":
        po = sent_order(supplier, (product("Bolt"), a, str(_money(b))))
        purchasing.purchase_order_receive(order_id=po.pk)
    elif kind == "manual":
        ids = dict(Account.objects.values_list("code", "id"))
        lines = [{"account_id": ids[code], "debit": _money(cents)} for code, cents in a]
        total = sum((line["debit"] for line in lines), Decimal(0))
        lines.append({"account_id": ids["3100"], "credit": total})
        entry = services.journal_entry_create(fields={"date": b, "lines": lines})
        services.journal_entry_post(entry_id=entry.pk)
    elif kind == "reverse":
        posted = list(JournalEntry.objects.filter(status="posted").order_by("id"))
        if posted:
            services.journal_entry_reverse(entry_id=posted[a % len(posted)].pk, day=b)
    elif kind == "close":
        year = FiscalYear.objects.get(name="2025")
        if year.status == "open":
            JournalEntry.objects.filter(status="draft").delete()
            services.fiscal_year_close(year_id=year.pk)


def _check() -> None:
    assert not AutoPosting.objects.filter(status="failed").exists()
    far = date(2100, 1, 1)
    report = selectors.trial_balance(selectors.Period(date_from=None, date_to=far))
    assert report["balanced"], report["totals"]
    sheet = selectors.balance_sheet(far)
    assert sheet["balanced"], {
        k: v
        for k, v in sheet.items()
        if k.startswith("total")
        or k == "current_earnings"
        or k in ("assets", "liabilities", "equity")
    }
    for year in FiscalYear.objects.filter(status="closed"):
        lines = selectors.account_balances(year.end_date)
        # a closed year's income and expenses were all moved to retained earnings
        kinds = dict(Account.objects.values_list("id", "type"))
        assert all(
            kinds[account] not in ("income", "expense") or balance == 0
            for account, balance in lines.items()
        ), lines


@pytest.mark.slow(reason="25 generated sequences of up to 12 business events, each on the database")
@settings(max_examples=examples(25))
@given(steps=st.lists(STEP, min_size=1, max_size=12))
def test_the_books_balance_after_any_sequence_of_events(erp_on, steps):
    order, supplier = _setup()
    for step in steps:
        try:
            with on_commit():
                _apply(step, order, supplier)
        except ServiceError:
            pass  # a refusal changes nothing; the books still balance
        _check()


def test_the_reports_agree_through_the_api(books_api):
    order, supplier = _setup()
    for step in (
        ("invoice", 12_345, 1),
        ("payment", 10_000, None),
        ("refund", 2_000, None),
        ("receive", 3, 250),
        ("manual", [("5300", 999)], date(2025, 6, 1)),
        ("cancel", 0, None),
        ("reverse", 0, date(2026, 3, 1)),
        ("close", None, None),
    ):
        with on_commit():
            _apply(step, order, supplier)
    tb = ok(books_api.get(f"{REPORTS}/trial-balance", {"as_of": "2100-01-01"}))
    assert tb["balanced"] is True
    assert Decimal(tb["totals"]["debit"]) > 0
    sheet = ok(books_api.get(f"{REPORTS}/balance-sheet", {"as_of": "2100-01-01"}))
    assert sheet["balanced"] is True
    assert sheet["total_assets"] == sheet["total_liabilities_and_equity"]
