"""Helpers of the rollup tests: many posted lines written at once (bulk_create, then the
rollups recounted, as a restore or an import would leave them), the rollup rows as comparable
sets, and the reports computed from the posted lines in Python (what the selectors answered
when they read the lines)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from django.db import transaction

from erp.accounting import selectors, services
from erp.accounting.choices import DEBIT_TYPES, PROFIT_LOSS_TYPES, AccountRole, EntryKind
from erp.accounting.models import (
    Account,
    AccountBalance,
    FiscalYear,
    JournalEntry,
    JournalLine,
)
from erp.accounting.services import balances
from store.common.money import money

ZERO = Decimal("0.00")
#: (debit code, credit code) pairs the bulk entries cycle through: every type of account.
PAIRS = (
    ("1100", "4100"),
    ("1200", "4100"),
    ("5300", "1100"),
    ("1300", "2100"),
    ("1400", "2100"),
    ("1100", "2200"),
    ("5100", "1300"),
    ("1100", "3100"),
)


def bulk_posted(lines: int, first: date, days: int) -> None:
    """`lines` posted lines (two per entry) spread evenly over `days` days from `first`,
    bulk-created with their fiscal years, then the rollups recounted from them."""
    services.chart_ensure()
    ids = dict(Account.objects.values_list("code", "id"))
    last = first + timedelta(days=days - 1)
    years = {}
    for y in range(first.year, last.year + 1):
        years[y] = FiscalYear.objects.filter(name=str(y)).first() or FiscalYear.objects.create(
            name=str(y), start_date=date(y, 1, 1), end_date=date(y, 12, 31)
        )
    base = max(year.next_number for year in years.values()) - 1
    entries = []
    for n in range(lines // 2):
        day = first + timedelta(days=n * days // max(lines // 2, 1))
        entries.append(
            JournalEntry(
                date=day,
                status="posted",
                fiscal_year=years[day.year],
                number=base + n + 1,
                full_number=f"B/{base + n + 1}",
                reference=f"bulk:{n}",
            )
        )
    with transaction.atomic():
        JournalEntry.objects.bulk_create(entries, batch_size=2000)
        rows = []
        for n, entry in enumerate(entries):
            debit, credit = PAIRS[n % len(PAIRS)]
            amount = money(Decimal(100 + n % 977) / 100)
            rows.append(JournalLine(entry=entry, account_id=ids[debit], debit=amount, position=0))
            rows.append(JournalLine(entry=entry, account_id=ids[credit], credit=amount, position=1))
        JournalLine.objects.bulk_create(rows, batch_size=2000)
        for year in years.values():  # later postings are numbered after the bulk ones
            FiscalYear.objects.filter(pk=year.pk).update(next_number=base + len(entries) + 1)
        balances.rebuild()


# --- The rollups as sets ------------------------------------------------------------------------


def rollup_rows() -> set[tuple]:
    return {
        (*row[:5], money(row[5]), money(row[6]))
        for row in AccountBalance.objects.values_list(
            "block", "account_id", "closing", "level", "start", "debit", "credit"
        )
    }


def recounted() -> set[tuple]:
    """The rows `rebuild` makes from the lines now (rolled back: the table is left as it is)."""
    with transaction.atomic():
        balances.rebuild()
        rows = rollup_rows()
        transaction.set_rollback(True)
    return rows


# --- The reports from the lines -----------------------------------------------------------------


def _lines() -> list[tuple]:
    return list(
        JournalLine.objects.filter(entry__status="posted").values_list(
            "account__code",
            "account__type",
            "account__role",
            "entry__date",
            "entry__kind",
            "debit",
            "credit",
        )
    )


def _signed(kind: str, amount: Decimal) -> Decimal:
    return amount if kind in DEBIT_TYPES else -amount


def from_lines(first: date | None, last: date) -> dict:
    """What each report holds for first..last, summed from the posted lines one by one."""
    lines = _lines()
    trial: dict[str, list] = {}
    profit: dict[str, Decimal] = {}
    sheet: dict[str, Decimal] = {}
    earnings = ZERO
    vat = dict.fromkeys(("output", "input", "sales", "purchases"), ZERO)
    for code, kind, role, day, entry_kind, debit, credit in lines:
        if day > last:
            continue
        net = money(debit) - money(credit)
        row = trial.setdefault(code, [ZERO, ZERO, ZERO])
        inside = first is None or day >= first
        if inside:
            row[1] += money(debit)
            row[2] += money(credit)
        else:
            row[0] += net
        if kind in PROFIT_LOSS_TYPES:
            earnings -= net
        else:
            sheet[code] = sheet.get(code, ZERO) + _signed(kind, net)
        if not inside or entry_kind == EntryKind.CLOSING:
            continue
        if kind in PROFIT_LOSS_TYPES:
            profit[code] = profit.get(code, ZERO) + _signed(kind, net)
        if role == AccountRole.VAT_PAYABLE:
            vat["output"] -= net
        elif role == AccountRole.VAT_RECEIVABLE:
            vat["input"] += net
        elif role == AccountRole.SALES:
            vat["sales"] -= net
        elif role in (AccountRole.PURCHASES, AccountRole.INVENTORY):
            vat["purchases"] += net
    return {
        "trial": sorted((code, *sums) for code, sums in trial.items()),
        "profit": sorted(profit.items()),
        "sheet": sorted(sheet.items()),
        "earnings": earnings,
        "vat": vat,
    }


def from_rollups(first: date | None, last: date) -> dict:
    """The same figures, as the selectors answer them."""
    period = selectors.Period(date_from=first, date_to=last)
    trial = selectors.trial_balance(period)
    profit = selectors.profit_loss(period)
    sheet = selectors.balance_sheet(last)
    vat = selectors.vat_return(period)
    return {
        "trial": [
            (
                row["code"],
                row["opening_debit"] - row["opening_credit"],
                row["debit"],
                row["credit"],
            )
            for row in trial["accounts"]
        ],
        "profit": sorted(
            (row["code"], row["amount"]) for row in profit["income"] + profit["expenses"]
        ),
        "sheet": sorted(
            (row["code"], row["amount"])
            for section in ("assets", "liabilities", "equity")
            for row in sheet[section]
        ),
        "earnings": sheet["current_earnings"],
        "vat": {
            "output": vat["output_vat"],
            "input": vat["input_vat"],
            "sales": vat["net_sales"],
            "purchases": vat["net_purchases"],
        },
    }
