"""The rollups of the reports (AccountBalance): the posted lines' sums per account and block of
days, kept equal to the lines.

A posted entry never changes (it is corrected by a reversing entry, itself posted) and a draft
counts in no report, so the one write that moves the rollups is a posting: `entry_posted`,
called by the posting of every entry (a draft posted, a reversal, a year's closing entry, a
business event's entry) in its transaction, adds the entry's sums per account to every block
holding its date. `sum = sum + delta` upserts (INSERT ... ON CONFLICT DO UPDATE, PostgreSQL
and SQLite alike) make the row when missing and add to it atomically when two postings touch
it at once; rows are written in key order, so two postings never wait for each other crosswise.

`rebuild` recounts every row from the lines (the `rebuild_account_balances` command, the
migration that made the table): after a restore or rows written straight into the tables.
It locks the table against postings first (PostgreSQL): a posting either committed before
(and is counted from its lines) or adds its sums after the recount.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.apps import apps as installed_apps
from django.db import connections, router, transaction
from django.db.models import Case, Q, Sum, Value, When

from erp.accounting.choices import EntryKind, EntryStatus
from erp.accounting.models import AccountBalance, JournalEntry, day_number, levels
from store.common.money import money

ZERO = Decimal("0.00")
#: Rows per INSERT statement when many are written at once.
CHUNK = 500

Key = tuple[int, int, bool]  # (block, account id, closing)
Row = list[Any]  # [level, start, debit, credit]


def _add(
    rows: dict[Key, Row],
    account_id: int,
    day: int,
    closing: bool,
    debit: Decimal | None,
    credit: Decimal | None,
) -> None:
    for block, level, start in levels(day):
        row = rows.setdefault((block, account_id, closing), [level, start, ZERO, ZERO])
        row[2] += money(debit or ZERO)
        row[3] += money(credit or ZERO)


def _upsert(rows: dict[Key, Row], using: str) -> None:
    """debit/credit += the rows' sums, the row made when missing, in key order."""
    items = sorted(rows.items())
    if not items:
        return
    connection = connections[using]
    quote = connection.ops.quote_name
    meta = AccountBalance._meta
    table = quote(meta.db_table)
    column = {field.name: quote(str(field.column)) for field in meta.concrete_fields}
    keys = [column[name] for name in ("block", "account", "closing")]
    values = [column[name] for name in ("level", "start", "debit", "credit")]
    debit, credit = values[2], values[3]
    row = "(" + ", ".join(["%s"] * 7) + ")"
    with connection.cursor() as cursor:
        for offset in range(0, len(items), CHUNK):
            chunk = items[offset : offset + CHUNK]
            sql = (
                f"INSERT INTO {table} ({', '.join(keys + values)}) "  # noqa: S608
                f"VALUES {', '.join([row] * len(chunk))} "
                f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET "
                f"{debit} = {table}.{debit} + excluded.{debit}, "
                f"{credit} = {table}.{credit} + excluded.{credit}"
            )
            params = [value for key, sums in chunk for value in (*key, *sums)]
            cursor.execute(sql, params)


def entry_posted(entry: JournalEntry) -> None:
    """Add a just-posted entry's lines to the rollups (two queries: its sums per account, the
    upsert). Called in the posting's transaction, after the entry's row was locked."""
    closing = entry.kind == EntryKind.CLOSING
    rows: dict[Key, Row] = {}
    sums = entry.lines.values("account_id").annotate(debit=Sum("debit"), credit=Sum("credit"))
    day = day_number(entry.date)
    for line in sums.order_by("account_id"):
        _add(rows, line["account_id"], day, closing, line["debit"], line["credit"])
    _upsert(rows, router.db_for_write(AccountBalance))


def _lock(model: Any, using: str) -> None:
    connection = connections[using]
    if connection.vendor == "postgresql":
        table = connection.ops.quote_name(model._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")


def _recount(lines: Iterable[dict[str, Any]]) -> dict[Key, Row]:
    """The rollup rows of posted lines grouped by (account_id, day, closing, debit, credit)."""
    rows: dict[Key, Row] = {}
    for line in lines:
        _add(
            rows,
            line["account_id"],
            day_number(line["day"]),
            line["closing"],
            line["debit"],
            line["credit"],
        )
    return rows


def rebuild(apps: Any = installed_apps, using: str | None = None) -> int:
    """Recount every AccountBalance row from the posted lines (idempotent), in one transaction;
    answers the number of rows. `apps` is the app registry to take the models from and
    `using` the database (a migration passes its historical registry and its connection)."""
    balance_model = apps.get_model("erp_accounting", "AccountBalance")
    line_model = apps.get_model("erp_accounting", "JournalLine")
    using = using or router.db_for_write(balance_model)
    with transaction.atomic(using=using):
        _lock(balance_model, using)
        balance_model.objects.using(using).all().delete()
        lines = (
            line_model.objects.using(using)
            .filter(entry__status=EntryStatus.POSTED)
            .annotate(
                closing=Case(
                    When(Q(entry__kind=EntryKind.CLOSING), then=Value(True)), default=Value(False)
                )
            )
            .values("account_id", "entry__date", "closing")
            .annotate(debit=Sum("debit"), credit=Sum("credit"))
            .order_by()
        )
        rows = _recount(
            {**line, "day": line["entry__date"]} for line in lines.iterator(chunk_size=2000)
        )
        made = [
            balance_model(
                block=block,
                account_id=account_id,
                closing=closing,
                level=level,
                start=start,
                debit=debit,
                credit=credit,
            )
            for (block, account_id, closing), (level, start, debit, credit) in sorted(rows.items())
        ]
        balance_model.objects.using(using).bulk_create(made, batch_size=CHUNK)
    return len(made)
