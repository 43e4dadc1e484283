"""Fiscal years: created, changed while open, deleted while empty, and closed (a closing
entry moves the year's income and expenses to retained earnings).
"""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from erp.accounting.choices import (
    PROFIT_LOSS_TYPES,
    AccountRole,
    EntryKind,
    EntryStatus,
    FiscalYearStatus,
)
from erp.accounting.models import FiscalYear, JournalEntry, JournalLine
from erp.accounting.services._shared import (
    IN_USE,
    YEAR_HAS_DRAFTS,
    YEAR_OVERLAP,
    ZERO,
    _conflict,
    _line,
    _must_be_open,
    _overlapping,
    _post,
    _write_lines,
)
from erp.accounting.services.chart import role_account
from store.common.accounts import logged_in
from store.common.errors import invalid_params, locked_or_404
from store.common.money import money

MAX_YEAR_DAYS = 2 * 366


def _year_check(fields: dict, year: FiscalYear | None) -> dict:
    cleaned = {name: fields[name] for name in ("name", "start_date", "end_date") if name in fields}
    start = cleaned.get("start_date", year.start_date if year else None)
    end = cleaned.get("end_date", year.end_date if year else None)
    problems: dict[str, list[str]] = {}
    if "name" in cleaned:
        cleaned["name"] = cleaned["name"].strip()
    if year is None and not cleaned.get("name") and start is not None:
        cleaned["name"] = str(start.year) if start.year == end.year else f"{start.year}-{end.year}"
    if not cleaned.get("name", year.name if year else ""):
        problems["name"] = ["A fiscal year needs a name."]
    elif cleaned.get("name"):
        taken = FiscalYear.objects.filter(name=cleaned["name"])
        if year is not None:
            taken = taken.exclude(pk=year.pk)
        if taken.exists():
            problems["name"] = [f"A fiscal year is named {cleaned['name']!r} already."]
    if start is None:
        problems["start_date"] = ["Give the first day."]
    if end is None:
        problems["end_date"] = ["Give the last day."]
    if start and end:
        if end < start:
            problems["end_date"] = ["The last day is before the first."]
        elif (end - start).days >= MAX_YEAR_DAYS:
            problems["end_date"] = ["A fiscal year is at most two years long."]
    if problems:
        raise invalid_params(problems)
    other = _overlapping(start, end, exclude=year.pk if year else None).first()
    if other is not None:
        raise _conflict(
            f"{start} to {end} overlaps fiscal year {other.name} "
            f"({other.start_date} to {other.end_date}).",
            YEAR_OVERLAP,
        )
    return cleaned


def fiscal_year_check(*, fields: dict, year_id: int | None = None) -> None:
    year = FiscalYear.objects.filter(pk=year_id).first() if year_id else None
    _year_check(fields, year)


@transaction.atomic
def fiscal_year_create(*, fields: dict) -> FiscalYear:
    cleaned = _year_check(fields, None)
    return FiscalYear.objects.create(**cleaned)


def _year_for_update(year_id: int) -> FiscalYear:
    return locked_or_404(FiscalYear, year_id, "fiscal_year")


@transaction.atomic
def fiscal_year_update(*, year_id: int, fields: dict) -> FiscalYear:
    """Rename an open year, or move its dates while no posted entry is in it."""
    year = _year_for_update(year_id)
    _must_be_open(year)
    moves = any(
        name in fields and fields[name] != getattr(year, name)
        for name in ("start_date", "end_date")
    )
    if moves and year.entries.exists():
        raise _conflict(
            f"Fiscal year {year.name} has posted entries: its dates cannot change.", IN_USE
        )
    cleaned = _year_check(fields, year)
    for name, value in cleaned.items():
        setattr(year, name, value)
    year.save()
    return year


@transaction.atomic
def fiscal_year_delete(*, year_id: int) -> None:
    year = _year_for_update(year_id)
    if year.entries.exists():
        raise _conflict(f"Fiscal year {year.name} has posted entries.", IN_USE)
    year.delete()


def _balances(lines) -> dict[int, Decimal]:
    """{account id: debits - credits} of `lines` (one aggregate query)."""
    rows = lines.values("account_id").annotate(debit=Sum("debit"), credit=Sum("credit"))
    return {row["account_id"]: money(row["debit"] - row["credit"]) for row in rows}


@transaction.atomic
def fiscal_year_close(*, year_id: int, user=None) -> FiscalYear:
    """Close an open year: a closing entry dated its last day moves every income and expense
    balance of the year to the retained-earnings account (none when all are zero); the year
    then takes no posting. 409: closed already, drafts dated in it (post or delete them)."""
    year = _year_for_update(year_id)
    _must_be_open(year)
    drafts = JournalEntry.objects.filter(
        status=EntryStatus.DRAFT, date__gte=year.start_date, date__lte=year.end_date
    ).count()
    if drafts:
        raise _conflict(
            f"{drafts} draft journal entr{'y is' if drafts == 1 else 'ies are'} dated in "
            f"{year.name}: post or delete them first.",
            YEAR_HAS_DRAFTS,
        )
    balances = _balances(
        JournalLine.objects.filter(
            entry__fiscal_year=year,
            entry__status=EntryStatus.POSTED,
            account__type__in=PROFIT_LOSS_TYPES,
        )
    )
    lines = []
    total = ZERO
    for account_id, balance in sorted(balances.items()):
        if balance:
            lines.append(
                _line(account_id, credit=balance)
                if balance > 0
                else _line(account_id, debit=-balance)
            )
            total += balance
    if lines:
        earnings = role_account(AccountRole.RETAINED_EARNINGS)
        if total:
            lines.append(
                _line(earnings.pk, debit=total) if total > 0 else _line(earnings.pk, credit=-total)
            )
        entry = JournalEntry.objects.create(
            date=year.end_date,
            kind=EntryKind.CLOSING,
            reference=f"close:{year.name}",
            memo=f"Closing of fiscal year {year.name}: income and expenses to retained earnings.",
            created_by=logged_in(user),
        )
        _write_lines(entry, lines)
        _post(entry, year)
    year.status = FiscalYearStatus.CLOSED
    year.closed_at = timezone.now()
    year.save(update_fields=["status", "closed_at", "updated_at"])
    return year
