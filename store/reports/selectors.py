"""The dashboard's figures for a period and the one before it, in a fixed number of queries.

What counts (docs/decisions/store-api.md, "Managers, roles and the dashboard"):
- Sales are the orders in processing, shipped or completed (store.orders.choices.SALES, as the
  order stats count them), by the day they were placed (UTC), in one currency (the store's
  unless asked). Pending, on-hold, cancelled, failed and refunded orders are not sales.
- gross_sales is the sum of their totals; refunds the completed refunds recorded on them,
  negative (money going back, as in every list of payments); revenue = gross_sales + refunds;
  average_order_value = revenue / orders.
- new_customers: customer records created in the period (guests included).
- top_products: by units sold in the period's sales (line totals as revenue); lines whose
  product has been deleted are left out.
- low_stock: tracked simple products and enabled tracked variants (not archived) at or below
  their low-stock threshold (the product's, else the store's inventory setting).

Where the figures come from: the days before the watermark (store.reports.rollups: every day
before today, once closed) are read from the rollups, a few blocks of days per period whatever
the number of orders; the days from the watermark on (today) from the rows. The answer is the
same either way.

Queries: the watermark; for the orders of both periods one on the rollups and one on the rows
(conditional aggregates); the same for the customers; one for the top products (rollups and rows
in one UNION ALL); two each for low-stock products and variants (count, rows). A period without
closed days skips its rollup queries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import Count, F, Max, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce, Greatest

from store.catalog.choices import ProductStatus, ProductType
from store.catalog.models import Product, Variant
from store.common.money import money
from store.customers.models import Customer
from store.orders.choices import SALES
from store.orders.models import Order, OrderItem
from store.reports import rollups
from store.reports.models import (
    MAX_LEVEL,
    CustomerRollup,
    OrderRollup,
    ProductRollup,
    block_key,
)
from store.settings import selectors as settings_selectors

PERIODS = ("today", "7d", "30d", "month", "year", "custom")
MAX_DAYS = 3660  # a custom period spans at most ten years
EARLIEST = date(1900, 1, 1)
LATEST = date(9998, 12, 31)


@dataclass(frozen=True)
class Period:
    name: str
    date_from: date
    date_to: date  # inclusive

    @property
    def days(self) -> int:
        return (self.date_to - self.date_from).days + 1

    @property
    def start(self) -> datetime:
        return datetime.combine(self.date_from, time.min, tzinfo=UTC)

    @property
    def end(self) -> datetime:
        """Exclusive: midnight after the last day."""
        return datetime.combine(self.date_to + timedelta(days=1), time.min, tzinfo=UTC)

    def previous(self) -> Period:
        """The period of the same length just before."""
        last = self.date_from - timedelta(days=1)
        return Period("previous", last - timedelta(days=self.days - 1), last)

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "date_from": self.date_from.isoformat(),
            "date_to": self.date_to.isoformat(),
            "days": self.days,
        }


def period_for(
    name: str, *, today: date, date_from: date | None = None, date_to: date | None = None
) -> Period:
    """The days of a named period, up to and including `today` (custom: the dates given)."""
    if name == "custom":
        return Period(name, date_from, date_to)
    starts = {
        "today": today,
        "7d": today - timedelta(days=6),
        "30d": today - timedelta(days=29),
        "month": today.replace(day=1),
        "year": today.replace(month=1, day=1),
    }
    return Period(name, starts[name], today)


# --- Rollups and rows: where a range of days is read from -----------------------------------------


@dataclass(frozen=True)
class Cut:
    """Days first..last cut at the watermark: `closed`, the rollup blocks of the days before it
    (a filter on level and start; None when the range has none), and `rows`, whether days from
    it on are in the range, read from the rows created from `rows_from` (None: no bound)."""

    closed: Q | None
    rows: bool
    rows_from: datetime | None


def blocks_q(first: int | None, last: int) -> Q:
    """Rollup rows of the blocks that cover days first..last (first None: every day up to
    last, as whole top-level blocks and the blocks after the last of them): one IN list."""
    query = Q()
    if first is None:
        size = 1 << MAX_LEVEL
        first = (last + 1) - (last + 1) % size
        query = Q(level=MAX_LEVEL, start__lt=first)
    found = [block_key(level, start) for level, start in rollups.blocks(first, last)]
    return query | Q(block__in=found) if query else Q(block__in=found)


def cut(first: date | None, last: date | None, watermark: date | None) -> Cut:
    """The days first..last (None: unbounded) cut at the watermark (None: nothing closed)."""
    if watermark is None:
        return Cut(None, True, rollups.midnight(first) if first else None)
    closed_last = rollups.day_number(watermark) - 1
    if last is not None:
        closed_last = min(closed_last, rollups.day_number(last))
    lowest = rollups.day_number(first) if first else None
    closed = blocks_q(lowest, closed_last) if lowest is None or lowest <= closed_last else None
    rows = last is None or last >= watermark
    rows_from = rollups.midnight(max(first, watermark) if first else watermark)
    return Cut(closed, rows, rows_from if rows else None)


def _rows_start(start: datetime, cuts: dict[str, Cut]) -> datetime:
    """Where the rows of both periods (the previous one first) start: one lower bound, so
    that the index on the date reads only those days."""
    opened = cuts["prev"] if cuts["prev"].rows else cuts["cur"]
    return max(start, opened.rows_from) if opened.rows_from else start


def _percent_change(current, previous) -> str | None:
    if not previous:
        return None
    change = (Decimal(current) - Decimal(previous)) * 100 / Decimal(previous)
    return format(change.quantize(Decimal("0.1")), "f")


def _order_totals(
    period: Period, previous: Period, currency: str, watermark: date | None
) -> tuple[dict, dict]:
    cuts = {"cur": cut(period.date_from, period.date_to, watermark)}
    cuts["prev"] = cut(previous.date_from, previous.date_to, watermark)
    names = ("orders", "gross", "refunds", "items")
    row = dict.fromkeys((f"{key}_{name}" for key in cuts for name in names), 0)
    if cuts["cur"].rows or cuts["prev"].rows:
        windows = {
            "cur": Q(created_at__gte=period.start, created_at__lt=period.end),
            "prev": Q(created_at__gte=previous.start, created_at__lt=previous.end),
        }
        aggregates = {}
        for key, q in windows.items():
            aggregates[f"{key}_orders"] = Count("id", filter=q)
            aggregates[f"{key}_gross"] = Sum("total", filter=q)
            aggregates[f"{key}_refunds"] = Sum("amount_refunded", filter=q)
            aggregates[f"{key}_items"] = Sum("item_count", filter=q)
        orders = Order.objects.filter(
            currency=currency,
            status__in=SALES,
            created_at__gte=_rows_start(previous.start, cuts),
            created_at__lt=period.end,
        )
        found = orders.aggregate(**aggregates)
        row = {name: value or 0 for name, value in found.items()}
    closed = {key: c.closed for key, c in cuts.items() if c.closed is not None}
    if closed:
        sums: dict[str, Sum] = {}
        for key, q in closed.items():
            sums[f"{key}_orders"] = Sum("orders", filter=q)
            sums[f"{key}_gross"] = Sum("total", filter=q)
            sums[f"{key}_refunds"] = Sum("amount_refunded", filter=q)
            sums[f"{key}_items"] = Sum("items", filter=q)
        either = Q()
        for q in closed.values():
            either |= q
        rolled = OrderRollup.objects.filter(either, currency=currency, status__in=SALES)
        found = rolled.aggregate(**sums)
        for name, value in found.items():
            row[name] += value or 0

    def block(key: str) -> dict:
        orders = row[f"{key}_orders"] or 0
        gross = money(row[f"{key}_gross"] or 0)
        refunds = money(0) - money(row[f"{key}_refunds"] or 0)  # money going back: negative
        revenue = gross + refunds
        return {
            "revenue": revenue,
            "gross_sales": gross,
            "refunds": refunds,
            "orders": orders,
            "average_order_value": money(revenue / orders) if orders else money(0),
            "items_sold": row[f"{key}_items"] or 0,
        }

    return block("cur"), block("prev")


def _new_customers(period: Period, previous: Period, watermark: date | None) -> tuple[int, int]:
    cuts = {"cur": cut(period.date_from, period.date_to, watermark)}
    cuts["prev"] = cut(previous.date_from, previous.date_to, watermark)
    counts = {"cur": 0, "prev": 0}
    if cuts["cur"].rows or cuts["prev"].rows:
        customers = Customer.objects.filter(
            created_at__gte=_rows_start(previous.start, cuts), created_at__lt=period.end
        )
        row = customers.aggregate(
            cur=Count("id", filter=Q(created_at__gte=period.start)),
            prev=Count("id", filter=Q(created_at__lt=previous.end)),
        )
        counts = {key: row[key] or 0 for key in counts}
    closed = {key: c.closed for key, c in cuts.items() if c.closed is not None}
    if closed:
        either = Q()
        for q in closed.values():
            either |= q
        row = CustomerRollup.objects.filter(either).aggregate(
            **{key: Sum("customers", filter=q) for key, q in closed.items()}
        )
        for key, value in row.items():
            counts[key] += value or 0
    return counts["cur"], counts["prev"]


def top_products(
    period: Period, currency: str, limit: int, watermark: date | None = None
) -> list[dict]:
    span = cut(period.date_from, period.date_to, watermark)
    sold = (
        OrderItem.objects.filter(
            order__currency=currency,
            order__status__in=SALES,
            order__created_at__gte=span.rows_from or period.start,
            order__created_at__lt=period.end,
            product__isnull=False,
        )
        .values("product_id")
        .annotate(
            top_title=Max("title"),
            units=Sum("quantity"),
            amount=Sum("total"),
            buyers=Count("order_id", distinct=True),
        )
        .values_list("product_id", "top_title", "units", "amount", "buyers")
        .order_by()
    )
    rows: Iterable[tuple[Any, ...]]
    if span.closed is None:
        rows = sold.order_by("-units", "-amount", "product_id")[:limit]
    else:
        rows = _top_of_both(span, sold, currency, limit)
    return [
        {
            "product_id": product_id,
            "title": title,
            "quantity": int(quantity),  # a SUM of bigints is numeric on PostgreSQL
            "revenue": money(revenue or 0),
            "orders": int(orders),
        }
        for product_id, title, quantity, revenue, orders in rows
    ]


def _top_of_both(
    span: Cut, sold: QuerySet[Any, Any], currency: str, limit: int
) -> list[tuple[Any, ...]]:
    """The top products of the rollups' blocks and of the rows after them, summed and ranked
    by the database in one query (the greatest title by the database's own ordering)."""
    parts = [
        ProductRollup.objects.filter(span.closed, currency=currency, lines__gt=0)
        .values("product_id")
        .annotate(
            top_title=Max("title"),
            units=Sum("quantity"),
            amount=Sum("revenue"),
            buyers=Sum("orders"),
        )
        .values_list("product_id", "top_title", "units", "amount", "buyers")
        .order_by()
    ]
    if span.rows:
        parts.append(sold)
    sql: list[str] = []
    params: list[Any] = []
    for part in parts:
        part_sql, part_params = part.query.sql_with_params()
        sql.append(part_sql)
        params.extend(part_params)
    # The parts are the ORM's own SQL, their values parameters.
    union = " UNION ALL ".join(f"SELECT * FROM ({p}) AS part{n}" for n, p in enumerate(sql))  # noqa: S608
    query = (
        "SELECT u.product_id, MAX(u.top_title), SUM(u.units), SUM(u.amount), SUM(u.buyers) "  # noqa: S608
        f"FROM ({union}) AS u GROUP BY u.product_id "
        "ORDER BY SUM(u.units) DESC, SUM(u.amount) DESC, u.product_id LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(query, [*params, limit])
        found: list[tuple[Any, ...]] = cursor.fetchall()
    return found


def low_stock(*, default_threshold: int, limit: int) -> dict:
    """Tracked stock items at or below their threshold, the emptiest first.

    Every row's own threshold is at most the highest one set (or the default): that bound,
    one scalar subquery the database runs once, lets the stock-quantity indexes read only the
    low end of the catalogue instead of every product and variant."""
    highest_set = (
        Product.objects.filter(low_stock_threshold__isnull=False)
        .order_by("-low_stock_threshold")
        .values("low_stock_threshold")[:1]
    )
    bound = Greatest(
        Value(default_threshold), Coalesce(Subquery(highest_set), Value(default_threshold))
    )
    products = (
        Product.objects.filter(type=ProductType.SIMPLE, track_inventory=True)
        .exclude(status=ProductStatus.ARCHIVED)
        .filter(stock_quantity__lte=bound)
        .annotate(threshold=Coalesce("low_stock_threshold", Value(default_threshold)))
        .filter(stock_quantity__lte=F("threshold"))
    )
    variants = (
        Variant.objects.filter(track_inventory=True, enabled=True)
        .exclude(product__status=ProductStatus.ARCHIVED)
        .filter(stock_quantity__lte=bound)
        .annotate(threshold=Coalesce("product__low_stock_threshold", Value(default_threshold)))
        .filter(stock_quantity__lte=F("threshold"))
    )
    counts = {"products": {"n": 0, "out": 0}, "variants": {"n": 0, "out": 0}}
    # both counts in one query: a row per kind (none for a kind without a low item)
    per_kind = [
        rows.annotate(kind=Value(kind))
        .values("kind")
        .annotate(n=Count("id"), out=Count("id", filter=Q(stock_quantity__lte=0)))
        .values_list("kind", "n", "out")
        .order_by()
        for kind, rows in (("products", products), ("variants", variants))
    ]
    for kind, n, out in per_kind[0].union(per_kind[1], all=True):
        counts[kind] = {"n": n, "out": out}
    items = []
    if limit:
        for product in products.order_by("stock_quantity", "id").values(
            "id", "title", "sku", "stock_quantity", "stock_status", "threshold"
        )[:limit]:
            items.append(
                {
                    "product_id": product["id"],
                    "variant_id": None,
                    "title": product["title"],
                    "sku": product["sku"],
                    "stock_quantity": product["stock_quantity"],
                    "stock_status": product["stock_status"],
                    "low_stock_threshold": product["threshold"],
                }
            )
        for variant in variants.order_by("stock_quantity", "id").values(
            "id",
            "product_id",
            "product__title",
            "title",
            "sku",
            "stock_quantity",
            "stock_status",
            "threshold",
        )[:limit]:
            title = variant["product__title"]
            if variant["title"]:
                title = f"{title} - {variant['title']}"
            items.append(
                {
                    "product_id": variant["product_id"],
                    "variant_id": variant["id"],
                    "title": title,
                    "sku": variant["sku"],
                    "stock_quantity": variant["stock_quantity"],
                    "stock_status": variant["stock_status"],
                    "low_stock_threshold": variant["threshold"],
                }
            )
        items.sort(
            key=lambda item: (item["stock_quantity"], item["product_id"], item["variant_id"] or 0)
        )
    return {
        "count": counts["products"]["n"] + counts["variants"]["n"],
        "out_of_stock_count": counts["products"]["out"] + counts["variants"]["out"],
        "default_threshold": default_threshold,
        "items": items[:limit],
    }


def dashboard_stats(
    *,
    period: Period,
    currency: str,
    default_threshold: int,
    top: int = 5,
    low_stock_limit: int = 10,
) -> dict:
    previous = period.previous()
    watermark = rollups.closed_until()
    current_totals, previous_totals = _order_totals(period, previous, currency, watermark)
    current_totals["new_customers"], previous_totals["new_customers"] = _new_customers(
        period, previous, watermark
    )
    change = {
        key: _percent_change(current_totals[key], previous_totals[key]) for key in current_totals
    }
    return {
        "period": period.as_dict(),
        "previous_period": {**previous.as_dict(), "name": "previous"},
        "currency": currency,
        "totals": current_totals,
        "previous": previous_totals,
        "change": change,
        "top_products": top_products(period, currency, top, watermark),
        "low_stock": low_stock(default_threshold=default_threshold, limit=low_stock_limit),
    }


def store_currency() -> str:
    return settings_selectors.get_value("currency", "currency")


def store_low_stock_threshold() -> int:
    return settings_selectors.get_value("inventory", "low_stock_threshold")
