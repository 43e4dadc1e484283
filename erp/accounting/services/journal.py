"""Journal entries: drafts created, changed and deleted; posted (numbered in their open
year, immutable from then on); reversed once by a reversing entry.
"""

from __future__ import annotations

from datetime import date

from django.db import transaction
from django.utils import timezone

from erp.accounting.choices import EntryKind, EntryStatus
from erp.accounting.models import Account, FiscalYear, JournalEntry
from erp.accounting.services._shared import (
    ALREADY_REVERSED,
    LINE_FIELDS,
    NO_YEAR,
    NOT_DRAFT,
    NOT_POSTED,
    ZERO,
    _check_postable,
    _conflict,
    _line,
    _must_be_open,
    _post,
    _write_lines,
)
from store.common.accounts import logged_in
from store.common.errors import invalid_params, locked_or_404
from store.common.money import money

MAX_LINES = 500


def _check_lines(lines: list[dict], problems: dict) -> None:
    if len(lines) > MAX_LINES:
        problems["lines"] = [f"At most {MAX_LINES} lines."]
        return
    ids = {line["account_id"] for line in lines}
    accounts = {a.pk: a for a in Account.objects.filter(pk__in=ids)}
    for index, line in enumerate(lines):
        param = f"lines.{index}."
        account = accounts.get(line["account_id"])
        if account is None:
            problems[f"{param}account_id"] = [f"No account with id {line['account_id']}."]
        elif not account.is_active:
            problems[f"{param}account_id"] = [f"Account {account} is inactive."]
        debit, credit = money(line.get("debit") or ZERO), money(line.get("credit") or ZERO)
        if (debit > 0) == (credit > 0):
            problems[f"{param}debit"] = ["A line is a debit or a credit above zero, not both."]
        if line.get("partner_id") is not None and not line.get("partner_type"):
            problems[f"{param}partner_type"] = [
                "Say whether the partner is a customer or a supplier."
            ]


ENTRY_FIELDS = ("date", "reference", "memo")


@transaction.atomic
def journal_entry_create(*, fields: dict, user=None) -> JournalEntry:
    """A draft (balanced or not yet) with its lines."""
    problems: dict = {}
    lines = fields.get("lines") or []
    _check_lines(lines, problems)
    if problems:
        raise invalid_params(problems)
    entry = JournalEntry.objects.create(
        **{name: fields[name] for name in ENTRY_FIELDS if name in fields},
        created_by=logged_in(user),
    )
    _write_lines(entry, lines)
    return entry


def _entry_for_update(entry_id: int) -> JournalEntry:
    return locked_or_404(JournalEntry, entry_id, "journal_entry")


def _must_be_draft(entry: JournalEntry, action: str) -> None:
    if entry.status != EntryStatus.DRAFT:
        raise _conflict(
            f"Journal entry {entry} is posted: it cannot be {action} (reverse it instead).",
            NOT_DRAFT,
        )


@transaction.atomic
def journal_entry_update(*, entry_id: int, fields: dict) -> JournalEntry:
    """Change a draft; `lines`, when given, replace all its lines."""
    entry = _entry_for_update(entry_id)
    _must_be_draft(entry, "changed")
    problems: dict = {}
    if "lines" in fields:
        _check_lines(fields["lines"] or [], problems)
    if problems:
        raise invalid_params(problems)
    for name in ENTRY_FIELDS:
        if name in fields and fields[name] is not None:
            setattr(entry, name, fields[name])
    if "lines" in fields:
        entry.lines.all().delete()
        _write_lines(entry, fields["lines"] or [])
    entry.save()
    return entry


@transaction.atomic
def journal_entry_delete(*, entry_id: int) -> None:
    entry = _entry_for_update(entry_id)
    _must_be_draft(entry, "deleted")
    entry.delete()


def _year_of(day: date) -> FiscalYear:
    """The open fiscal year `day` is in, locked; 409 `no_fiscal_year` or `fiscal_year_closed`."""
    year = (
        FiscalYear.objects.select_for_update()
        .filter(start_date__lte=day, end_date__gte=day)
        .first()
    )
    if year is None:
        raise _conflict(f"No fiscal year holds {day}: create one (POST /fiscal-years).", NO_YEAR)
    _must_be_open(year)
    return year


@transaction.atomic
def journal_entry_post(*, entry_id: int) -> JournalEntry:
    """Post a draft: at least two lines, debits equal to credits, its date in an open fiscal
    year. It gets the year's next number and never changes again."""
    entry = _entry_for_update(entry_id)
    _must_be_draft(entry, "posted again")
    _check_postable(entry)
    year = _year_of(entry.date)
    _post(entry, year)
    return entry


@transaction.atomic
def journal_entry_reverse(
    *, entry_id: int, day: date | None = None, memo: str = "", user=None
) -> JournalEntry:
    """A new posted entry with every line of a posted one on the other side, dated `day`
    (default today), in an open year. Once per entry (409 `journal_entry_already_reversed`);
    a draft is deleted, not reversed (409 `journal_entry_not_posted`)."""
    entry = _entry_for_update(entry_id)
    if entry.status != EntryStatus.POSTED:
        raise _conflict(f"Journal entry {entry} is a draft: delete it instead.", NOT_POSTED)
    if JournalEntry.objects.filter(reverses=entry).exists():
        raise _conflict(f"Journal entry {entry} is reversed already.", ALREADY_REVERSED)
    day = day or timezone.localdate()
    year = _year_of(day)
    return _reversal(entry, year, day, memo=memo, user=user)


def _reversal(entry: JournalEntry, year: FiscalYear, day: date, *, memo="", user=None):
    reversal = JournalEntry.objects.create(
        date=day,
        kind=EntryKind.REVERSAL,
        reference=entry.reference,
        memo=memo or f"Reverses {entry.full_number}.",
        reverses=entry,
        source_type=entry.source_type,
        source_id=entry.source_id,
        created_by=logged_in(user),
    )
    _write_lines(
        reversal,
        [
            _line(
                line.account_id,
                debit=line.credit,
                credit=line.debit,
                **{name: getattr(line, name) for name in LINE_FIELDS},
            )
            for line in entry.lines.order_by("position", "id")
        ],
    )
    _post(reversal, year)
    return reversal
