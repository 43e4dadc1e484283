"""The stock movements summed per warehouse and closed UTC day (store.inventory.models:
StockDayRollup, StockRollupWatermark), and the sums over a period read from them.

Movements are never changed or deleted, so a day's sums never change once every movement of
that day is committed: a day is written once, when it is closed, and never again. Nothing in
the services that write movements knows of the rollups:

- `close_days` (the hourly task `store_inventory.close_stock_days`) counts the days from the
  watermark to `cutoff()` and moves the watermark there, under a lock of the watermark row:
  two runs never count a day twice, and a second run changes nothing;
- `rebuild` (the `rebuild_stock_rollups` command, the migration's back-fill) recounts every
  closed day from the movements in one transaction;
- `flows` answers a period's sums exactly as reading every movement would: the days before
  the watermark from the rollups, the rest (at most a day or so when the task runs) from the
  movements, by their created_at index.

Which days may be closed: a movement's `created_at` is taken inside its transaction, which
may commit later. `cutoff()` closes only days that ended a margin ago (MARGIN), and on
PostgreSQL none after the start of the oldest transaction still open on the database (less the
margin): a movement of a closed day cannot commit after its day was counted.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.apps import apps as global_apps
from django.db import connection, transaction
from django.db.models import Count, Q, Sum
from django.db.models.functions import Coalesce, TruncDate
from django.utils import timezone

from store.inventory.choices import SALE_REASONS

logger = logging.getLogger(__name__)

#: How long after a day ends it may be closed: longer than a transaction that writes
#: movements lasts, and than the clocks of the app servers and the database differ.
MARGIN = timedelta(minutes=10)
#: Rows per INSERT when closing many days at once.
CHUNK = 1000


def midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _models(apps: Any) -> tuple[Any, Any, Any]:
    """(StockMovement, StockDayRollup, StockRollupWatermark) of `apps`: the live models, or a
    migration's historical ones (the back-fill runs this same code)."""
    return (
        apps.get_model("store_inventory", "StockMovement"),
        apps.get_model("store_inventory", "StockDayRollup"),
        apps.get_model("store_inventory", "StockRollupWatermark"),
    )


# --- Which days may be closed --------------------------------------------------------------------


def _oldest_open_transaction() -> datetime | None:
    """When the oldest transaction of another session on this database began (PostgreSQL;
    sessions of roles this one may not see are not counted: the margin covers them)."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT min(xact_start) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND backend_type = 'client backend' AND xact_start IS NOT NULL"
        )
        row = cursor.fetchone()
    return row[0] if row else None


def cutoff(now: datetime | None = None) -> date:
    """The first day that may not be closed yet: the day of (now - MARGIN), held back to the
    day of (the oldest open transaction's start - MARGIN) while one runs from before then."""
    now = now or timezone.now()
    until = (now - MARGIN).astimezone(UTC).date()
    oldest = _oldest_open_transaction()
    if oldest is not None:
        held = (oldest - MARGIN).astimezone(UTC).date()
        if held < until:
            logger.warning(
                "Stock rollups: days from %s stay open while a transaction begun at %s runs.",
                held,
                oldest.isoformat(),
            )
            until = held
    return until


# --- Closing and rebuilding ----------------------------------------------------------------------


def closed_until() -> date | None:
    """The first day not in the rollups (None: no day is). A reader holding an older value
    still answers exactly: closing adds days, it never changes a closed one."""
    _movement, _rollup, watermark = _models(global_apps)
    return watermark.objects.filter(pk=1).values_list("closed_until", flat=True).first()


def close_days(until: date | None = None, *, apps: Any = global_apps) -> date | None:
    """Sum the movements of the days from the watermark to `until` (default and at most
    `cutoff()`) into StockDayRollup and move the watermark there. Idempotent: closed days stay
    as they are, and the watermark row's lock makes a second run wait and then do nothing.
    Answers the watermark."""
    limit = cutoff()
    until = min(until, limit) if until is not None else limit
    movement, rollup, watermark_model = _models(apps)
    with transaction.atomic():
        watermark, _made = watermark_model.objects.select_for_update().get_or_create(pk=1)
        old = watermark.closed_until
        if old is not None and old >= until:
            return old
        movements = movement.objects.filter(created_at__lt=midnight(until))
        if old is not None:
            movements = movements.filter(created_at__gte=midnight(old))
        days = (
            movements.annotate(day=TruncDate("created_at", tzinfo=UTC))
            .values("day", "warehouse_id")
            .annotate(
                net=Sum("quantity"),
                sold=Coalesce(Sum("quantity", filter=Q(reason__in=SALE_REASONS)), 0),
                moves=Count("id"),
            )
            .order_by("day", "warehouse_id")
        )
        rollup.objects.bulk_create(
            (
                rollup(
                    day=row["day"],
                    warehouse_id=row["warehouse_id"],
                    quantity=row["net"],
                    sales_quantity=row["sold"],
                    movements=row["moves"],
                )
                for row in days.iterator(CHUNK)
            ),
            batch_size=CHUNK,
        )
        watermark.closed_until = until
        watermark.save(update_fields=["closed_until", "updated_at"])
    return until


def rebuild(until: date | None = None, *, apps: Any = global_apps) -> date | None:
    """Recount every closed day from the movements (after a restore, or movements written
    straight into the table), then close the days before `until` (default `cutoff()`), in
    one transaction. Answers the watermark."""
    _movement, rollup, watermark_model = _models(apps)
    with transaction.atomic():
        watermark, _made = watermark_model.objects.select_for_update().get_or_create(pk=1)
        rollup.objects.all().delete()
        watermark.closed_until = None
        watermark.save(update_fields=["closed_until", "updated_at"])
        return close_days(until, apps=apps)


# --- Reading a period ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Flows:
    """The movements' sums about a period [date_from, date_to] (UTC days, inclusive)."""

    sold: int  # units sold in it: the orders' movements in it, negated
    within: int  # net of every movement in it
    after: int  # net of every movement after it, to now


def flows(date_from: date, date_to: date, warehouse_id: int | None = None) -> Flows:
    """The sums over the period, whatever the task did: the days before the watermark from
    StockDayRollup (a row per warehouse and day), the rest from the movements (created_at
    index). Three queries: the watermark, the rollups, the movements."""
    movement, rollup, _watermark = _models(global_apps)
    after_day = date_to + timedelta(days=1)
    end = midnight(after_day)
    sums = {"sold": 0, "within": 0, "after": 0}
    since = midnight(date_from)
    watermark = closed_until()
    if watermark is not None and watermark > date_from:
        days = rollup.objects.filter(day__gte=date_from, day__lt=watermark)
        if warehouse_id is not None:
            days = days.filter(warehouse_id=warehouse_id)
        closed = days.aggregate(
            sold=Coalesce(Sum("sales_quantity", filter=Q(day__lt=after_day)), 0),
            within=Coalesce(Sum("quantity", filter=Q(day__lt=after_day)), 0),
            after=Coalesce(Sum("quantity", filter=Q(day__gte=after_day)), 0),
        )
        sums = {name: sums[name] + closed[name] for name in sums}
        since = midnight(watermark)
    movements = movement.objects.filter(created_at__gte=since)
    if warehouse_id is not None:
        movements = movements.filter(warehouse_id=warehouse_id)
    open_days = movements.aggregate(
        sold=Coalesce(Sum("quantity", filter=Q(reason__in=SALE_REASONS, created_at__lt=end)), 0),
        within=Coalesce(Sum("quantity", filter=Q(created_at__lt=end)), 0),
        after=Coalesce(Sum("quantity", filter=Q(created_at__gte=end)), 0),
    )
    sums = {name: sums[name] + open_days[name] for name in sums}
    return Flows(sold=-sums["sold"], within=sums["within"], after=sums["after"])
