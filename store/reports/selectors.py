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

Queries: one for the orders of both periods (conditional aggregates), one for the customers of
both, one for the top products, two each for low-stock products and variants (count, rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from django.db.models import Count, F, Max, Q, Sum, Value
from django.db.models.functions import Coalesce

from store.catalog.choices import ProductStatus, ProductType
from store.catalog.models import Product, Variant
from store.common.money import money
from store.customers.models import Customer
from store.orders.choices import SALES
from store.orders.models import Order, OrderItem
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


def _percent_change(current, previous) -> str | None:
    if not previous:
        return None
    change = (Decimal(current) - Decimal(previous)) * 100 / Decimal(previous)
    return format(change.quantize(Decimal("0.1")), "f")


def _order_totals(period: Period, previous: Period, currency: str) -> tuple[dict, dict]:
    current_q = Q(created_at__gte=period.start, created_at__lt=period.end)
    previous_q = Q(created_at__gte=previous.start, created_at__lt=previous.end)
    aggregates = {}
    for key, q in (("cur", current_q), ("prev", previous_q)):
        aggregates[f"{key}_orders"] = Count("id", filter=q)
        aggregates[f"{key}_gross"] = Sum("total", filter=q)
        aggregates[f"{key}_refunds"] = Sum("amount_refunded", filter=q)
        aggregates[f"{key}_items"] = Sum("item_count", filter=q)
    row = Order.objects.filter(
        currency=currency,
        status__in=SALES,
        created_at__gte=previous.start,
        created_at__lt=period.end,
    ).aggregate(**aggregates)

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


def _new_customers(period: Period, previous: Period) -> tuple[int, int]:
    row = Customer.objects.filter(
        created_at__gte=previous.start, created_at__lt=period.end
    ).aggregate(
        cur=Count("id", filter=Q(created_at__gte=period.start)),
        prev=Count("id", filter=Q(created_at__lt=previous.end)),
    )
    return row["cur"], row["prev"]


def top_products(period: Period, currency: str, limit: int) -> list[dict]:
    rows = (
        OrderItem.objects.filter(
            order__currency=currency,
            order__status__in=SALES,
            order__created_at__gte=period.start,
            order__created_at__lt=period.end,
            product__isnull=False,
        )
        .values("product_id")
        .annotate(
            title=Max("title"),
            quantity=Sum("quantity"),
            revenue=Sum("total"),
            orders=Count("order_id", distinct=True),
        )
        .order_by("-quantity", "-revenue", "product_id")[:limit]
    )
    return [
        {
            "product_id": row["product_id"],
            "title": row["title"],
            "quantity": row["quantity"],
            "revenue": money(row["revenue"] or 0),
            "orders": row["orders"],
        }
        for row in rows
    ]


def low_stock(*, default_threshold: int, limit: int) -> dict:
    """Tracked stock items at or below their threshold, the emptiest first."""
    products = (
        Product.objects.filter(type=ProductType.SIMPLE, track_inventory=True)
        .exclude(status=ProductStatus.ARCHIVED)
        .annotate(threshold=Coalesce("low_stock_threshold", Value(default_threshold)))
        .filter(stock_quantity__lte=F("threshold"))
    )
    variants = (
        Variant.objects.filter(track_inventory=True, enabled=True)
        .exclude(product__status=ProductStatus.ARCHIVED)
        .annotate(threshold=Coalesce("product__low_stock_threshold", Value(default_threshold)))
        .filter(stock_quantity__lte=F("threshold"))
    )
    counts = {
        "products": products.aggregate(
            n=Count("id"), out=Count("id", filter=Q(stock_quantity__lte=0))
        ),
        "variants": variants.aggregate(
            n=Count("id"), out=Count("id", filter=Q(stock_quantity__lte=0))
        ),
    }
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
    current_totals, previous_totals = _order_totals(period, previous, currency)
    current_totals["new_customers"], previous_totals["new_customers"] = _new_customers(
        period, previous
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
        "top_products": top_products(period, currency, top),
        "low_stock": low_stock(default_threshold=default_threshold, limit=low_stock_limit),
    }


def store_currency() -> str:
    return settings_selectors.get_value("currency", "currency")


def store_low_stock_threshold() -> int:
    return settings_selectors.get_value("inventory", "low_stock_threshold")
