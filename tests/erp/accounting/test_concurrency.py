"""Real concurrent transactions (PostgreSQL): posting locks the fiscal year's row, so numbers
are unique and gapless per year whatever the interleaving; an entry is posted or reversed
once; one business event posts one entry even when delivered twice at once; closing waits
for postings in flight; the reports' rollups stay a recount of the lines whatever the
interleaving of postings and recounts."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from common.errors import ServiceError
from erp.accounting import selectors, services
from erp.accounting.models import Account, AutoPosting, FiscalYear, JournalEntry
from erp.accounting.services import balances
from tests.concurrency import race
from tests.erp.accounting.helpers import recounted, rollup_rows

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def _year(y: int) -> FiscalYear:
    return services.fiscal_year_create(
        fields={"name": str(y), "start_date": date(y, 1, 1), "end_date": date(y, 12, 31)}
    )


def _draft(day: date, amount: str = "10.00", income: bool = False) -> JournalEntry:
    services.chart_ensure()
    ids = dict(Account.objects.values_list("code", "id"))
    return services.journal_entry_create(
        fields={
            "date": day,
            "lines": [
                {"account_id": ids["1100"], "debit": Decimal(amount)},
                {"account_id": ids["4200" if income else "3100"], "credit": Decimal(amount)},
            ],
        }
    )


def test_simultaneous_posts_take_gapless_unique_numbers_per_year():
    _year(2025)
    _year(2026)
    drafts = [_draft(date(2026, 3, 1)) for _ in range(6)] + [
        _draft(date(2025, 3, 1)) for _ in range(2)
    ]
    results = race(*[lambda pk=d.pk: services.journal_entry_post(entry_id=pk) for d in drafts])
    assert all(isinstance(r, JournalEntry) for r in results), results
    numbers = sorted(
        JournalEntry.objects.filter(fiscal_year__name="2026").values_list("number", flat=True)
    )
    assert numbers == [1, 2, 3, 4, 5, 6]
    assert sorted(
        JournalEntry.objects.filter(fiscal_year__name="2025").values_list("number", flat=True)
    ) == [1, 2]
    assert FiscalYear.objects.get(name="2026").next_number == 7


def test_an_entry_is_posted_and_reversed_once():
    _year(2026)
    entry = _draft(date(2026, 3, 1))
    results = race(*[lambda: services.journal_entry_post(entry_id=entry.pk) for _ in range(3)])
    assert (
        sorted(r.code for r in results if isinstance(r, ServiceError))
        == ["journal_entry_not_draft"] * 2
    )
    results = race(
        *[
            lambda: services.journal_entry_reverse(entry_id=entry.pk, day=date(2026, 4, 1))
            for _ in range(3)
        ]
    )
    assert sum(isinstance(r, JournalEntry) for r in results) == 1
    assert JournalEntry.objects.filter(reverses=entry).count() == 1
    assert FiscalYear.objects.get().next_number == 3


def test_one_event_delivered_twice_at_once_posts_once():
    event = {
        "payment_id": 9,
        "order_id": 4,
        "kind": "payment",
        "amount": "12.00",
        "date": "2026-06-01",
    }
    results = race(*[lambda: services.payment_recorded(dict(event)) for _ in range(3)])
    assert all(isinstance(r, AutoPosting) for r in results), results
    assert AutoPosting.objects.get().status == "posted"
    assert JournalEntry.objects.count() == 1
    assert FiscalYear.objects.get().name == "2026"  # made once by the first


def test_closing_and_postings_in_flight_never_leave_the_year_half_closed():
    year = _year(2026)
    drafts = [_draft(date(2026, 3, 1), "7.00", income=True) for _ in range(4)]
    calls = [lambda pk=d.pk: services.journal_entry_post(entry_id=pk) for d in drafts]
    results = race(*calls, lambda: services.fiscal_year_close(year_id=year.pk))
    closing = results[-1]
    far = date(2100, 1, 1)
    assert selectors.trial_balance(selectors.Period(None, far))["balanced"]
    income = Account.objects.get(code="4200").pk
    if isinstance(closing, ServiceError):  # drafts were still in the year: nothing closed
        assert closing.code == "fiscal_year_has_drafts"
        assert all(isinstance(r, JournalEntry) for r in results[:-1]), results
        assert FiscalYear.objects.get().status == "open"
        assert selectors.account_balances(far)[income] == Decimal("-28.00")
    else:  # every posting came first and was closed to retained earnings
        assert selectors.account_balances(far).get(income, Decimal(0)) == 0
    # once the drafts are all posted, the year closes with all of them in its closing entry
    services.fiscal_year_close(
        year_id=year.pk
    ) if FiscalYear.objects.get().status == "open" else None
    assert selectors.account_balances(far).get(income, Decimal(0)) == 0


def test_simultaneous_postings_in_several_years_keep_the_rollups_a_recount():
    """Postings of different years hold no common year lock: their sums reach the same
    rollup rows (the larger blocks, the same accounts) at once, and none is lost or waits
    crosswise for another."""
    for y in (2019, 2020, 2025, 2026):
        _year(y)
    days = [date(2019, 8, 8), date(2019, 8, 9), date(2020, 1, 1), date(2025, 3, 18)]
    drafts = [_draft(days[n % 4], f"{n + 1}.25", income=n % 2 == 0) for n in range(8)]
    results = race(*[lambda pk=d.pk: services.journal_entry_post(entry_id=pk) for d in drafts])
    assert all(isinstance(r, JournalEntry) for r in results), results
    reversals = race(
        *[
            lambda pk=d.pk, n=n: services.journal_entry_reverse(
                entry_id=pk, day=date(2026, 1, 1 + n)
            )
            for n, d in enumerate(drafts[:4])
        ],
        *[
            lambda n=n: services.journal_entry_post(entry_id=_draft(date(2025, 5, 1)).pk)
            for n in range(2)
        ],
    )
    assert all(isinstance(r, JournalEntry) for r in reversals), reversals
    assert rollup_rows() == recounted()
    assert selectors.account_balances()[Account.objects.get(code="1100").pk] == Decimal("47.00")


def test_a_recount_while_postings_commit_loses_none_of_them():
    """The recount locks the table first: a posting commits before it (and is counted from
    its lines) or adds its sums after it (to the recounted rows)."""
    _year(2026)
    drafts = [_draft(date(2026, 3, n + 1)) for n in range(6)]
    calls = [lambda pk=d.pk: services.journal_entry_post(entry_id=pk) for d in drafts]
    results = race(*calls[:3], balances.rebuild, *calls[3:], balances.rebuild)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert rollup_rows() == recounted()
    assert selectors.account_balances()[Account.objects.get(code="1100").pk] == Decimal("60.00")
