"""Accounting's writes: the chart of accounts, fiscal years and their closing, journal entries
(draft, posted, reversed) and the automatic postings of business events.

Each public function is one transaction that validates first and changes nothing when it
refuses (400 naming the parameters; 409 for a rule of the books' state). Posting locks the
entry, then its fiscal year's row (select_for_update), takes the year's next number and moves
it on in the same transaction: numbers are unique per year, in posting order and without gaps
(a draft has none; a rolled-back posting gives its number back), as invoicing's series.

A posted entry is immutable: it is corrected by a reversing entry (once). A closed year takes
no posting. Business events (erp.core.signals, store.orders.signals) are posted after the
commit of their change, once per (source_type, source_id, kind) (AutoPosting); a failure is
recorded on that row and shown in the admin, which posts it again.
"""

from __future__ import annotations

import logging
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation

from django.db import IntegrityError, transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone

from common.errors import ServiceError
from erp.accounting.choices import (
    PROFIT_LOSS_TYPES,
    ROLE_TYPES,
    AccountRole,
    AccountType,
    EntryKind,
    EntryStatus,
    FiscalYearStatus,
    PartnerType,
    PostingStatus,
    SourceType,
)
from erp.accounting.models import (
    Account,
    AutoPosting,
    FiscalYear,
    JournalEntry,
    JournalLine,
)
from store.common.accounts import logged_in
from store.common.errors import invalid_params, locked_or_404, not_found, rule_broken
from store.common.money import money

logger = logging.getLogger(__name__)

MAX_LINES = 500
MAX_YEAR_DAYS = 2 * 366
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


# --- The chart of accounts ----------------------------------------------------------------------

# (code, name, type, parent code, role): a small chart after the usual numbering (1 assets,
# 2 liabilities, 3 equity, 4 income, 5 expenses), with every account the postings need.
DEFAULT_CHART = (
    ("1000", "Assets", AccountType.ASSET, None, ""),
    ("1100", "Bank", AccountType.ASSET, "1000", AccountRole.BANK),
    ("1110", "Cash", AccountType.ASSET, "1000", AccountRole.CASH),
    ("1200", "Accounts receivable", AccountType.ASSET, "1000", AccountRole.RECEIVABLE),
    ("1300", "Inventory", AccountType.ASSET, "1000", AccountRole.INVENTORY),
    ("1400", "VAT receivable", AccountType.ASSET, "1000", AccountRole.VAT_RECEIVABLE),
    ("2000", "Liabilities", AccountType.LIABILITY, None, ""),
    ("2100", "Accounts payable", AccountType.LIABILITY, "2000", AccountRole.PAYABLE),
    ("2200", "VAT payable", AccountType.LIABILITY, "2000", AccountRole.VAT_PAYABLE),
    ("3000", "Equity", AccountType.EQUITY, None, ""),
    ("3100", "Share capital", AccountType.EQUITY, "3000", ""),
    ("3200", "Retained earnings", AccountType.EQUITY, "3000", AccountRole.RETAINED_EARNINGS),
    ("4000", "Income", AccountType.INCOME, None, ""),
    ("4100", "Sales revenue", AccountType.INCOME, "4000", AccountRole.SALES),
    ("4200", "Other income", AccountType.INCOME, "4000", ""),
    ("5000", "Expenses", AccountType.EXPENSE, None, ""),
    ("5100", "Cost of goods sold", AccountType.EXPENSE, "5000", AccountRole.COGS),
    ("5200", "Purchases", AccountType.EXPENSE, "5000", AccountRole.PURCHASES),
    ("5300", "Operating expenses", AccountType.EXPENSE, "5000", ""),
)


def chart_ensure() -> bool:
    """The default chart, made on first use (an empty chart): answers whether it was made now.
    A chart with any account is left as it is (staff own it then)."""
    if Account.objects.exists():
        return False
    try:
        with transaction.atomic():
            made: dict[str, Account] = {}
            for code, name, kind, parent, role in DEFAULT_CHART:
                made[code] = Account.objects.create(
                    code=code, name=name, type=kind, parent=made.get(parent), role=role
                )
    except IntegrityError:  # made by a concurrent first use
        return False
    return True


ACCOUNT_FIELDS = ("code", "name", "type", "role", "description", "is_active")


def _would_cycle(account: Account, parent: Account) -> bool:
    seen, node = set(), parent
    while node is not None and node.pk not in seen:
        if node.pk == account.pk:
            return True
        seen.add(node.pk)
        node = node.parent
    return False


def _account_check(fields: dict, account: Account | None) -> dict:
    problems: dict[str, list[str]] = {}
    cleaned = {name: fields[name] for name in ACCOUNT_FIELDS if name in fields}
    for name in ("code", "name"):
        if name in cleaned:
            cleaned[name] = cleaned[name].strip()
        if (account is None or name in cleaned) and not cleaned.get(name):
            problems[name] = [f"An account needs a {name}."]
    if account is None and not cleaned.get("type"):
        problems["type"] = ["Choose asset, liability, equity, income or expense."]
    code = cleaned.get("code")
    if code:
        taken = Account.objects.filter(code=code)
        if account is not None:
            taken = taken.exclude(pk=account.pk)
        if taken.exists():
            problems["code"] = [f"Code {code!r} is already used."]
    kind = cleaned.get("type", account.type if account else None)
    if account is not None and "type" in cleaned and cleaned["type"] != account.type:
        if account.lines.exists():
            problems["type"] = ["The account has journal lines: its type cannot change."]
        elif account.children.exists():
            problems["type"] = ["The account has sub-accounts: its type cannot change."]
    parent_now = account.parent if account is not None and "parent_id" not in fields else None
    if parent_now is not None and kind and parent_now.type != kind:
        problems["type"] = [f"Its parent is an {parent_now.type} account."]
    if "parent_id" in fields:
        parent_id = fields["parent_id"]
        parent = Account.objects.filter(pk=parent_id).first() if parent_id else None
        if parent_id and parent is None:
            problems["parent_id"] = [f"No account with id {parent_id}."]
        elif parent is not None:
            if kind and parent.type != kind:
                problems["parent_id"] = [f"The parent is an {parent.type} account, not {kind}."]
            elif account is not None and _would_cycle(account, parent):
                problems["parent_id"] = ["An account cannot be under itself."]
        cleaned["parent"] = parent
    role = cleaned.get("role", account.role if account else "")
    if role:
        if kind and ROLE_TYPES[AccountRole(role)] != kind:
            problems["role"] = [f"The {role} account is an {ROLE_TYPES[AccountRole(role)]}."]
        holder = Account.objects.filter(role=role)
        if account is not None:
            holder = holder.exclude(pk=account.pk)
        holder = holder.first()
        if holder is not None and "role" in cleaned:
            problems["role"] = [f"{holder} has this role; take it from that account first."]
    if account is not None and account.role and cleaned.get("is_active") is False:
        problems["active"] = [
            f"It is the {account.role} account of the automatic postings; give the role to "
            "another account first."
        ]
    if problems:
        raise invalid_params(problems)
    return cleaned


def account_check(*, fields: dict, account_id: int | None = None) -> None:
    """What account_create/account_update would refuse (the admin's form check)."""
    account = Account.objects.filter(pk=account_id).first() if account_id else None
    _account_check(fields, account)


@transaction.atomic
def account_create(*, fields: dict) -> Account:
    cleaned = _account_check(fields, None)
    return Account.objects.create(**cleaned)


def _account_for_update(account_id: int) -> Account:
    return locked_or_404(Account, account_id, "account")


@transaction.atomic
def account_update(*, account_id: int, fields: dict) -> Account:
    account = _account_for_update(account_id)
    cleaned = _account_check(fields, account)
    for name, value in cleaned.items():
        setattr(account, name, value)
    account.save()
    return account


@transaction.atomic
def account_delete(*, account_id: int) -> None:
    """Delete an account no line, sub-account or role uses (409 `in_use`: deactivate it)."""
    account = _account_for_update(account_id)
    if account.lines.exists():
        raise _conflict(f"Account {account} has journal lines; deactivate it instead.", IN_USE)
    if account.children.exists():
        raise _conflict(f"Account {account} has sub-accounts; move or delete them first.", IN_USE)
    if account.role:
        raise _conflict(
            f"Account {account} is the {account.role} account of the automatic postings; "
            "give the role to another account first.",
            IN_USE,
        )
    account.delete()


def role_account(role: str) -> Account:
    """The account of `role` (the default chart made on first use); 409
    `account_role_missing` when staff took the role from every account."""
    chart_ensure()
    account = Account.objects.filter(role=role).first()
    if account is None:
        raise _conflict(
            f"No account has the role {str(role)!r}: give it to one (PATCH /accounts/{{id}}).",
            ROLE_MISSING,
        )
    return account


# --- Fiscal years -------------------------------------------------------------------------------


def _overlapping(start: date, end: date, exclude: int | None = None):
    rows = FiscalYear.objects.filter(start_date__lte=end, end_date__gte=start)
    return rows.exclude(pk=exclude) if exclude else rows


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


def _must_be_open(year: FiscalYear) -> None:
    if year.status == FiscalYearStatus.CLOSED:
        raise _conflict(f"Fiscal year {year.name} is closed.", YEAR_CLOSED)


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


def _line(account_id: int, *, debit=ZERO, credit=ZERO, **extra) -> dict:
    return {"account_id": account_id, "debit": money(debit), "credit": money(credit), **extra}


# --- Journal entries ----------------------------------------------------------------------------

LINE_FIELDS = ("description", "partner_type", "partner_id", "partner_name", "due_date")


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


def _post(entry: JournalEntry, year: FiscalYear) -> None:
    """Number `entry` in `year` (its row locked by the caller) and mark it posted."""
    entry.fiscal_year = year
    entry.number = year.next_number
    entry.full_number = f"{year.name}/{year.next_number:05d}"
    entry.status = EntryStatus.POSTED
    entry.posted_at = timezone.now()
    entry.save()
    year.next_number += 1
    year.save(update_fields=["next_number", "updated_at"])


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


# --- Automatic postings -------------------------------------------------------------------------


def _next_year_after(year: FiscalYear) -> FiscalYear:
    """The first open year after a closed one (made, as long as the closed one, when none)."""
    later = (
        FiscalYear.objects.select_for_update()
        .filter(start_date__gt=year.end_date, status=FiscalYearStatus.OPEN)
        .order_by("start_date")
        .first()
    )
    if later is not None:
        return later
    start = year.end_date + timedelta(days=1)
    end = start + (year.end_date - year.start_date)
    return _year_made(start, end)


def _year_made(start: date, end: date) -> FiscalYear:
    if _overlapping(start, end).exists():
        raise _conflict(f"No open fiscal year can be made for {start} to {end}.", NO_YEAR)
    name = (
        str(start.year)
        if (start.month, start.day, end.year) == (1, 1, start.year)
        else (f"{start.isoformat()}")
    )
    if FiscalYear.objects.filter(name=name).exists():
        name = f"{start.isoformat()}-{end.isoformat()}"
    try:
        with transaction.atomic():
            return FiscalYear.objects.create(name=name, start_date=start, end_date=end)
    except IntegrityError:  # a concurrent event made it
        made = FiscalYear.objects.select_for_update().filter(start_date=start, end_date=end).first()
        if made is None:
            raise _conflict(
                f"No open fiscal year can be made for {start} to {end}.", NO_YEAR
            ) from None
        return made


def _auto_year(day: date) -> tuple[FiscalYear, date]:
    """Where an event of `day` is posted: its year (the calendar year made when no year holds
    the day); in a closed year, on the first day of the next open one."""
    year = (
        FiscalYear.objects.select_for_update()
        .filter(start_date__lte=day, end_date__gte=day)
        .first()
    )
    if year is None:
        year = _year_made(date(day.year, 1, 1), date(day.year, 12, 31))
    while year.status == FiscalYearStatus.CLOSED:
        year = _next_year_after(year)
        day = year.start_date
    return year, day


def _auto_post(posting: AutoPosting, event: dict) -> JournalEntry | None:
    day = date.fromisoformat(event["date"])
    lines, reference, memo = BUILDERS[(posting.source_type, posting.kind)](event)
    lines = [line for line in lines if line["debit"] > 0 or line["credit"] > 0]
    if not lines:
        return None
    year, day = _auto_year(day)
    entry = JournalEntry.objects.create(
        date=day,
        kind=EntryKind.AUTOMATIC,
        reference=reference[:100],
        memo=memo[:500],
        source_type=posting.source_type,
        source_id=posting.source_id,
    )
    _write_lines(entry, lines)
    _check_postable(entry)
    _post(entry, year)
    return entry


def _posting_row(source_type: str, source_id: str, kind: str, event: dict) -> AutoPosting:
    key = {"source_type": source_type, "source_id": source_id, "kind": kind}
    row = AutoPosting.objects.select_for_update().filter(**key).first()
    if row is not None:
        return row
    try:
        with transaction.atomic():
            return AutoPosting.objects.create(
                **key, status=PostingStatus.FAILED, payload=event, error="Not posted yet."
            )
    except IntegrityError:  # a concurrent delivery made it
        return AutoPosting.objects.select_for_update().get(**key)


def event_post(*, source_type: str, source_id, kind: str, event: dict) -> AutoPosting:
    """Post one business event once: a repeated event answers its row and posts nothing. A
    refusal (a missing role account, no year can be made) leaves the row `failed` with its
    error; event_retry posts it again."""
    source_id = str(source_id)
    try:
        with transaction.atomic():
            row = _posting_row(source_type, source_id, kind, event)
            if row.status == PostingStatus.POSTED:
                return row
            entry = _auto_post(row, event)
            row.status, row.entry, row.error = PostingStatus.POSTED, entry, ""
            row.payload = event
            row.attempts += 1
            row.save()
            return row
    except (ServiceError, KeyError, ValueError, InvalidOperation, OverflowError) as exc:
        logger.warning("accounting: %s:%s:%s not posted: %s", source_type, source_id, kind, exc)
        with transaction.atomic():
            row = _posting_row(source_type, source_id, kind, event)
            if row.status != PostingStatus.POSTED:
                row.status, row.error = PostingStatus.FAILED, str(exc)[:500]
                row.payload = event
                row.attempts += 1
                row.save()
            return row


def event_retry(*, posting_id: int) -> AutoPosting:
    """Post a failed event again (the admin's action); a posted one is left as it is."""
    row = AutoPosting.objects.filter(pk=posting_id).first()
    if row is None:
        raise not_found("auto_posting", posting_id)
    return event_post(
        source_type=row.source_type, source_id=row.source_id, kind=row.kind, event=row.payload
    )


def _amount(event: dict, name: str) -> Decimal:
    return money(Decimal(str(event.get(name) or "0")))


def _invoice_lines(event: dict):
    gross, vat = _amount(event, "gross_total"), _amount(event, "vat_total")
    net = gross - vat
    partner = {
        "partner_type": PartnerType.CUSTOMER if event.get("customer_id") else "",
        "partner_id": event.get("customer_id"),
        "partner_name": (event.get("counterpart_name") or "")[:200],
        "due_date": date.fromisoformat(event["date"]),
    }
    receivable = role_account(AccountRole.RECEIVABLE).pk
    sales = role_account(AccountRole.SALES).pk
    lines = []
    if event.get("is_credit"):
        lines.append(_line(sales, debit=net, description="Sales returned"))
        if vat:
            lines.append(
                _line(role_account(AccountRole.VAT_PAYABLE).pk, debit=vat, description="VAT")
            )
        lines.append(_line(receivable, credit=gross, **partner))
    else:
        lines.append(_line(receivable, debit=gross, **partner))
        lines.append(_line(sales, credit=net, description="Sales"))
        if vat:
            lines.append(
                _line(role_account(AccountRole.VAT_PAYABLE).pk, credit=vat, description="VAT")
            )
    kind = "Credit note" if event.get("is_credit") else "Invoice"
    return lines, _reference(event), f"{kind} {event.get('number', '')}"


def _reference(event: dict) -> str:
    """Receivables are matched by order (an invoice, its credit notes and the order's
    payments share `order:<id>`), else by the invoice."""
    if event.get("order_id"):
        return f"order:{event['order_id']}"
    return f"invoice:{event.get('corrects_id') or event.get('invoice_id')}"


def _payment_lines(event: dict, *, refund: bool):
    amount = _amount(event, "amount")
    partner = {
        "partner_type": PartnerType.CUSTOMER if event.get("customer_id") else "",
        "partner_id": event.get("customer_id"),
        "partner_name": (event.get("customer_name") or "")[:200],
        "due_date": date.fromisoformat(event["date"]),
    }
    bank = role_account(AccountRole.BANK).pk
    receivable = role_account(AccountRole.RECEIVABLE).pk
    if refund:
        # The refund's credit note (erp.invoicing, for an order with an issued invoice) credits
        # the receivable back: together, Dr sales and VAT / Cr bank.
        lines = [_line(receivable, debit=amount, **partner), _line(bank, credit=amount)]
    else:
        lines = [_line(bank, debit=amount), _line(receivable, credit=amount, **partner)]
    what = "Refund" if refund else "Payment"
    return lines, f"order:{event['order_id']}", f"{what} on order {event.get('order_number', '')}"


def _payment_deleted_lines(event: dict):
    lines, reference, memo = _payment_lines(event, refund=event.get("kind") != "refund")
    return lines, reference, f"Deleted: {memo}"


def _goods_received_lines(event: dict):
    amount = _amount(event, "amount")
    day = date.fromisoformat(event["date"])
    partner = {
        "partner_type": PartnerType.SUPPLIER,
        "partner_id": event.get("supplier_id"),
        "partner_name": (event.get("supplier_name") or "")[:200],
        "due_date": day + timedelta(days=int(event.get("payment_terms_days") or 0)),
    }
    lines = [
        _line(role_account(AccountRole.INVENTORY).pk, debit=amount, description="Goods received"),
        _line(role_account(AccountRole.PAYABLE).pk, credit=amount, **partner),
    ]
    return (
        lines,
        f"grn:{event['note_id']}",
        f"Goods received {event.get('number', '')} ({event.get('purchase_order_number', '')})",
    )


BUILDERS = {
    (SourceType.INVOICE, "issued"): _invoice_lines,
    (SourceType.PAYMENT, "payment"): lambda e: _payment_lines(e, refund=False),
    (SourceType.PAYMENT, "refund"): lambda e: _payment_lines(e, refund=True),
    (SourceType.PAYMENT, "deleted"): _payment_deleted_lines,
    (SourceType.GOODS_RECEIVED, "received"): _goods_received_lines,
}


def invoice_issued(event: dict) -> AutoPosting:
    return event_post(
        source_type=SourceType.INVOICE, source_id=event["invoice_id"], kind="issued", event=event
    )


def payment_recorded(event: dict) -> AutoPosting:
    """A payment or refund posts once; a deleted one that was posted is posted back once."""
    if event.get("deleted"):
        posted = AutoPosting.objects.filter(
            source_type=SourceType.PAYMENT,
            source_id=str(event["payment_id"]),
            status=PostingStatus.POSTED,
        ).exclude(kind="deleted")
        if not posted.exists():
            return None
        kind = "deleted"
    else:
        kind = "refund" if event.get("kind") == "refund" else "payment"
    return event_post(
        source_type=SourceType.PAYMENT, source_id=event["payment_id"], kind=kind, event=event
    )


def goods_received(event: dict) -> AutoPosting:
    return event_post(
        source_type=SourceType.GOODS_RECEIVED,
        source_id=event["note_id"],
        kind="received",
        event=event,
    )
