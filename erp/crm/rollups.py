"""RFM's rollup (CustomerRfm): each store customer's paid orders per currency, counted once
when an order is written instead of on every request, so that /crm/rfm ranks one row per
customer whatever the number of orders.

One rule, one place: which orders count (`PAID_PAYMENTS`, `COUNTED_STATUS`, `TERMINAL`, read
by both `is_paid`, for an order in hand, and `paid_q`, for the database) and how a
customer's row changes.

- The store never imports the ERP: its order services save and delete Order rows, and the
  model signals (erp.crm.listeners) tell this module what a saved order counted before and
  what it counts now, inside the writing transaction.
- `moved(before, after)` applies the difference in ONE statement: an upsert (INSERT ... ON
  CONFLICT (customer_id, currency) DO UPDATE) that adds the change of the order count and
  of the sum to the rows as they are, and takes the later of the row's last order and the
  order that enters. The row lock of the upsert orders concurrent writers of one customer:
  each adds its own difference to what the other committed. An order that leaves a row
  whose last order it may have been (the row's last order time, answered by the upsert, is
  not later than the order's) costs a second statement, which takes the last paid order's
  time again from the orders: it runs after the upsert locked the row, so it sees every
  order whose difference the row holds (a subquery of the upsert itself would read the
  orders as they were when the upsert started, before it waited for the lock). An order
  whose counted figures did not change costs nothing.
- `refresh(keys)` recounts rows from the orders (the listeners' fallback when they do not
  know what the order counted before: it was read with deferred fields, or saved without
  having been read; and every deletion): the row is first made and locked (an upsert),
  then set from that customer's paid orders by a later statement, which sees whatever a
  concurrent writer committed while this one waited. A row left with a negative count
  (the rollup was behind the orders: a bulk load not yet counted) is recounted the same way.
- `rebuild` (the `rebuild_crm_rollups` command, the migration's back-fill) recounts every row
  from the orders, under a table lock that the writers wait for.

Every change tells erp.crm.rfm_cache which currencies changed (their cached rankings are
dropped when the transaction commits).

Orders written in bulk around the services (bulk_create, queryset.update) send no signal:
run `rebuild_crm_rollups` after such a load.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from django.apps import apps as installed_apps
from django.db import connections, router, transaction
from django.db.models import Count, Max, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from erp.crm import rfm_cache
from erp.crm.models import CustomerRfm
from store.customers.models import Customer
from store.orders.choices import TERMINAL, OrderStatus, PaymentStatus
from store.orders.models import Order

ZERO = Decimal("0.00")
#: The Order fields a save must touch to change what the rollup counts.
COUNTED_FIELDS = frozenset(
    {"customer", "customer_id", "currency", "status", "payment_status", "total", "created_at"}
)
CHUNK = 2000

Key = tuple[int, str]
#: What an order adds to its customer's row: ((customer id, currency), total, created_at);
#: None when it adds nothing.
Counted = tuple[Key, Decimal, datetime] | None

# --- The rule: which orders count as sales ------------------------------------------------------

#: Payment statuses that make an order count (with any status but a terminal one).
PAID_PAYMENTS = (PaymentStatus.PAID, PaymentStatus.PARTIALLY_REFUNDED)
#: The status that makes an order count whatever its payment status.
COUNTED_STATUS = OrderStatus.COMPLETED


def is_paid(status: str, payment_status: str) -> bool:
    """`paid_q` for an order in hand: paid (or partly refunded) or completed, and not
    cancelled, refunded or failed."""
    return (payment_status in PAID_PAYMENTS or status == COUNTED_STATUS) and status not in TERMINAL


def paid_q(prefix: str = "") -> Q:
    """Orders that count as sales for the CRM (`is_paid` in SQL): paid (or partly refunded)
    or completed, and not cancelled, refunded or failed."""
    return (
        Q(**{f"{prefix}payment_status__in": PAID_PAYMENTS})
        | Q(**{f"{prefix}status": COUNTED_STATUS})
    ) & ~Q(**{f"{prefix}status__in": tuple(sorted(TERMINAL))})


def counted(
    customer_id: int | None,
    currency: str | None,
    status: str,
    payment_status: str,
    total: Decimal,
    created_at: datetime,
) -> Counted:
    """What an order with these values adds to the rollup."""
    if customer_id is None or not currency or not is_paid(status, payment_status):
        return None
    return (customer_id, currency), total, created_at


# --- Writes -------------------------------------------------------------------------------------


def _keys(keys: Iterable[tuple[int | None, str | None]]) -> list[Key]:
    return sorted({(int(c), str(cur)) for c, cur in keys if c is not None and cur})


def moved(before: Counted, after: Counted) -> None:
    """Apply what a saved order counted `before` and counts `after`: nothing when they are
    the same, else one upsert (and, when the order may have been its row's last, a second
    statement for the row's last order time)."""
    if before == after:
        return
    # key -> [count change, sum change, time of the order that enters, of the one that leaves]
    changes: dict[Key, list[Any]] = {}
    if before is not None:
        key, total, at = before
        changes[key] = [-1, -total, None, at]
    if after is not None:
        key, total, at = after
        change = changes.setdefault(key, [0, ZERO, None, None])
        change[0] += 1
        change[1] += total
        change[2] = at
        if change[3] is not None and not at < change[3]:  # the later time stays: no recount
            change[3] = None
    recount, last_again = [], []
    for customer_id, currency, frequency, last in _add(changes):
        key = (customer_id, currency)
        leaving = changes[key][3]
        if frequency < 0:
            recount.append(key)
        elif leaving is not None and (last is None or _moment(last) <= leaving):
            last_again.append(key)
    if last_again:
        # the latest first (the orders' index on customer and time): no scan of the others
        last = _paid_of_row().order_by("-created_at").values("created_at")[:1]
        CustomerRfm.objects.filter(_matching(last_again)).update(last_order_at=Subquery(last))
    if recount:
        refresh(recount)
    rfm_cache.changed(currency for _customer, currency in changes)


def _add(changes: dict[Key, list[Any]]) -> list[tuple]:
    """INSERT ... SELECT ... ON CONFLICT DO UPDATE: add each key's changes to its row (made for
    a customer that still exists when missing), in key order; answers (customer id, currency,
    count, last order time as stored) of each row written."""
    connection = connections[router.db_for_write(CustomerRfm)]
    quote = connection.ops.quote_name
    table = quote(CustomerRfm._meta.db_table)
    customers = quote(Customer._meta.db_table)
    if connection.vendor == "postgresql":  # typed: an untyped NULL would read as text
        one = (
            "SELECT %s::bigint AS customer_id, %s::varchar AS currency, %s::integer AS "
            "frequency, %s::numeric AS monetary, %s::timestamptz AS last_order_at"
        )
    else:
        one = (
            "SELECT %s AS customer_id, %s AS currency, %s AS frequency, %s AS monetary, "
            "%s AS last_order_at"
        )
    keys = sorted(changes)
    wanted = " UNION ALL ".join([one] * len(keys))
    adapt_money = connection.ops.adapt_decimalfield_value
    adapt_time = connection.ops.adapt_datetimefield_value
    params: list[Any] = []
    for key in keys:
        frequency, monetary, entering, _leaving = changes[key]
        params += [*key, frequency, adapt_money(monetary, 18, 2), adapt_time(entering)]
    sql = (
        f"INSERT INTO {table} (customer_id, currency, frequency, monetary, last_order_at) "  # noqa: S608 - our own table names
        "SELECT c.id, k.currency, k.frequency, k.monetary, k.last_order_at "
        f"FROM {customers} c JOIN ({wanted}) k ON k.customer_id = c.id "
        # SQLite reads ON CONFLICT after a bare SELECT as a join's ON: the WHERE settles it
        "WHERE 1 = 1 ORDER BY c.id, k.currency "
        "ON CONFLICT (customer_id, currency) DO UPDATE SET "
        f"frequency = {table}.frequency + excluded.frequency, "
        # rounded: SQLite keeps decimals as floats, whose sums would drift from the totals'
        f"monetary = ROUND({table}.monetary + excluded.monetary, 2), "
        "last_order_at = CASE WHEN excluded.last_order_at IS NOT NULL AND "
        f"({table}.last_order_at IS NULL OR excluded.last_order_at > {table}.last_order_at) "
        f"THEN excluded.last_order_at ELSE {table}.last_order_at END "
        "RETURNING customer_id, currency, frequency, last_order_at"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _moment(value: datetime | str) -> datetime:
    """A time as a raw cursor answers it (SQLite: naive UTC, or text), aware."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if timezone.is_aware(value) else value.replace(tzinfo=UTC)


def _paid_of_row():
    """The paid orders of the rollup row an outer query reads."""
    return (
        Order.objects.filter(
            paid_q(), customer_id=OuterRef("customer_id"), currency=OuterRef("currency")
        )
        .order_by()
        .values("customer_id")
    )


def _matching(keys: Iterable[Key]) -> Q:
    matching = Q(pk__in=[])
    for customer_id, currency in keys:
        matching |= Q(customer_id=customer_id, currency=currency)
    return matching


def refresh(keys: Iterable[tuple[int | None, str | None]]) -> None:
    """Recount the rows of `keys` ((customer id, currency); None parts are skipped) from the
    orders: two statements whatever the customers' number of orders."""
    wanted = _keys(keys)
    if not wanted:
        return
    # no savepoint of its own (two round trips fewer): a failure here fails the write
    with transaction.atomic(savepoint=False):
        _lock_rows(wanted)
        paid = _paid_of_row()
        CustomerRfm.objects.filter(_matching(wanted)).update(
            frequency=Coalesce(Subquery(paid.annotate(n=Count("pk")).values("n")), 0),
            monetary=Coalesce(Subquery(paid.annotate(s=Sum("total")).values("s")), Value(ZERO)),
            last_order_at=Subquery(paid.annotate(at=Max("created_at")).values("at")),
        )
    rfm_cache.changed(currency for _customer, currency in wanted)


def _lock_rows(keys: list[Key]) -> None:
    """Make the rows of `keys` (of customers that still exist) and lock them, in key order:
    INSERT ... SELECT ... ON CONFLICT DO UPDATE (PostgreSQL and SQLite alike)."""
    connection = connections[router.db_for_write(CustomerRfm)]
    quote = connection.ops.quote_name
    table = quote(CustomerRfm._meta.db_table)
    customers = quote(Customer._meta.db_table)
    wanted = " UNION ALL ".join(["SELECT %s AS customer_id, %s AS currency"] * len(keys))
    sql = (
        f"INSERT INTO {table} (customer_id, currency, frequency, monetary, last_order_at) "  # noqa: S608 - our own table names
        f"SELECT c.id, k.currency, 0, 0, NULL FROM {customers} c "
        f"JOIN ({wanted}) k ON k.customer_id = c.id "
        # SQLite reads ON CONFLICT after a bare SELECT as a join's ON: the WHERE settles it
        "WHERE 1 = 1 ORDER BY c.id, k.currency "
        f"ON CONFLICT (customer_id, currency) DO UPDATE SET frequency = {table}.frequency"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [value for key in keys for value in key])


def rebuild(apps: Any = installed_apps, using: str | None = None) -> int:
    """Recount every row from the orders (idempotent), in one transaction; answers the number
    of rows. `apps` is the app registry to take the models from and `using` the database (a
    migration passes its historical registry and its connection)."""
    rfm_model = apps.get_model("erp_crm", "CustomerRfm")
    order_model = apps.get_model("store_orders", "Order")
    using = using or router.db_for_write(rfm_model)
    connection = connections[using]
    with transaction.atomic(using=using):
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                table = connection.ops.quote_name(rfm_model._meta.db_table)
                # refreshes (ROW EXCLUSIVE) wait until the recount commits, then recount
                # their own rows again
                cursor.execute(f"LOCK TABLE {table} IN SHARE ROW EXCLUSIVE MODE")
        currencies_of = rfm_model.objects.using(using).order_by()
        currencies = set(currencies_of.values_list("currency", flat=True).distinct())
        rfm_model.objects.using(using).all().delete()
        rows = (
            order_model.objects.using(using)
            .filter(paid_q(), customer__isnull=False)
            .values("customer_id", "currency")
            .annotate(frequency=Count("pk"), monetary=Sum("total"), last=Max("created_at"))
            .order_by("customer_id", "currency")
        )
        made = 0
        batch: list = []
        for row in rows.iterator(chunk_size=CHUNK):
            batch.append(
                rfm_model(
                    customer_id=row["customer_id"],
                    currency=row["currency"],
                    frequency=row["frequency"],
                    monetary=row["monetary"],
                    last_order_at=row["last"],
                )
            )
            if len(batch) >= CHUNK:
                rfm_model.objects.using(using).bulk_create(batch)
                made, batch = made + len(batch), []
        rfm_model.objects.using(using).bulk_create(batch)
        currencies |= set(currencies_of.values_list("currency", flat=True).distinct())
        rfm_cache.changed(currencies)
    return made + len(batch)
