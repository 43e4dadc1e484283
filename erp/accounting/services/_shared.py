"""What the modules of this package share (private to it): the codes of the refusals, a
journal line, an entry's lines written, checked for posting and posted (numbered in its year,
added to the reports' rollups).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db.models import Count, Q, Sum
from django.utils import timezone

from common.errors import ServiceError
from erp.accounting.choices import EntryStatus, FiscalYearStatus
from erp.accounting.models import FiscalYear, JournalEntry, JournalLine
from erp.accounting.services import balances
from store.common.errors import rule_broken
from store.common.money import money

ZERO = Decimal("0.00")

# Codes of the refusals (409 unless said otherwise).
IN_USE = "in_use"
NOT_DRAFT = "journal_entry_not_draft"
NOT_POSTED = "journal_entry_not_posted"
UNBALANCED = "journal_entry_unbalanced"
TOO_FEW_LINES = "journal_entry_too_few_lines"
ALREADY_REVERSED = "journal_entry_already_reversed"
NO_YEAR = "no_fiscal_year"
YEAR_CLOSED = "fiscal_year_closed"
YEAR_OVERLAP = "fiscal_year_overlap"
YEAR_HAS_DRAFTS = "fiscal_year_has_drafts"
ACCOUNT_INACTIVE = "account_inactive"
ROLE_MISSING = "account_role_missing"


def _conflict(message: str, code: str) -> ServiceError:
    return rule_broken(message, code=code, status=409)


def _overlapping(start: date, end: date, exclude: int | None = None):
    rows = FiscalYear.objects.filter(start_date__lte=end, end_date__gte=start)
    return rows.exclude(pk=exclude) if exclude else rows


def _must_be_open(year: FiscalYear) -> None:
    if year.status == FiscalYearStatus.CLOSED:
        raise _conflict(f"Fiscal year {year.name} is closed.", YEAR_CLOSED)


def _line(account_id: int, *, debit=ZERO, credit=ZERO, **extra) -> dict:
    return {"account_id": account_id, "debit": money(debit), "credit": money(credit), **extra}


LINE_FIELDS = ("description", "partner_type", "partner_id", "partner_name", "due_date")


def _write_lines(entry: JournalEntry, lines: list[dict]) -> None:
    JournalLine.objects.bulk_create(
        JournalLine(
            entry=entry,
            account_id=line["account_id"],
            debit=money(line.get("debit") or ZERO),
            credit=money(line.get("credit") or ZERO),
            position=index,
            **{name: line[name] for name in LINE_FIELDS if line.get(name) is not None},
        )
        for index, line in enumerate(lines)
    )


def _post(entry: JournalEntry, year: FiscalYear) -> None:
    """Number `entry` in `year` (its row locked by the caller), mark it posted and add its
    lines to the reports' rollups (last: the rollup rows are the last locks it takes)."""
    entry.fiscal_year = year
    entry.number = year.next_number
    entry.full_number = f"{year.name}/{year.next_number:05d}"
    entry.status = EntryStatus.POSTED
    entry.posted_at = timezone.now()
    entry.save()
    year.next_number += 1
    year.save(update_fields=["next_number", "updated_at"])
    balances.entry_posted(entry)


def _check_postable(entry: JournalEntry) -> None:
    sums = entry.lines.aggregate(
        debit=Sum("debit"),
        credit=Sum("credit"),
        count=Count("id"),
        inactive=Count("id", filter=Q(account__is_active=False)),
    )
    count = sums["count"] or 0
    if count < 2:
        raise _conflict(
            f"Journal entry {entry} has {count} line(s): an entry needs at least two.",
            TOO_FEW_LINES,
        )
    sums["debit"], sums["credit"] = money(sums["debit"] or 0), money(sums["credit"] or 0)
    if sums["debit"] != sums["credit"]:
        raise _conflict(
            f"Debits ({sums['debit']}) and credits ({sums['credit']}) differ by "
            f"{abs(sums['debit'] - sums['credit'])}.",
            UNBALANCED,
        )
    if sums["inactive"]:
        raise _conflict("A line's account was deactivated: change the draft.", ACCOUNT_INACTIVE)
