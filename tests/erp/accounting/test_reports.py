"""The reports: trial balance, profit and loss, balance sheet, VAT return, aged receivables
and payables, each for a period, in a bounded number of queries."""

from __future__ import annotations

import pytest

from tests.erp.accounting.conftest import REPORTS, account_id, ok, posted, year
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db


def books(api):
    year(api)
    posted(api, [("1100", "1000.00", "0"), ("3100", "0", "1000.00")], day="2026-01-02")
    posted(
        api,
        [("1200", "124.00", "0"), ("4100", "0", "100.00"), ("2200", "0", "24.00")],
        day="2026-02-01",
    )
    posted(
        api,
        [("5200", "50.00", "0"), ("1400", "12.00", "0"), ("2100", "0", "62.00")],
        day="2026-02-15",
    )
    posted(api, [("5300", "30.00", "0"), ("1100", "0", "30.00")], day="2026-03-10")


def test_trial_balance_for_a_period(api):
    books(api)
    report = ok(
        api.get(f"{REPORTS}/trial-balance", {"date_from": "2026-02-01", "date_to": "2026-02-28"})
    )
    rows = {row["code"]: row for row in report["accounts"]}
    assert list(rows) == ["1100", "1200", "1400", "2100", "2200", "3100", "4100", "5200"]
    assert (
        rows["1100"]["opening_debit"],
        rows["1100"]["debit"],
        rows["1100"]["closing_debit"],
    ) == (
        "1000.00",
        "0.00",
        "1000.00",
    )
    assert (rows["4100"]["credit"], rows["4100"]["closing_credit"]) == ("100.00", "100.00")
    assert report["totals"] == {
        "opening_debit": "1000.00",
        "opening_credit": "1000.00",
        "debit": "186.00",
        "credit": "186.00",
        "closing_debit": "1186.00",
        "closing_credit": "1186.00",
    }
    assert report["balanced"] is True
    everything = ok(api.get(f"{REPORTS}/trial-balance", {"as_of": "2026-12-31"}))
    assert everything["date_from"] is None
    assert everything["totals"]["debit"] == "1216.00"
    error(
        api.get(f"{REPORTS}/trial-balance", {"date_from": "2026-03-01", "date_to": "2026-02-01"}),
        400,
    )


def test_profit_loss_balance_sheet_and_vat(api):
    books(api)
    pl = ok(api.get(f"{REPORTS}/profit-loss", {"as_of": "2026-12-31"}))
    assert pl["date_from"] == "2026-01-01"
    assert [(r["code"], r["amount"]) for r in pl["income"]] == [("4100", "100.00")]
    assert [(r["code"], r["amount"]) for r in pl["expenses"]] == [
        ("5200", "50.00"),
        ("5300", "30.00"),
    ]
    assert pl["net_profit"] == "20.00"
    february = ok(
        api.get(f"{REPORTS}/profit-loss", {"date_from": "2026-02-10", "date_to": "2026-02-28"})
    )
    assert (february["total_income"], february["total_expenses"]) == ("0.00", "50.00")
    sheet = ok(api.get(f"{REPORTS}/balance-sheet", {"as_of": "2026-12-31"}))
    assert [(r["code"], r["amount"]) for r in sheet["assets"]] == [
        ("1100", "970.00"),
        ("1200", "124.00"),
        ("1400", "12.00"),
    ]
    assert (sheet["total_assets"], sheet["total_liabilities"], sheet["total_equity"]) == (
        "1106.00",
        "86.00",
        "1000.00",
    )
    assert (
        sheet["current_earnings"],
        sheet["total_liabilities_and_equity"],
        sheet["balanced"],
    ) == (
        "20.00",
        "1106.00",
        True,
    )
    early = ok(api.get(f"{REPORTS}/balance-sheet", {"as_of": "2026-01-31"}))
    assert early["total_assets"] == "1000.00"
    vat = ok(api.get(f"{REPORTS}/vat-return", {"date_from": "2026-02-01", "date_to": "2026-02-28"}))
    assert vat == {
        "date_from": "2026-02-01",
        "date_to": "2026-02-28",
        "output_vat": "24.00",
        "input_vat": "12.00",
        "net_vat_due": "12.00",
        "net_sales": "100.00",
        "net_purchases": "50.00",
    }
    march = ok(
        api.get(f"{REPORTS}/vat-return", {"date_from": "2026-03-01", "date_to": "2026-03-31"})
    )
    assert march["net_vat_due"] == "0.00"


def test_aged_receivables_and_payables(api):
    year(api)
    receivable, payable = account_id(api, "1200"), account_id(api, "2100")
    for day, amount, partner, ref in (
        ("2026-01-01", "100.00", 7, "order:1"),  # 89 days past due at 2026-03-31
        ("2026-03-20", "40.00", 7, "order:2"),
        ("2026-01-15", "60.00", 8, "order:3"),
    ):
        entry = {
            "date": day,
            "reference": ref,
            "lines": [
                {
                    "account_id": receivable,
                    "debit": amount,
                    "partner_type": "customer",
                    "partner_id": partner,
                    "partner_name": f"C{partner}",
                },
                {"account_id": account_id(api, "4100"), "credit": amount},
            ],
        }
        made = ok(api.post("/rest/ec/v1/journal-entries", entry, format="json"), 201)
        ok(api.post(f"/rest/ec/v1/journal-entries/{made['id']}/post"))
    # order:3 paid in full: it is no open item any more
    paid = {
        "date": "2026-02-01",
        "reference": "order:3",
        "lines": [
            {"account_id": account_id(api, "1100"), "debit": "60.00"},
            {
                "account_id": receivable,
                "credit": "60.00",
                "partner_type": "customer",
                "partner_id": 8,
            },
        ],
    }
    made = ok(api.post("/rest/ec/v1/journal-entries", paid, format="json"), 201)
    ok(api.post(f"/rest/ec/v1/journal-entries/{made['id']}/post"))
    bill = {
        "date": "2026-03-01",
        "reference": "grn:1",
        "lines": [
            {"account_id": account_id(api, "1300"), "debit": "500.00"},
            {
                "account_id": payable,
                "credit": "500.00",
                "partner_type": "supplier",
                "partner_id": 3,
                "partner_name": "Acme",
                "due_date": "2026-04-30",
            },
        ],
    }
    made = ok(api.post("/rest/ec/v1/journal-entries", bill, format="json"), 201)
    ok(api.post(f"/rest/ec/v1/journal-entries/{made['id']}/post"))
    ar = ok(api.get(f"{REPORTS}/accounts-receivable", {"as_of": "2026-03-31"}))
    assert [(p["partner_id"], p["total"], p["61_90"], p["0_30"]) for p in ar["partners"]] == [
        (7, "140.00", "100.00", "40.00")
    ]
    assert [
        (i["reference"], i["days_overdue"], i["bucket"]) for i in ar["partners"][0]["items"]
    ] == [
        ("order:1", 89, "61_90"),
        ("order:2", 11, "0_30"),
    ]
    assert ar["totals"]["total"] == "140.00"
    later = ok(api.get(f"{REPORTS}/accounts-receivable", {"as_of": "2026-06-30"}))
    assert (later["totals"]["over_90"], later["totals"]["61_90"]) == ("140.00", "0.00")
    ap = ok(api.get(f"{REPORTS}/accounts-payable", {"as_of": "2026-03-31"}))
    assert ap["partners"][0]["partner_name"] == "Acme"
    assert (ap["totals"]["not_due"], ap["totals"]["total"]) == ("500.00", "500.00")
    ap = ok(api.get(f"{REPORTS}/accounts-payable", {"as_of": "2026-06-15"}))
    assert ap["totals"]["31_60"] == "500.00"
