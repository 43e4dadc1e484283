"""Accounting's reads: accounts (a page, the tree with balances), fiscal years, journal
entries, and the reports, each in a fixed number of queries whatever the number of rows.

The balances, the trial balance, the profit and loss, the balance sheet and the VAT return
sum the rollups (AccountBalance: the posted lines' sums per account and block of days), not
the lines: a period's rows are at most a few dozen per account however many lines were
posted in it and however long it is. The aged receivables and payables group lines by
partner and reference, which the rollups do not keep: they read the lines."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import DecimalField, F, Max, Min, Q, QuerySet, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from erp.accounting.choices import (
    BALANCE_SHEET_TYPES,
    DEBIT_TYPES,
    PROFIT_LOSS_TYPES,
    AccountRole,
    AccountType,
    EntryStatus,
)
from erp.accounting.models import (
    MAX_LEVEL,
    Account,
    AccountBalance,
    FiscalYear,
    JournalEntry,
    JournalLine,
    cover,
)
from store.common.errors import invalid_params, not_found
from store.common.money import money
from store.common.pagination import paginate

ZERO = Decimal("0.00")
MONEY = DecimalField(max_digits=14, decimal_places=2)


def _zero():
    return Value(ZERO, output_field=MONEY)


# --- Accounts -----------------------------------------------------------------------------------


def account_page(query: dict):
    rows = Account.objects.select_related("parent")
    if query.get("type"):
        rows = rows.filter(type__in=query["type"])
    if query.get("active") is not None:
        rows = rows.filter(is_active=query["active"])
    if query.get("role"):
        rows = rows.filter(role=query["role"])
    if "parent_id" in query:
        rows = rows.filter(parent_id=query["parent_id"])
    for word in (query.get("search") or "").split()[:10]:
        rows = rows.filter(Q(code__icontains=word) | Q(name__icontains=word))
    return paginate(rows.order_by("code", "id"), page=query["page"], per_page=query["per_page"])


def account_get(account_id: int) -> Account:
    account = Account.objects.select_related("parent").filter(pk=account_id).first()
    if account is None:
        raise not_found("account", account_id)
    return account


def signed(account_type: str, debit_minus_credit: Decimal) -> Decimal:
    """A balance in the account's own sense (debit-normal or credit-normal)."""
    return debit_minus_credit if account_type in DEBIT_TYPES else -debit_minus_credit


def within(first: date | None, last: date | None) -> Q | None:
    """The AccountBalance rows that count the posted lines dated first..last, both included
    (None: from the first day, to the last day there is); None for no day at all."""
    blocks = cover(first, last)
    if blocks.empty:
        return None
    parts = []
    if blocks.keys:
        parts.append(Q(block__in=blocks.keys))
    if blocks.top_from < blocks.top_until:
        parts.append(Q(level=MAX_LEVEL, start__gte=blocks.top_from, start__lt=blocks.top_until))
    condition = parts[0]
    for part in parts[1:]:
        condition |= part
    return condition


def _before(day: date) -> Q | None:
    """The rows of the days before `day` (None on the first day there is)."""
    return within(None, day - timedelta(days=1)) if day > date.min else None


def _balances(first: date | None, last: date | None) -> QuerySet[AccountBalance]:
    condition = within(first, last)
    return AccountBalance.objects.filter(condition if condition is not None else Q(pk__in=[]))


def account_balances(as_of: date | None = None) -> dict[int, Decimal]:
    """{account id: debits - credits} of posted lines up to `as_of` (one query)."""
    rows = _balances(None, as_of).values("account_id").annotate(d=Sum("debit"), c=Sum("credit"))
    return {row["account_id"]: money(row["d"] - row["c"]) for row in rows}


def account_tree(as_of: date | None = None) -> list[dict]:
    """Every account under its parent, with its own balance and its total with its
    sub-accounts (two queries)."""
    accounts = list(Account.objects.order_by("code", "id"))
    balances = account_balances(as_of)
    nodes = {
        a.pk: {"account": a, "own": signed(a.type, balances.get(a.pk, ZERO)), "children": []}
        for a in accounts
    }
    roots = []
    for account in accounts:
        node = nodes[account.pk]
        parent = nodes.get(account.parent_id)
        (parent["children"] if parent else roots).append(node)

    def total(node) -> Decimal:
        node["total"] = node["own"] + sum((total(child) for child in node["children"]), ZERO)
        return node["total"]

    for root in roots:
        total(root)
    return roots


# --- Fiscal years -------------------------------------------------------------------------------


def fiscal_year_page(query: dict):
    rows = FiscalYear.objects.all()
    if query.get("status"):
        rows = rows.filter(status=query["status"])
    return paginate(
        rows.order_by("-start_date", "-id"), page=query["page"], per_page=query["per_page"]
    )


def fiscal_year_get(year_id: int) -> FiscalYear:
    year = FiscalYear.objects.filter(pk=year_id).first()
    if year is None:
        raise not_found("fiscal_year", year_id)
    return year


def year_containing(day: date) -> FiscalYear | None:
    return FiscalYear.objects.filter(start_date__lte=day, end_date__gte=day).first()


# --- Journal entries ----------------------------------------------------------------------------


def _entries():
    return JournalEntry.objects.select_related(
        "fiscal_year", "reversed_by", "reverses"
    ).prefetch_related("lines__account")


def entry_page(query: dict):
    rows = _entries()
    if query.get("status"):
        rows = rows.filter(status__in=query["status"])
    if query.get("kind"):
        rows = rows.filter(kind__in=query["kind"])
    if query.get("date_from"):
        rows = rows.filter(date__gte=query["date_from"])
    if query.get("date_to"):
        rows = rows.filter(date__lte=query["date_to"])
    if query.get("fiscal_year_id"):
        rows = rows.filter(fiscal_year_id=query["fiscal_year_id"])
    if query.get("account_id"):
        rows = rows.filter(lines__account_id=query["account_id"]).distinct()
    if query.get("source_type"):
        rows = rows.filter(source_type=query["source_type"])
    if query.get("reference"):
        rows = rows.filter(reference=query["reference"])
    if query.get("search"):
        text = query["search"]
        rows = rows.filter(
            Q(full_number__icontains=text) | Q(reference__icontains=text) | Q(memo__icontains=text)
        )
    return paginate(rows.order_by("-date", "-id"), page=query["page"], per_page=query["per_page"])


def entry_get(entry_id: int) -> JournalEntry:
    entry = _entries().filter(pk=entry_id).first()
    if entry is None:
        raise not_found("journal_entry", entry_id)
    return entry


# --- Reports ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    date_from: date | None
    date_to: date


def period_of(query: dict, *, from_year_start: bool) -> Period:
    """The report's period: `date_to` (or `as_of`, default today) and `date_from` (default:
    the first day of the fiscal year holding `date_to`, else of its calendar year, when
    `from_year_start`; else the beginning)."""
    date_to = query.get("date_to") or query.get("as_of") or timezone.localdate()
    date_from = query.get("date_from")
    if date_from is None and from_year_start:
        year = year_containing(date_to)
        date_from = year.start_date if year else date(date_to.year, 1, 1)
    if date_from is not None and date_from > date_to:
        raise invalid_params({"date_from": ["The period starts after it ends."]})
    return Period(date_from=date_from, date_to=date_to)


def _posted(date_to: date):
    return JournalLine.objects.filter(entry__status=EntryStatus.POSTED, entry__date__lte=date_to)


def _sum(expression, condition: Q | None = None):
    if condition is None:
        return Coalesce(Sum(expression), _zero())
    return Coalesce(Sum(expression, filter=condition), _zero())


def _by_account(rows: QuerySet[AccountBalance], **sums: Any) -> list[dict[str, Any]]:
    """`sums` of `rows` per account, with the account's code, name and type, by code."""
    grouped: Any = (
        rows.values("account_id", "account__code", "account__name", "account__type")
        .annotate(**sums)
        .order_by("account__code")
    )
    return list(grouped)


def _account_row(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["account_id"],
        "code": row["account__code"],
        "name": row["account__name"],
        "type": row["account__type"],
    }


def trial_balance(period: Period) -> dict:
    """Per account: the balance before the period (opening), the period's debits and
    credits, and the balance at its end (closing), as debit or credit columns (one query)."""
    before = _before(period.date_from) if period.date_from else None
    inside = within(period.date_from, period.date_to)
    if before is not None and inside is not None:
        # the blocks of the days before and those of the period, each summed apart (not the
        # blocks of every day up to date_to: one of those may hold days of both)
        rows = AccountBalance.objects.filter(before | inside)
        sums = {
            "opening": _sum(F("debit") - F("credit"), before),
            "debit": _sum("debit", inside),
            "credit": _sum("credit", inside),
        }
    else:
        rows = _balances(None, period.date_to)
        sums = {"opening": _zero(), "debit": _sum("debit"), "credit": _sum("credit")}
    grouped = _by_account(rows, **sums)
    accounts = []
    totals = dict.fromkeys(
        ("opening_debit", "opening_credit", "debit", "credit", "closing_debit", "closing_credit"),
        ZERO,
    )
    for row in grouped:
        for name in ("opening", "debit", "credit"):
            row[name] = money(row[name])  # SQLite sums in floating point: back to cents
        closing = row["opening"] + row["debit"] - row["credit"]
        item = {
            **_account_row(row),
            "opening_debit": max(row["opening"], ZERO),
            "opening_credit": max(-row["opening"], ZERO),
            "debit": row["debit"],
            "credit": row["credit"],
            "closing_debit": max(closing, ZERO),
            "closing_credit": max(-closing, ZERO),
        }
        for name in totals:
            totals[name] += item[name]
        accounts.append(item)
    return {
        "date_from": period.date_from,
        "date_to": period.date_to,
        "accounts": accounts,
        "totals": totals,
        "balanced": totals["debit"] == totals["credit"]
        and totals["closing_debit"] == totals["closing_credit"],
    }


def profit_loss(period: Period) -> dict:
    """Income and expenses of the period (closing entries left out: they only move the
    year's result to retained earnings), by account, and the net profit (one query)."""
    rows = _by_account(
        _balances(period.date_from, period.date_to).filter(
            account__type__in=PROFIT_LOSS_TYPES, closing=False
        ),
        balance=_sum(F("debit") - F("credit")),
    )
    income: list[dict[str, Any]] = []
    expenses: list[dict[str, Any]] = []
    for row in rows:
        amount = signed(row["account__type"], money(row["balance"]))
        item = {**_account_row(row), "amount": amount}
        (income if row["account__type"] == AccountType.INCOME else expenses).append(item)
    total_income = sum((item["amount"] for item in income), ZERO)
    total_expenses = sum((item["amount"] for item in expenses), ZERO)
    return {
        "date_from": period.date_from,
        "date_to": period.date_to,
        "income": income,
        "expenses": expenses,
        "total_income": total_income,
        "total_expenses": total_expenses,
        "net_profit": total_income - total_expenses,
    }


def balance_sheet(as_of: date) -> dict:
    """Assets, liabilities and equity at `as_of`, and the earnings not yet closed to retained
    earnings (income less expenses of every year not closed): assets = liabilities + equity
    + current earnings, always (one query)."""
    rows = _by_account(_balances(None, as_of), balance=_sum(F("debit") - F("credit")))
    sections: dict[str, list[dict[str, Any]]] = {kind: [] for kind in BALANCE_SHEET_TYPES}
    earnings = ZERO
    for row in rows:
        kind = row["account__type"]
        balance = money(row["balance"])
        if kind in PROFIT_LOSS_TYPES:
            earnings -= balance
            continue
        sections[kind].append({**_account_row(row), "amount": signed(kind, balance)})
    totals = {kind: sum((i["amount"] for i in sections[kind]), ZERO) for kind in sections}
    right = totals[AccountType.LIABILITY] + totals[AccountType.EQUITY] + earnings
    return {
        "as_of": as_of,
        "assets": sections[AccountType.ASSET],
        "liabilities": sections[AccountType.LIABILITY],
        "equity": sections[AccountType.EQUITY],
        "total_assets": totals[AccountType.ASSET],
        "total_liabilities": totals[AccountType.LIABILITY],
        "total_equity": totals[AccountType.EQUITY],
        "current_earnings": earnings,
        "total_liabilities_and_equity": right,
        "balanced": totals[AccountType.ASSET] == right,
    }


def vat_return(period: Period) -> dict:
    """The VAT of the period: output VAT (credits less debits on the VAT-payable account),
    input VAT (debits less credits on the VAT-receivable one), the net due, and the net sales
    and purchases they were charged on (one query)."""
    rows = _balances(period.date_from, period.date_to).filter(closing=False)
    sums = rows.aggregate(
        output=_sum(F("credit") - F("debit"), Q(account__role=AccountRole.VAT_PAYABLE)),
        input=_sum(F("debit") - F("credit"), Q(account__role=AccountRole.VAT_RECEIVABLE)),
        sales=_sum(F("credit") - F("debit"), Q(account__role=AccountRole.SALES)),
        purchases=_sum(
            F("debit") - F("credit"),
            Q(account__role__in=(AccountRole.PURCHASES, AccountRole.INVENTORY)),
        ),
    )
    sums = {name: money(value) for name, value in sums.items()}
    return {
        "date_from": period.date_from,
        "date_to": period.date_to,
        "output_vat": sums["output"],
        "input_vat": sums["input"],
        "net_vat_due": sums["output"] - sums["input"],
        "net_sales": sums["sales"],
        "net_purchases": sums["purchases"],
    }


BUCKETS = ("not_due", "0_30", "31_60", "61_90", "over_90")


def _bucket(days_overdue: int) -> str:
    if days_overdue < 0:
        return "not_due"
    if days_overdue <= 30:
        return "0_30"
    if days_overdue <= 60:
        return "31_60"
    if days_overdue <= 90:
        return "61_90"
    return "over_90"


def aged(role: str, as_of: date) -> dict:
    """Open items of the receivable or payable account at `as_of`: per partner and reference
    (an order, a goods-received note), the balance left and its earliest due date, aged by
    days past due into buckets not_due, 0-30, 31-60, 61-90, over 90 (one grouped query)."""
    sign = 1 if role == AccountRole.RECEIVABLE else -1
    rows = (
        _posted(as_of)
        .filter(account__role=role)
        .values("partner_type", "partner_id", "entry__reference")
        .annotate(
            balance=_sum(F("debit") - F("credit")),
            due=Min(Coalesce("due_date", "entry__date")),
            name=Max("partner_name"),
        )
        .order_by("partner_type", "partner_id", "entry__reference")
    )
    partners: dict[tuple, dict] = {}
    totals = dict.fromkeys((*BUCKETS, "total"), ZERO)
    for row in rows:
        amount = sign * money(row["balance"])
        if not amount:
            continue
        bucket = _bucket((as_of - row["due"]).days)
        key = (row["partner_type"], row["partner_id"])
        partner = partners.setdefault(
            key,
            {
                "partner_type": row["partner_type"],
                "partner_id": row["partner_id"],
                "partner_name": row["name"] or "",
                **dict.fromkeys((*BUCKETS, "total"), ZERO),
                "items": [],
            },
        )
        partner[bucket] += amount
        partner["total"] += amount
        totals[bucket] += amount
        totals["total"] += amount
        partner["items"].append(
            {
                "reference": row["entry__reference"],
                "due_date": row["due"],
                "amount": amount,
                "bucket": bucket,
                "days_overdue": max((as_of - row["due"]).days, 0),
            }
        )
    return {"as_of": as_of, "partners": list(partners.values()), "totals": totals}
