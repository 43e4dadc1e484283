"""Keeping the reports' rollups (store.reports.models) equal to the rows they count.

One rule, one place: what an order and a customer add to the rollups is decided here, and
nothing else writes them.

- The order services run inside `batched` (one batch per outermost service call, in its
  transaction) and call `order_locked(order)` right after locking an order (before changing
  it) and `order_created(order)` after creating one. At the end of the outermost call the
  batch reads the orders again and applies the difference between what each order added
  before and what it adds now: `count = count + delta` upserts (INSERT ... ON CONFLICT DO
  UPDATE), in key order, after the order, stock and every other row the services lock.
  Nested services (a refund moving the order's status) make one difference, not two; a
  service that fails in a savepoint leaves its order as it was, and so a difference of zero.
- Customer saves and deletions (store.customers.services, the admin), and the unlinking of
  a deleted account, reach `customers_changed` through the signals connected in apps.py:
  CustomerTally says how each customer is counted, so a change moves it exactly once.
- `close_days` (the nightly task) counts the days before today into the rollups by day and
  moves the watermark; `rebuild` (the `rebuild_report_rollups` command) recounts everything
  from the rows.

Concurrency: a writer reads the watermark once per batch under a shared advisory lock
(PostgreSQL), which `close_days` and `rebuild` take exclusively: a day is closed either
before a writer looks (the writer then counts its change in the rollups) or after it
committed (the closer then counts the committed row). SQLite runs one writer at a time.
"""

from __future__ import annotations

import functools
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any, ParamSpec, TypeVar

from django.db import connection, transaction
from django.db.models import Count, DateField, Exists, OuterRef, Q, Sum
from django.db.models.expressions import RawSQL
from django.utils import timezone

from store.catalog.models import Product
from store.customers.models import Customer
from store.orders.choices import SALES
from store.orders.models import Order, OrderItem
from store.reports.models import (
    MAX_LEVEL,
    CustomerRollup,
    CustomerTally,
    CustomerTotals,
    OrderRollup,
    ProductRollup,
    ReportWatermark,
    block_key,
)

P = ParamSpec("P")
R = TypeVar("R")

EPOCH = date(1970, 1, 1)
#: The advisory lock of the watermark: shared by writers, exclusive for closing days.
LOCK_KEY = 7_356_420_117
ZERO = Decimal("0.00")
#: Rows per INSERT statement when many are written at once (closing days, rebuilding).
CHUNK = 500

ORDER_FIELDS = (
    "id",
    "created_at",
    "customer_id",
    "currency",
    "status",
    "payment_status",
    "fulfillment_status",
    "total",
    "amount_paid",
    "amount_refunded",
    "item_count",
)


# --- Days and blocks -----------------------------------------------------------------------------


def day_number(day: date) -> int:
    return (day - EPOCH).days


def day_of(moment: datetime) -> int:
    return day_number(moment.astimezone(UTC).date())


def midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def levels(day: int) -> list[tuple[int, int, int]]:
    """The (block, level, start) of every block that holds `day`."""
    starts = [(level, day - day % (1 << level)) for level in range(MAX_LEVEL + 1)]
    return [(block_key(level, start), level, start) for level, start in starts]


def blocks(first: int, last: int) -> list[tuple[int, int]]:
    """The fewest blocks that cover the days first..last (included), as (level, start)."""
    out = []
    while first <= last:
        level = MAX_LEVEL
        while level and (first % (1 << level) or first + (1 << level) - 1 > last):
            level -= 1
        out.append((level, first))
        first += 1 << level
    return out


def today() -> date:
    return timezone.now().astimezone(UTC).date()


# --- The watermark -------------------------------------------------------------------------------


def closed_until() -> date | None:
    """The first day not in the rollups by day (None: none is). For reading: a reader that
    uses an older value still answers exactly (the blocks before it never change by closing)."""
    return ReportWatermark.objects.filter(pk=1).values_list("closed_until", flat=True).first()


def _closed_until_for_writing() -> date | None:
    """The watermark, under the shared lock that `close_days` waits for (held to the commit)."""
    if connection.vendor == "postgresql":
        table = connection.ops.quote_name(ReportWatermark._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT pg_advisory_xact_lock_shared(%s), "  # noqa: S608 - our own table name
                f"(SELECT closed_until FROM {table} WHERE id = 1)",
                [LOCK_KEY],
            )
            return cursor.fetchone()[1]
    return closed_until()


#: The attribute of an order locked `with_watermark`: the watermark read in the same statement.
WATERMARK_READ = "report_closed_until"


def with_watermark(queryset: Any) -> Any:
    """The query locking an order (store.orders), reading the watermark along, under the
    shared lock (PostgreSQL) as `_closed_until_for_writing` does: the batch's first lock
    (order_locked) then needs no statement of its own for it."""
    table = connection.ops.quote_name(ReportWatermark._meta.db_table)
    if connection.vendor == "postgresql":
        sql = (
            f"(SELECT w.closed_until FROM (SELECT pg_advisory_xact_lock_shared(%s)) AS lock "  # noqa: S608
            f"LEFT JOIN {table} AS w ON w.id = 1)"
        )
        params: list[int] = [LOCK_KEY]
    else:
        sql = f"(SELECT closed_until FROM {table} WHERE id = 1)"  # noqa: S608
        params = []
    watermark = RawSQL(sql, params, output_field=DateField())  # noqa: S611 - our own SQL
    return queryset.annotate(**{WATERMARK_READ: watermark})


def _lock_exclusively() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])


def _closed(moment: datetime, watermark: date | None) -> bool:
    return watermark is not None and moment < midnight(watermark)


# --- What one order adds -------------------------------------------------------------------------


@dataclass(frozen=True)
class Counted:
    """What one order adds to the rollups: its day and key, its amounts, and (closed sales
    orders only) what it sold per product and title."""

    day: int
    closed: bool
    customer_id: int | None
    currency: str
    status: str
    payment_status: str
    fulfillment_status: str
    total: Decimal
    amount_paid: Decimal
    amount_refunded: Decimal
    item_count: int
    products: tuple = ()  # ((product_id, title, lines, quantity, revenue, orders), ...)


def product_sales(lines: Iterable[tuple]) -> tuple:
    """(product_id, title, lines, quantity, revenue, orders) per product and title of one
    order's lines (product_id, title, quantity, total); the order counts once per product,
    under the greatest title of its lines of that product. Lines without a product (deleted
    since) count nowhere, as in the report."""
    sums: dict[tuple, list] = {}
    greatest: dict[int, str] = {}
    for product_id, title, quantity, total in lines:
        if product_id is None:
            continue
        entry = sums.setdefault((product_id, title), [0, 0, ZERO, 0])
        entry[0] += 1
        entry[1] += quantity
        entry[2] += total
        if product_id not in greatest or title > greatest[product_id]:
            greatest[product_id] = title
    for product_id, title in greatest.items():
        sums[(product_id, title)][3] = 1
    return tuple(sorted((*key, *values) for key, values in sums.items()))


def counted(row: dict, watermark: date | None, lines: Iterable[tuple] = ()) -> Counted:
    """`row`: an order's ORDER_FIELDS; `lines`: its lines, read only when it is a closed
    sales order (the only orders whose lines the rollups count)."""
    closed = _closed(row["created_at"], watermark)
    return Counted(
        day=day_of(row["created_at"]),
        closed=closed,
        customer_id=row["customer_id"],
        currency=row["currency"],
        status=row["status"],
        payment_status=row["payment_status"],
        fulfillment_status=row["fulfillment_status"],
        total=row["total"],
        amount_paid=row["amount_paid"],
        amount_refunded=row["amount_refunded"],
        item_count=row["item_count"],
        products=product_sales(lines) if closed and row["status"] in SALES else (),
    )


def _lines_of(order_ids: list[int]) -> dict[int, list[tuple]]:
    found: dict[int, list[tuple]] = defaultdict(list)
    if order_ids:
        rows = OrderItem.objects.filter(order_id__in=order_ids).values_list(
            "order_id", "product_id", "title", "quantity", "total"
        )
        for order_id, *line in rows.order_by():
            found[order_id].append(tuple(line))
    return found


class Deltas:
    """Differences to add to the rollups, summed by key."""

    def __init__(self) -> None:
        self.orders: dict[tuple, list] = defaultdict(lambda: [0, ZERO, ZERO, ZERO, 0])
        self.products: dict[tuple, list] = defaultdict(lambda: [0, 0, ZERO, 0])
        self.customers: dict[tuple, list] = defaultdict(lambda: [0, 0, ZERO])
        self.counts: dict[tuple, list] = defaultdict(lambda: [0])

    def add_order(self, order: Counted, sign: int, *, by_day: bool = True) -> None:
        sale = order.status in SALES
        if order.customer_id is not None:
            entry = self.customers[(order.customer_id, order.currency)]
            entry[0] += sign
            if sale:
                entry[1] += sign
                entry[2] += sign * order.total
        if not (order.closed and by_day):
            return
        key = (order.currency, order.status, order.payment_status, order.fulfillment_status)
        for block in levels(order.day):
            entry = self.orders[(*block, *key)]
            entry[0] += sign
            entry[1] += sign * order.total
            entry[2] += sign * order.amount_paid
            entry[3] += sign * order.amount_refunded
            entry[4] += sign * order.item_count
            for product_id, title, lines, quantity, revenue, orders in order.products:
                sold = self.products[(*block, order.currency, product_id, title)]
                sold[0] += sign * lines
                sold[1] += sign * quantity
                sold[2] += sign * revenue
                sold[3] += sign * orders

    def add_customer(self, day: int, flags: tuple[bool, bool, bool], sign: int) -> None:
        for block in levels(day):
            self.counts[(*block, *flags)][0] += sign

    def apply(self) -> None:
        """Write the differences: orders by day, products, customers' totals, customer
        counts (always in this order, each table's rows in key order: two writers never
        wait on each other's rows the other way round)."""
        _upsert(
            OrderRollup,
            (*BLOCK, "currency", "status", "payment_status", "fulfillment_status"),
            ("orders", "total", "amount_paid", "amount_refunded", "items"),
            self.orders,
        )
        if self.products:
            ids = {key[4] for key, values in self.products.items() if any(values)}
            existing = set(Product.objects.filter(pk__in=ids).values_list("pk", flat=True))
            kept = {key: v for key, v in self.products.items() if key[4] in existing}
            _upsert(
                ProductRollup,
                (*BLOCK, "currency", "product", "title"),
                ("lines", "quantity", "revenue", "orders"),
                kept,
            )
        _upsert(
            CustomerTotals,
            ("customer", "currency"),
            ("orders", "sales", "spent"),
            self.customers,
        )
        _upsert(
            CustomerRollup,
            (*BLOCK, "registered", "anonymised", "has_orders"),
            ("customers",),
            self.counts,
        )


#: The key columns of a block's row; `block` alone names it (level and start say it again).
BLOCK = ("block", "level", "start")


def _upsert(model: Any, keys: tuple[str, ...], sums: tuple[str, ...], rows: dict) -> None:
    """`sum = sum + delta` for each key of `rows` ({key: [delta, ...]}), the row made when
    missing: INSERT ... ON CONFLICT (key) DO UPDATE (PostgreSQL and SQLite alike)."""
    items = sorted((key, values) for key, values in rows.items() if any(values))
    if not items:
        return
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    key_columns = [quote(model._meta.get_field(name).column) for name in keys]
    unique = [
        column for name, column in zip(keys, key_columns, strict=True) if name not in BLOCK[1:]
    ]
    sum_columns = [quote(model._meta.get_field(name).column) for name in sums]
    row = "(" + ", ".join(["%s"] * (len(keys) + len(sums))) + ")"
    updates = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in sum_columns)
    with connection.cursor() as cursor:
        for offset in range(0, len(items), CHUNK):
            chunk = items[offset : offset + CHUNK]
            sql = (
                f"INSERT INTO {table} ({', '.join(key_columns + sum_columns)}) "  # noqa: S608
                f"VALUES {', '.join([row] * len(chunk))} "
                f"ON CONFLICT ({', '.join(unique)}) DO UPDATE SET {updates}"
            )
            params = [value for key, values in chunk for value in (*key, *values)]
            cursor.execute(sql, params)


# --- Batches: what the order services call -------------------------------------------------------

_local = threading.local()


class _Batch:
    def __init__(self) -> None:
        self._read = False
        self._watermark: date | None = None
        self.orders: dict[int, Counted | None] = {}
        self.customers: set[int] = set()
        self.depth = 1  # nested service calls sharing the batch
        # Orders as the outermost service leaves them (order_settled): counted from memory.
        self.settled: dict[int, Order] = {}

    @property
    def watermark(self) -> date | None:
        if not self._read:
            self._watermark = _closed_until_for_writing()
            self._read = True
        return self._watermark


@contextmanager
def batch() -> Iterator[_Batch]:
    """The rollups' changes of a service call, applied at the end of the outermost one."""
    current = getattr(_local, "batch", None)
    if current is not None:
        current.depth += 1
        try:
            yield current
        finally:
            current.depth -= 1
        return
    current = _local.batch = _Batch()
    try:
        yield current
        _flush(current)
    finally:
        _local.batch = None


def batched(function: Callable[P, R]) -> Callable[P, R]:
    """Run an order service in a batch (decorate it under @transaction.atomic)."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with batch():
            return function(*args, **kwargs)

    return wrapper


def _current() -> _Batch:
    current = getattr(_local, "batch", None)
    if current is None:
        raise RuntimeError(
            "An order is written outside rollups.batched: the reports would miss it."
        )
    return current


def order_locked(order: Order) -> None:
    """Note what a locked order adds now (once per batch: the first lock sees it before any
    change of the batch)."""
    current = _current()
    current.settled.pop(order.pk, None)  # another instance of it may change it now
    if not current._read and hasattr(order, WATERMARK_READ):  # locked with_watermark
        current._watermark = getattr(order, WATERMARK_READ)
        current._read = True
    if order.pk in current.orders:
        return
    watermark = current.watermark
    row = {name: getattr(order, name) for name in ORDER_FIELDS}
    lines: list[tuple] = []
    if _closed(order.created_at, watermark) and order.status in SALES:
        lines = _lines_of([order.pk]).get(order.pk, [])
    current.orders[order.pk] = counted(row, watermark, lines)


def order_settled(order: Order) -> None:
    """The outermost service is done with this locked order, and `order` holds its row as
    written: the batch counts it from memory instead of reading it again. Ignored from a
    nested service (its caller may change the order after it) and forgotten when the order
    is locked again in the batch."""
    current = _current()
    if current.depth == 1:
        current.settled[order.pk] = order


def order_created(order: Order) -> None:
    """Note a new order (it added nothing before)."""
    current = _current()
    current.watermark  # noqa: B018 - read now, under the lock, before the order is counted
    current.orders.setdefault(order.pk, None)


def _flush(current: _Batch) -> None:
    if current.orders:
        _apply_orders(current)
    if current.customers:
        _sync_customers(current.customers, current.watermark)


def _apply_orders(current: _Batch) -> None:
    watermark = current.watermark
    ids = sorted(current.orders)
    rows = {
        pk: {name: getattr(order, name) for name in ORDER_FIELDS}
        for pk, order in current.settled.items()
        if pk in current.orders
    }
    unread = [pk for pk in ids if pk not in rows]
    if unread:
        rows.update(
            (row["id"], row) for row in Order.objects.filter(pk__in=unread).values(*ORDER_FIELDS)
        )
    sold = [
        pk
        for pk, row in rows.items()
        if _closed(row["created_at"], watermark) and row["status"] in SALES
    ]
    lines = _lines_of(sold)
    deltas = Deltas()
    members: set[int] = set()
    for pk in ids:
        before = current.orders[pk]
        after = counted(rows[pk], watermark, lines.get(pk, ())) if pk in rows else None
        if before == after:
            continue
        if before is not None:
            deltas.add_order(before, -1)
        if after is not None:
            deltas.add_order(after, 1)
        was = before.customer_id if before else None
        now = after.customer_id if after else None
        if was != now:  # whether these customers have orders may have changed
            members.update(c for c in (was, now) if c is not None)
    deltas.apply()
    if members:
        _sync_customers(members, watermark)


# --- Customers -----------------------------------------------------------------------------------


def customers_changed(customer_ids: Iterable[int]) -> None:
    """Count these customers as they are now (saved, deleted, their account removed): in the
    current batch when there is one, else now."""
    ids = {pk for pk in customer_ids if pk is not None}
    if not ids:
        return
    current = getattr(_local, "batch", None)
    if current is not None:
        current.customers.update(ids)
        return
    with transaction.atomic():
        _sync_customers(ids, _closed_until_for_writing())


def _flags(row: dict) -> tuple[bool, bool, bool]:
    return (row["user_id"] is not None, row["anonymised_at"] is not None, row["has_orders"])


def _customer_rows(queryset: Any) -> Any:
    having = Exists(Order.objects.filter(customer_id=OuterRef("pk")))
    return queryset.annotate(has_orders=having).values(
        "pk", "created_at", "user_id", "anonymised_at", "has_orders"
    )


def _sync_customers(ids: Iterable[int], watermark: date | None) -> None:
    """Move each customer to the count it belongs in now (CustomerTally says where it was)."""
    ids = sorted(ids)
    if watermark is None:
        return
    tallies = {
        tally.customer_id: tally
        for tally in CustomerTally.objects.select_for_update()
        .filter(customer_id__in=ids)
        .order_by("customer_id")
    }
    rows = {row["pk"]: row for row in _customer_rows(Customer.objects.filter(pk__in=ids))}
    deltas = Deltas()
    for pk in ids:
        row = rows.get(pk)
        want = None
        if row is not None and _closed(row["created_at"], watermark):
            want = (day_of(row["created_at"]), _flags(row))
        tally = tallies.get(pk)
        have = None
        if tally is not None:
            have = (tally.day, (tally.registered, tally.anonymised, tally.has_orders))
        if want == have:
            continue
        if have is not None:
            deltas.add_customer(have[0], have[1], -1)
        if want is None:
            CustomerTally.objects.filter(customer_id=pk).delete()
            continue
        deltas.add_customer(want[0], want[1], 1)
        registered, anonymised, has_orders = want[1]
        CustomerTally.objects.update_or_create(
            customer_id=pk,
            defaults={
                "day": want[0],
                "registered": registered,
                "anonymised": anonymised,
                "has_orders": has_orders,
            },
        )
    deltas.apply()


# --- Closing days, rebuilding --------------------------------------------------------------------


def close_days(until: date | None = None) -> date | None:
    """Count every order and customer created before `until` (default today, UTC) in the
    rollups by day, and move the watermark there. Idempotent: days already closed stay as
    they are. Answers the watermark."""
    until = until or today()
    with transaction.atomic():
        _lock_exclusively()
        watermark, _made = ReportWatermark.objects.select_for_update().get_or_create(pk=1)
        old = watermark.closed_until
        if old is not None and old >= until:
            return old
        since = midnight(old) if old is not None else None
        _count_orders(since, midnight(until), until)
        _count_customers(since, midnight(until), until)
        watermark.closed_until = until
        watermark.save(update_fields=["closed_until", "updated_at"])
    return until


def _count_orders(since: datetime | None, before: datetime, until: date) -> None:
    orders = Order.objects.filter(created_at__lt=before)
    if since is not None:
        orders = orders.filter(created_at__gte=since)
    deltas = Deltas()
    chunk: list[dict] = []

    def count(rows: list[dict]) -> None:
        lines = _lines_of([row["id"] for row in rows if row["status"] in SALES])
        for row in rows:
            deltas.add_order(counted(row, until, lines.get(row["id"], ())), 1)

    for row in orders.order_by("created_at", "id").values(*ORDER_FIELDS).iterator(CHUNK * 4):
        chunk.append(row)
        if len(chunk) >= CHUNK * 4:
            count(chunk)
            chunk = []
    count(chunk)
    deltas.customers.clear()  # every order is in CustomerTotals already
    deltas.apply()


def _count_customers(since: datetime | None, before: datetime, until: date) -> None:
    customers = Customer.objects.filter(created_at__lt=before)
    if since is not None:
        customers = customers.filter(created_at__gte=since)
    deltas = Deltas()
    tallies = []
    for row in _customer_rows(customers.order_by("pk")).iterator(CHUNK * 4):
        day, flags = day_of(row["created_at"]), _flags(row)
        deltas.add_customer(day, flags, 1)
        tallies.append(
            CustomerTally(
                customer_id=row["pk"],
                day=day,
                registered=flags[0],
                anonymised=flags[1],
                has_orders=flags[2],
            )
        )
    CustomerTally.objects.bulk_create(tallies, batch_size=CHUNK)
    deltas.apply()


def rebuild(until: date | None = None) -> date | None:
    """Recount every rollup from the rows (orders, their lines, customers), then close the
    days before `until` (default today). Answers the watermark."""
    with transaction.atomic():
        _lock_exclusively()
        for model in (OrderRollup, ProductRollup, CustomerRollup, CustomerTally, CustomerTotals):
            model.objects.all().delete()
        ReportWatermark.objects.update_or_create(pk=1, defaults={"closed_until": None})
        totals = (
            Order.objects.filter(customer__isnull=False)
            .values("customer_id", "currency")
            .annotate(
                n=Count("id"),
                s=Count("id", filter=Q(status__in=SALES)),
                spent=Sum("total", filter=Q(status__in=SALES)),
            )
            .order_by("customer_id", "currency")
        )
        CustomerTotals.objects.bulk_create(
            (
                CustomerTotals(
                    customer_id=row["customer_id"],
                    currency=row["currency"],
                    orders=row["n"],
                    sales=row["s"],
                    spent=row["spent"] or ZERO,
                )
                for row in totals.iterator(CHUNK * 4)
            ),
            batch_size=CHUNK,
        )
        return close_days(until)
