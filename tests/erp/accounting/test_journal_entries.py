"""Journal entries: drafts with Decimal lines, posting (balanced, two lines, an open year,
gapless numbers per year), immutability once posted, reversing once."""

from __future__ import annotations

import pytest

from erp.accounting.models import JournalEntry, JournalLine
from tests.erp.accounting.conftest import (
    ENTRIES,
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

BALANCED = [("1100", "120.50", "0"), ("4200", "0", "100.00"), ("2200", "0", "20.50")]


def test_a_draft_with_lines_read_changed_deleted(api):
    year(api)
    entry = draft(api, BALANCED, reference="INV-7", memo="Sale")
    assert (entry["status"], entry["number"], entry["kind"]) == ("draft", "", "manual")
    assert (entry["total_debit"], entry["total_credit"], entry["balanced"]) == (
        "120.50",
        "120.50",
        True,
    )
    assert [
        (line["account"]["code"], line["debit"], line["credit"]) for line in entry["lines"]
    ] == [
        ("1100", "120.50", "0.00"),
        ("4200", "0.00", "100.00"),
        ("2200", "0.00", "20.50"),
    ]
    url = f"{ENTRIES}/{entry['id']}"
    changed = ok(
        api.patch(
            url,
            {
                "memo": "Sale, corrected",
                "lines": [
                    {"account_id": account_id(api, "1100"), "debit": 10},
                    {"account_id": account_id(api, "4200"), "credit": "9.99"},
                ],
            },
            format="json",
        )
    )
    assert (changed["memo"], changed["total_debit"], changed["balanced"]) == (
        "Sale, corrected",
        "10.00",
        False,
    )
    assert api.delete(url).status_code == 204
    error(api.get(url), 404, "journal_entry_not_found")
    assert not JournalLine.objects.exists()


def test_each_line_is_a_debit_or_a_credit(api):
    year(api)
    cash = account_id(api, "1100")
    for line in (
        {"account_id": cash, "debit": "1.00", "credit": "1.00"},
        {"account_id": cash},
        {"account_id": cash, "debit": "0", "credit": "0"},
    ):
        body = error(api.post(ENTRIES, {"date": "2026-01-01", "lines": [line]}, format="json"), 400)
        assert "lines.0.debit" in body["data"]["params"]
    error(
        api.post(
            ENTRIES,
            {"date": "2026-01-01", "lines": [{"account_id": cash, "debit": "-5"}]},
            format="json",
        ),
        400,
    )
    error(
        api.post(
            ENTRIES,
            {"date": "2026-01-01", "lines": [{"account_id": cash, "debit": "1.001"}]},
            format="json",
        ),
        400,
    )
    body = error(
        api.post(
            ENTRIES,
            {"date": "2026-01-01", "lines": [{"account_id": 999999, "debit": "1"}]},
            format="json",
        ),
        400,
    )
    assert "lines.0.account_id" in body["data"]["params"]
    error(
        api.post(ENTRIES, {"date": "2026-01-01", "lines": {"x": 1}}, format="json"),
        422,
        "invalid_shape",
    )
    error(api.post(ENTRIES, {"lines": []}, format="json"), 400)
    ok(
        api.patch(
            f"/rest/ec/v1/accounts/{account_id(api, '5300')}", {"active": False}, format="json"
        )
    )
    body = error(
        api.post(
            ENTRIES,
            {
                "date": "2026-01-01",
                "lines": [{"account_id": account_id(api, "5300"), "debit": "1"}],
            },
            format="json",
        ),
        400,
    )
    assert "inactive" in body["data"]["params"]["lines.0.account_id"]
    assert not JournalEntry.objects.exists()


def test_post_refusals_change_nothing(api):
    year(api)
    one = draft(api, [("1100", "5.00", "0")])
    error(api.post(f"{ENTRIES}/{one['id']}/post"), 409, "journal_entry_too_few_lines")
    uneven = draft(api, [("1100", "5.00", "0"), ("3100", "0", "4.99")])
    body = error(api.post(f"{ENTRIES}/{uneven['id']}/post"), 409, "journal_entry_unbalanced")
    assert "0.01" in body["message"]
    outside = draft(api, [("1100", "5.00", "0"), ("3100", "0", "5.00")], day="2031-01-01")
    error(api.post(f"{ENTRIES}/{outside['id']}/post"), 409, "no_fiscal_year")
    inactive = draft(api, [("5300", "5.00", "0"), ("3100", "0", "5.00")])
    ok(
        api.patch(
            f"/rest/ec/v1/accounts/{account_id(api, '5300')}", {"active": False}, format="json"
        )
    )
    error(api.post(f"{ENTRIES}/{inactive['id']}/post"), 409, "account_inactive")
    error(api.post(f"{ENTRIES}/999999/post"), 404, "journal_entry_not_found")
    assert set(JournalEntry.objects.values_list("status", flat=True)) == {"draft"}
    assert set(JournalEntry.objects.values_list("number", flat=True)) == {None}


def test_posted_entries_are_numbered_per_year_without_gaps_and_never_change(api):
    year(api, "2025-01-01", "2025-12-31")
    year(api)
    numbers = []
    for day in ("2026-01-05", "2025-06-01", "2026-01-06", "2025-07-01"):
        numbers.append(
            posted(api, [("1100", "1.00", "0"), ("3100", "0", "1.00")], day=day)["number"]
        )
    assert numbers == ["2026/00001", "2025/00001", "2026/00002", "2025/00002"]
    # a refused posting takes no number
    bad = draft(api, [("1100", "1.00", "0"), ("3100", "0", "2.00")], day="2026-02-01")
    error(api.post(f"{ENTRIES}/{bad['id']}/post"), 409)
    assert (
        posted(api, [("1100", "1.00", "0"), ("3100", "0", "1.00")], day="2026-02-02")["number"]
        == "2026/00003"
    )
    entry = JournalEntry.objects.get(full_number="2026/00001")
    url = f"{ENTRIES}/{entry.pk}"
    error(api.patch(url, {"memo": "x"}, format="json"), 409, "journal_entry_not_draft")
    error(api.delete(url), 409, "journal_entry_not_draft")
    error(api.post(f"{url}/post"), 409, "journal_entry_not_draft")
    assert JournalEntry.objects.get(pk=entry.pk).memo == ""


def test_reverse_once_with_a_new_posted_entry(api):
    year(api)
    original = posted(api, BALANCED, reference="INV-7")
    reversal = ok(
        api.post(
            f"{ENTRIES}/{original['id']}/reverse",
            {"date": "2026-04-01", "memo": "Wrong"},
            format="json",
        ),
        201,
    )
    assert (reversal["kind"], reversal["status"], reversal["number"], reversal["date"]) == (
        "reversal",
        "posted",
        "2026/00002",
        "2026-04-01",
    )
    assert reversal["reverses"] == {"id": original["id"], "number": "2026/00001"}
    assert [
        (line["account"]["code"], line["debit"], line["credit"]) for line in reversal["lines"]
    ] == [
        ("1100", "0.00", "120.50"),
        ("4200", "100.00", "0.00"),
        ("2200", "20.50", "0.00"),
    ]
    again = ok(api.get(f"{ENTRIES}/{original['id']}"))
    assert again["reversed_by"] == {"id": reversal["id"], "number": "2026/00002"}
    assert again["lines"] == original["lines"]  # the original is untouched
    error(
        api.post(f"{ENTRIES}/{original['id']}/reverse", {}, format="json"),
        409,
        "journal_entry_already_reversed",
    )
    assert set(closing_of(trial_balance(api, as_of="2026-12-31")).values()) == {"0.00"}
    a_draft = draft(api, BALANCED)
    error(
        api.post(f"{ENTRIES}/{a_draft['id']}/reverse", {}, format="json"),
        409,
        "journal_entry_not_posted",
    )
    error(
        api.post(f"{ENTRIES}/{original['id']}/reverse", {"date": "2030-01-01"}, format="json"), 409
    )
    assert JournalEntry.objects.filter(kind="reversal").count() == 1


def test_list_filters_and_query_ceiling(api, django_assert_max_num_queries):
    year(api)
    first = posted(api, BALANCED, day="2026-01-10", reference="INV-1")
    draft(api, [("5300", "3.00", "0"), ("1110", "0", "3.00")], day="2026-02-10", memo="Coffee")
    url = ENTRIES
    assert [e["id"] for e in ok(api.get(url, {"status": "posted"}))["journal_entries"]] == [
        first["id"]
    ]
    assert ok(api.get(url, {"date_from": "2026-02-01"}))["journal_entries"][0]["memo"] == "Coffee"
    assert ok(api.get(url, {"date_to": "2026-01-31"}))["total"] == 1
    assert ok(api.get(url, {"account_id": account_id(api, "1110")}))["total"] == 1
    assert ok(api.get(url, {"reference": "INV-1"}))["total"] == 1
    assert ok(api.get(url, {"search": "coffee"}))["total"] == 1
    assert ok(api.get(url, {"kind": "manual,reversal"}))["total"] == 2
    error(api.get(url, {"status": "lost"}), 400, "invalid_param")
    with django_assert_max_num_queries(14) as few:
        ok(api.get(url))
    baseline = len(few.captured_queries)
    for n in range(15):
        posted(api, [("1100", f"{n + 1}.00", "0"), ("3100", "0", f"{n + 1}.00")], day="2026-03-01")
    with django_assert_max_num_queries(baseline):
        assert ok(api.get(url, {"per_page": 100}))["total"] == 17


def test_a_creating_post_retried_with_its_idempotency_key_creates_once(api):
    year(api)
    body = {
        "date": "2026-03-01",
        "lines": [
            {"account_id": account_id(api, "1100"), "debit": "3.00"},
            {"account_id": account_id(api, "3100"), "credit": "3.00"},
        ],
    }
    first = api.post(ENTRIES, body, format="json", HTTP_IDEMPOTENCY_KEY="je-1")
    again = api.post(ENTRIES, body, format="json", HTTP_IDEMPOTENCY_KEY="je-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert first.json()["id"] == again.json()["id"]
    assert JournalEntry.objects.count() == 1
    error(api.post(f"{ENTRIES}/999999/reverse", {}, format="json"), 404, "journal_entry_not_found")
    error(api.patch(f"{ENTRIES}/999999", {"memo": "x"}, format="json"), 404)
