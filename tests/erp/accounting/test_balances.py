"""The reports' rollups (AccountBalance) stay equal to a recount of the posted lines, and the
reports read from them answer what the lines say, after any sequence of writes.

Each example opens four fiscal years on both sides of a boundary of the largest blocks and,
through the services the HTTP views call, writes drafts (balanced or not), changes their date,
lines and accounts, deletes them, posts them, reverses posted entries on other days, posts
business events (payments and refunds, which make a year when none holds their day), closes
years (a closing entry the profit and loss leaves out) and tries to delete, retype and
deactivate accounts, in any order; a write the services refuse changes nothing. At the end:

- **The rollups are a recount**: every AccountBalance row equals what `rebuild` makes from the
  lines;
- **The reports are the lines**: the trial balance, the profit and loss, the balance sheet and
  the VAT return of drawn periods hold what the posted lines sum to, one by one in Python.

Each example runs in a savepoint rolled back at its end.
"""

from __future__ import annotations

import itertools
from datetime import date, timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.db.migrations.loader import MigrationLoader
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from hypothesis import given, settings
from hypothesis import strategies as st

from common.errors import ServiceError
from erp.accounting import selectors, services
from erp.accounting.models import (
    MAX_LEVEL,
    Account,
    AccountBalance,
    FiscalYear,
    JournalEntry,
    cover,
    day_number,
)
from erp.accounting.services import balances
from tests.erp.accounting.conftest import (
    ACCOUNTS,
    ENTRIES,
    REPORTS,
    account_id,
    draft,
    ok,
    posted,
    year,
)
from tests.erp.accounting.helpers import (
    bulk_posted,
    from_lines,
    from_rollups,
    recounted,
    rollup_rows,
)
from tests.fixtures.properties import examples
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db

# --- The blocks ---------------------------------------------------------------------------------

ANY_DAY = st.dates(min_value=date.min, max_value=date.max)


def _days_of(blocks) -> list[tuple[int, int]]:
    """The (first, last) day numbers of each block of a cover, sorted."""
    spans = [(key // 16, key // 16 + (1 << (key % 16)) - 1) for key in blocks.keys]
    size = 1 << MAX_LEVEL
    spans += [(start, start + size - 1) for start in range(blocks.top_from, blocks.top_until, size)]
    return sorted(spans)


@settings(max_examples=300)
@given(first=st.one_of(st.none(), ANY_DAY), last=st.one_of(st.none(), ANY_DAY))
def test_a_cover_is_exactly_its_days_in_few_blocks(first, last):
    blocks = cover(first, last)
    low = day_number(first or date.min)
    high = day_number(last or date.max)
    if low > high:
        assert blocks.empty
        return
    spans = _days_of(blocks)
    assert spans[0][0] == low
    assert spans[-1][1] == high
    assert all(a[1] + 1 == b[0] for a, b in itertools.pairwise(spans))  # no gap
    assert len(blocks.keys) <= 2 * MAX_LEVEL
    for key in blocks.keys:  # every block starts at a multiple of its length
        assert (key // 16) % (1 << (key % 16)) == 0


# --- The rollups after any sequence of writes ---------------------------------------------------

CODES = ["1100", "1110", "1200", "1300", "1400", "2100", "2200", "3100", "4100", "4200", "5300"]
#: 2019 and 2020 hold the first day of a top-level block (2019-08-09), 2025 that of a block
#: of the level below (2025-03-18).
YEARS = (2019, 2020, 2025, 2026)
EDGES = [date(2019, 8, 8), date(2019, 8, 9), date(2025, 3, 17), date(2025, 3, 18)]
DAY = st.one_of(
    st.sampled_from(EDGES),
    st.dates(min_value=date(2019, 1, 1), max_value=date(2020, 12, 31)),
    st.dates(min_value=date(2024, 12, 20), max_value=date(2026, 12, 31)),
)
CENTS = st.integers(1, 200_000)
PICK = st.integers(0, 50)
LINES = st.lists(st.tuples(st.sampled_from(CODES), CENTS), min_size=1, max_size=3)

OPERATION = st.one_of(
    st.tuples(st.just("draft"), LINES, st.sampled_from(CODES), DAY, st.booleans()),
    st.tuples(st.just("draft"), LINES, st.sampled_from(CODES), DAY, st.just(True)),
    st.tuples(st.just("edit"), PICK, st.one_of(st.none(), DAY), st.one_of(st.none(), LINES)),
    st.tuples(st.just("post"), PICK),
    st.tuples(st.just("post"), PICK),
    st.tuples(st.just("reverse"), PICK, DAY),
    st.tuples(st.just("delete"), PICK),
    st.tuples(st.just("close"), st.sampled_from(YEARS)),
    st.tuples(st.just("event"), CENTS, DAY, st.sampled_from(("payment", "refund"))),
    st.tuples(
        st.just("account"), st.sampled_from(CODES), st.sampled_from(("delete", "type", "off"))
    ),
)
PERIOD = st.tuples(st.one_of(st.none(), DAY), DAY).map(
    lambda p: (min(p), max(p)) if p[0] is not None else p
)


def _pick(model_rows, index):
    rows = list(model_rows.order_by("pk").values_list("pk", flat=True))
    return rows[index % len(rows)] if rows else None


def _lines(lines, credit_code: str, balanced: bool) -> list[dict]:
    ids = dict(Account.objects.values_list("code", "id"))
    body = [{"account_id": ids.get(code, 0), "debit": Decimal(c) / 100} for code, c in lines]
    total = sum((line["debit"] for line in body), Decimal(0))
    body.append({"account_id": ids.get(credit_code, 0), "credit": total + (0 if balanced else 1)})
    return body


def apply(operation: tuple, events: list) -> None:
    kind, *args = operation
    drafts = JournalEntry.objects.filter(status="draft")
    if kind == "draft":
        lines, credit, day, balanced = args
        services.journal_entry_create(
            fields={"date": day, "lines": _lines(lines, credit, balanced)}
        )
    elif kind == "edit":
        entry_id = _pick(JournalEntry.objects.all(), args[0])
        fields = {}
        if args[1] is not None:
            fields["date"] = args[1]
        if args[2] is not None:
            fields["lines"] = _lines(args[2], "3100", True)
        if entry_id:
            services.journal_entry_update(entry_id=entry_id, fields=fields)
    elif kind == "post":
        entry_id = _pick(drafts, args[0])
        if entry_id:
            services.journal_entry_post(entry_id=entry_id)
    elif kind == "reverse":
        entry_id = _pick(JournalEntry.objects.all(), args[0])
        if entry_id:
            services.journal_entry_reverse(entry_id=entry_id, day=args[1])
    elif kind == "delete":
        entry_id = _pick(JournalEntry.objects.all(), args[0])
        if entry_id:
            services.journal_entry_delete(entry_id=entry_id)
    elif kind == "close":
        services.fiscal_year_close(year_id=FiscalYear.objects.get(name=str(args[0])).pk)
    elif kind == "event":
        events.append(1)
        services.payment_recorded(
            {
                "payment_id": len(events),
                "order_id": 7,
                "kind": args[2],
                "amount": str(Decimal(args[0]) / 100),
                "date": args[1].isoformat(),
            }
        )
    elif kind == "account":
        account = Account.objects.filter(code=args[0]).first()
        if account is None:
            return
        if args[1] == "delete":
            services.account_delete(account_id=account.pk)
        elif args[1] == "type":
            services.account_update(account_id=account.pk, fields={"type": "expense"})
        else:
            services.account_update(account_id=account.pk, fields={"is_active": False})


def _books() -> None:
    services.chart_ensure()
    for y in YEARS:
        services.fiscal_year_create(
            fields={"name": str(y), "start_date": date(y, 1, 1), "end_date": date(y, 12, 31)}
        )


@pytest.mark.slow(reason="25 generated sequences of up to 16 writes, each on the database")
@settings(max_examples=examples(25), deadline=None)
@given(
    operations=st.lists(OPERATION, min_size=1, max_size=16),
    periods=st.lists(PERIOD, min_size=1, max_size=3),
)
def test_the_rollups_are_a_recount_and_the_reports_are_the_lines(db, operations, periods):
    with transaction.atomic():
        _books()
        events: list = []
        for operation in operations:
            try:
                with transaction.atomic():
                    apply(operation, events)
            except ServiceError:
                pass
        assert rollup_rows() == recounted()
        for first, last in [*periods, (None, date.max), (date(2019, 8, 9), date(2025, 3, 17))]:
            assert from_rollups(first, last) == from_lines(first, last), (first, last)
        transaction.set_rollback(True)


# --- Through the API ----------------------------------------------------------------------------


def _report(api, name: str, **query) -> dict:
    return ok(api.get(f"{REPORTS}/{name}", query))


def test_a_draft_counts_nowhere_until_posted_and_a_posted_entry_never_changes(api):
    year(api)
    year(api, "2025-01-01", "2025-12-31")
    entry = draft(api, [("1100", "50.00", "0"), ("3100", "0", "50.00")], day="2026-02-01")
    bank = account_id(api, "1100")
    ok(
        api.patch(
            f"{ENTRIES}/{entry['id']}",
            {
                "date": "2025-06-01",
                "lines": [
                    {"account_id": bank, "debit": "80.00", "credit": "0"},
                    {"account_id": account_id(api, "4200"), "credit": "80.00", "debit": "0"},
                ],
            },
            format="json",
        )
    )
    assert not AccountBalance.objects.exists()
    assert _report(api, "trial-balance", as_of="2026-12-31")["accounts"] == []
    ok(api.post(f"{ENTRIES}/{entry['id']}/post"))
    assert AccountBalance.objects.filter(level=0).count() == 2
    assert AccountBalance.objects.count() == 2 * (MAX_LEVEL + 1)  # every block of its day
    sheet = _report(api, "balance-sheet", as_of="2025-06-01")
    assert [(row["code"], row["amount"]) for row in sheet["assets"]] == [("1100", "80.00")]
    assert _report(api, "balance-sheet", as_of="2025-05-31")["assets"] == []
    before = rollup_rows()
    error(
        api.patch(f"{ENTRIES}/{entry['id']}", {"date": "2026-03-01"}, format="json"),
        409,
        "journal_entry_not_draft",
    )
    error(api.delete(f"{ENTRIES}/{entry['id']}"), 409, "journal_entry_not_draft")
    error(api.delete(f"{ACCOUNTS}/{bank}"), 409, "in_use")
    error(
        api.patch(f"{ACCOUNTS}/{bank}", {"type": "expense"}, format="json"),
        400,
        "invalid_param",
    )
    assert rollup_rows() == before
    ok(api.post(f"{ENTRIES}/{entry['id']}/reverse", {"date": "2026-01-15"}, format="json"), 201)
    trial = _report(api, "trial-balance", date_from="2026-01-01", date_to="2026-12-31")
    rows = {row["code"]: row for row in trial["accounts"]}
    assert rows["1100"]["opening_debit"] == "80.00"
    assert rows["1100"]["credit"] == "80.00"
    assert rows["1100"]["closing_debit"] == rows["1100"]["closing_credit"] == "0.00"
    assert rollup_rows() == recounted()


def test_the_widest_periods_answer_as_the_lines(api):
    year(api)
    posted(api, [("1100", "12.00", "0"), ("4100", "0", "12.00")], day="2026-05-05")
    widest = {"date_from": "0001-01-01", "date_to": "9999-12-31"}
    trial = _report(api, "trial-balance", **widest)
    assert trial == {**_report(api, "trial-balance", as_of="9999-12-31"), "date_from": "0001-01-01"}
    assert _report(api, "profit-loss", **widest)["net_profit"] == "12.00"
    assert _report(api, "balance-sheet", as_of="9999-12-31")["total_assets"] == "12.00"
    assert _report(api, "balance-sheet", as_of="0001-01-01")["assets"] == []


# --- What a report reads ------------------------------------------------------------------------

REPORT_QUERIES = {
    "trial-balance": {"date_from": "2026-02-10", "date_to": "2026-11-20"},
    "profit-loss": {"as_of": "2026-11-20"},
    "balance-sheet": {"as_of": "2026-11-20"},
}


def _rows_read(as_of: date) -> int:
    """The AccountBalance rows of the widest reading: the balance sheet's, every day up to
    `as_of` (the trial balance reads the same rows, split at its first day)."""
    return AccountBalance.objects.filter(selectors.within(None, as_of)).count()


def _queries(api) -> dict[str, int]:
    counts = {}
    for name, query in REPORT_QUERIES.items():
        with CaptureQueriesContext(connection) as captured:
            _report(api, name, **query)
        counts[name] = len(captured)
    return counts


def test_the_reports_read_as_many_rows_for_many_lines_over_years(
    api, django_assert_max_num_queries
):
    bulk_posted(20, date(2026, 1, 1), 10)
    _queries(api)  # the first request of a test looks up what is cached after it
    few = _queries(api)
    assert all(count <= 10 for count in few.values()), few
    accounts = Account.objects.count()
    assert _rows_read(date(2026, 11, 20)) <= accounts * (2 * MAX_LEVEL + 1)
    bulk_posted(6000, date(2019, 1, 1), 8 * 365)  # eight years, a line every 12 hours
    _queries(api)  # the ERP gate's cached verdict may have expired while seeding
    assert _queries(api) == few
    for name, query in REPORT_QUERIES.items():
        with django_assert_max_num_queries(few[name]):
            _report(api, name, **query)
    # a few dozen rows per account (two blocks per level, the top-level ones), not the lines
    read = _rows_read(date(2026, 11, 20))
    assert read <= accounts * (2 * MAX_LEVEL + 2), read
    assert AccountBalance.objects.count() > 3 * read
    assert from_rollups(date(2026, 2, 10), date(2026, 11, 20)) == from_lines(
        date(2026, 2, 10), date(2026, 11, 20)
    )


# --- Recounting ---------------------------------------------------------------------------------


def test_the_command_recounts_the_rollups_from_the_lines_idempotently(api):
    year(api)
    posted(api, [("1100", "10.00", "0"), ("3100", "0", "10.00")], day="2026-03-01")
    draft(api, [("1100", "99.00", "0"), ("3100", "0", "99.00")], day="2026-03-02")
    bulk_posted(40, date(2026, 4, 1), 20)
    kept = rollup_rows()
    AccountBalance.objects.filter(level=0).delete()
    AccountBalance.objects.filter(level=3).update(debit=Decimal("1.00"))
    out = StringIO()
    call_command("rebuild_account_balances", stdout=out)
    assert rollup_rows() == kept
    assert f"{len(kept)} rows from 42 posted lines" in out.getvalue()
    call_command("rebuild_account_balances", stdout=StringIO())
    assert rollup_rows() == kept


def test_the_migration_recounts_with_the_models_of_its_state(api):
    year(api)
    posted(api, [("1100", "10.00", "0"), ("4100", "0", "10.00")], day="2026-03-01")
    kept = rollup_rows()
    AccountBalance.objects.all().delete()
    with override_settings(MIGRATION_MODULES={}):  # the suite's database is made without them
        loader = MigrationLoader(connection)
    state = loader.project_state(("erp_accounting", "0002_account_balances"))
    assert balances.rebuild(state.apps, using=connection.alias) == len(kept)
    assert rollup_rows() == kept


def test_a_posted_entry_adds_its_sums_per_account_once(api):
    year(api)
    entry = posted(
        api,
        [
            ("1100", "10.00", "0"),
            ("1100", "5.00", "0"),
            ("1100", "0", "3.00"),
            ("4100", "0", "12.00"),
        ],
        day="2026-03-01",
    )
    day = AccountBalance.objects.get(
        level=0, account__code="1100", start=day_number(date(2026, 3, 1))
    )
    assert (day.debit, day.credit, day.closing) == (Decimal("15.00"), Decimal("3.00"), False)
    assert entry["status"] == "posted"
    assert selectors.account_balances(date(2026, 3, 1) - timedelta(days=1)) == {}
    assert selectors.account_balances()[day.account_id] == Decimal("12.00")
