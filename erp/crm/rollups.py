"""RFM's rollup (CustomerRfm): each store customer's paid orders per currency, counted once
when an order is written instead of on every request, so that /crm/rfm ranks one row per
customer whatever the number of orders.

One rule, one place: which orders count (`paid_q`) and how a customer's row is recounted.

- The store never imports the ERP: its order services save and delete Order rows, and the
  model signals (erp.crm.listeners) call `refresh` with the customer and currency the order
  had when it was read and the ones it has now, inside the writing transaction. A save whose
  `update_fields` touch none of the counted fields (stock, fulfilment, the number) is skipped.
- `refresh` recounts the named rows from the orders, not by adding differences: a customer's
  row first exists and is locked (an upsert), then is set from that customer's paid orders.
  A concurrent writer of the same customer waits at the upsert until the first commits, and
  its recount (a later statement) then sees the other's orders: no update is lost, and a
  failed savepoint leaves the row as the orders it rolled back left it.
- `rebuild` (the `rebuild_crm_rollups` command, the migration's back-fill) recounts every row
  from the orders, under a table lock that the refreshes wait for.

Orders written in bulk around the services (bulk_create, queryset.update) send no signal:
run `rebuild_crm_rollups` after such a load.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.apps import apps as installed_apps
from django.db import connections, router, transaction
from django.db.models import Count, Max, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Coalesce

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


def paid_q(prefix: str = "") -> Q:
    """Orders that count as sales for the CRM: paid (or partly refunded) or completed, and
    not cancelled, refunded or failed."""
    return (
        Q(**{f"{prefix}payment_status__in": (PaymentStatus.PAID, PaymentStatus.PARTIALLY_REFUNDED)})
        | Q(**{f"{prefix}status": OrderStatus.COMPLETED})
    ) & ~Q(**{f"{prefix}status__in": tuple(TERMINAL)})


def _keys(keys: Iterable[tuple[int | None, str | None]]) -> list[Key]:
    return sorted({(int(c), str(cur)) for c, cur in keys if c is not None and cur})


def refresh(keys: Iterable[tuple[int | None, str | None]]) -> None:
    """Recount the rows of `keys` ((customer id, currency); None parts are skipped) from the
    orders: three statements whatever the customers' number of orders."""
    wanted = _keys(keys)
    if not wanted:
        return
    # no savepoint of its own (two round trips fewer): a failure here fails the write
    with transaction.atomic(savepoint=False):
        _lock_rows(wanted)
        paid = (
            Order.objects.filter(
                paid_q(), customer_id=OuterRef("customer_id"), currency=OuterRef("currency")
            )
            .order_by()
            .values("customer_id")
        )
        matching = Q(pk__in=[])
        for customer_id, currency in wanted:
            matching |= Q(customer_id=customer_id, currency=currency)
        CustomerRfm.objects.filter(matching).update(
            frequency=Coalesce(Subquery(paid.annotate(n=Count("pk")).values("n")), 0),
            monetary=Coalesce(Subquery(paid.annotate(s=Sum("total")).values("s")), Value(ZERO)),
            last_order_at=Subquery(paid.annotate(at=Max("created_at")).values("at")),
        )


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
    return made + len(batch)
