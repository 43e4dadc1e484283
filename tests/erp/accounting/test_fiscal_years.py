"""Fiscal years: CRUD without overlaps, closing (income and expenses to retained earnings),
and a closed year refusing postings."""

from __future__ import annotations

import pytest

from erp.accounting.models import FiscalYear, JournalEntry
from tests.erp.accounting.conftest import (
    ENTRIES,
    REPORTS,
    YEARS,
    account_id,
    closing_of,
    draft,
    ok,
    posted,
    trial_balance,
    year,
)
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db


def test_create_read_update_delete(api):
    made = year(api)
    assert (made["name"], made["status"], made["next_number"]) == ("2026", "open", 1)
    url = f"{YEARS}/{made['id']}"
    assert ok(api.patch(url, {"name": "FY2026"}, format="json"))["name"] == "FY2026"
    moved = ok(api.patch(url, {"end_date": "2026-06-30"}, format="json"))
    assert moved["end_date"] == "2026-06-30"
    listing = ok(api.get(YEARS))
    assert [y["name"] for y in listing["fiscal_years"]] == ["FY2026"]
    assert api.delete(url).status_code == 204
    error(api.get(url), 404, "fiscal_year_not_found")


def test_years_never_overlap_and_dates_are_checked(api):
    year(api)
    body = error(
        api.post(YEARS, {"start_date": "2026-07-01", "end_date": "2027-06-30"}, format="json"),
        409,
        "fiscal_year_overlap",
    )
    assert "2026" in body["message"]
    error(
        api.post(YEARS, {"start_date": "2027-02-01", "end_date": "2027-01-01"}, format="json"), 400
    )
    error(
        api.post(YEARS, {"start_date": "2027-01-01", "end_date": "2030-01-01"}, format="json"), 400
    )
    error(
        api.post(
            YEARS,
            {"name": "2026", "start_date": "2027-01-01", "end_date": "2027-12-31"},
            format="json",
        ),
        400,
    )
    nxt = year(api, "2027-01-01", "2027-12-31")
    error(
        api.patch(f"{YEARS}/{nxt['id']}", {"start_date": "2026-12-01"}, format="json"),
        409,
        "fiscal_year_overlap",
    )
    assert FiscalYear.objects.count() == 2


def test_a_year_with_posted_entries_keeps_its_dates_and_is_not_deleted(api):
    made = year(api)
    posted(api, [("1100", "5.00", "0"), ("3100", "0", "5.00")])
    url = f"{YEARS}/{made['id']}"
    error(api.patch(url, {"start_date": "2025-12-01"}, format="json"), 409, "in_use")
    error(api.delete(url), 409, "in_use")
    assert ok(api.patch(url, {"name": "Year 2026"}, format="json"))["name"] == "Year 2026"


def test_closing_moves_the_result_to_retained_earnings(api):
    made = year(api, "2025-01-01", "2025-12-31")
    year(api)
    posted(api, [("1100", "1000.00", "0"), ("4100", "0", "1000.00")], day="2025-05-01")
    posted(api, [("5300", "300.00", "0"), ("1100", "0", "300.00")], day="2025-06-01")
    posted(api, [("1100", "50.00", "0"), ("4200", "0", "50.00")], day="2026-02-01")
    closed = ok(api.post(f"{YEARS}/{made['id']}/close"))
    assert (closed["status"], closed["next_number"]) == ("closed", 4)
    closing = JournalEntry.objects.get(kind="closing")
    assert (closing.full_number, str(closing.date)) == ("2025/00003", "2025-12-31")
    balances = closing_of(trial_balance(api, as_of="2025-12-31"))
    assert balances == {"1100": "700.00", "3200": "-700.00", "4100": "0.00", "5300": "0.00"}
    # the year's profit and loss still shows its result: closing entries are left out
    pl = ok(api.get(f"{REPORTS}/profit-loss", {"date_from": "2025-01-01", "date_to": "2025-12-31"}))
    assert (pl["total_income"], pl["total_expenses"], pl["net_profit"]) == (
        "1000.00",
        "300.00",
        "700.00",
    )
    sheet = ok(api.get(f"{REPORTS}/balance-sheet", {"as_of": "2026-12-31"}))
    assert (sheet["total_assets"], sheet["total_equity"], sheet["current_earnings"]) == (
        "750.00",
        "700.00",
        "50.00",
    )
    assert sheet["balanced"] is True


def test_a_closed_year_refuses_postings_and_closing_again(api):
    made = year(api)
    entry = draft(api, [("1100", "5.00", "0"), ("3100", "0", "5.00")])
    error(api.post(f"{YEARS}/{made['id']}/close"), 409, "fiscal_year_has_drafts")
    assert FiscalYear.objects.get().status == "open"
    api.delete(f"{ENTRIES}/{entry['id']}")
    ok(api.post(f"{YEARS}/{made['id']}/close"))
    assert not JournalEntry.objects.exists()  # nothing to close: no closing entry
    error(api.post(f"{YEARS}/{made['id']}/close"), 409, "fiscal_year_closed")
    late = draft(api, [("1100", "5.00", "0"), ("3100", "0", "5.00")])
    body = error(api.post(f"{ENTRIES}/{late['id']}/post"), 409, "fiscal_year_closed")
    assert "2026" in body["message"]
    assert JournalEntry.objects.get(pk=late["id"]).status == "draft"
    error(
        api.patch(f"{YEARS}/{made['id']}", {"name": "X"}, format="json"), 409, "fiscal_year_closed"
    )
    error(api.post(f"{YEARS}/999999/close"), 404, "fiscal_year_not_found")


def test_list_filter_and_query_ceiling(api, django_assert_max_num_queries):
    for y in range(2010, 2013):
        year(api, f"{y}-01-01", f"{y}-12-31")
    ok(api.post(f"{YEARS}/{FiscalYear.objects.get(name='2010').pk}/close"))
    assert [y["name"] for y in ok(api.get(YEARS, {"status": "closed"}))["fiscal_years"]] == ["2010"]
    with django_assert_max_num_queries(10) as few:
        ok(api.get(YEARS))
    baseline = len(few.captured_queries)
    for y in range(1990, 2005):
        FiscalYear.objects.create(name=str(y), start_date=f"{y}-01-01", end_date=f"{y}-12-31")
    with django_assert_max_num_queries(baseline):
        assert ok(api.get(YEARS))["total"] == 18


def test_closing_without_a_retained_earnings_account_is_refused(api):
    made = year(api)
    posted(api, [("1100", "9.00", "0"), ("4200", "0", "9.00")])
    ok(api.patch(f"/rest/ec/v1/accounts/{account_id(api, '3200')}", {"role": ""}, format="json"))
    error(api.post(f"{YEARS}/{made['id']}/close"), 409, "account_role_missing")
    assert FiscalYear.objects.get().status == "open"
    assert not JournalEntry.objects.filter(kind="closing").exists()
