"""Customer reads: the staff list (with or without order stats), one customer's orders, stats,
top products and spending per month, saved addresses, and the logged-in customer's overview.

Money sums count the orders that are sales (processing, shipped, completed) in the store's
currency; `orders_count` counts every order of the customer.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.db import connection
from django.db.models import (
    Count,
    DecimalField,
    Exists,
    F,
    FilteredRelation,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce, TruncMonth
from django.utils import timezone

from accounts.models import normalize_email
from store.common.errors import not_found
from store.common.money import money
from store.common.pagination import Page, paginate
from store.customers.models import Customer, CustomerAddress
from store.orders import selectors as order_selectors
from store.orders.choices import SALES, OrderStatus
from store.orders.models import Order, OrderItem
from store.reports import rollups as report_rollups
from store.reports import selectors as report_selectors
from store.reports.models import CustomerRollup, CustomerTotals
from store.settings import selectors as store_settings

ORDERBY = {
    "id": "id",
    "date": "created_at",
    "created_at": "created_at",
    "modified": "updated_at",
    "email": "email",
    "name": "last_name",
}
STATS_ORDERBY = {
    **ORDERBY,
    "orders_count": "orders_count",
    "total_spent": "total_spent",
    "last_order": "last_order_at",
}
STATUSES = ("active", "anonymised", "any")
MONEY = DecimalField(max_digits=14, decimal_places=2)


def store_currency() -> str:
    return str(store_settings.get_value("currency", "currency")).upper()


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _addresses_prefetch() -> Prefetch:
    return Prefetch(
        "addresses",
        queryset=CustomerAddress.objects.filter(is_default=True),
        to_attr="default_addresses",
    )


def filtered(query: dict) -> QuerySet:
    """Customers matching the list's filters (each combines with the others)."""
    queryset = Customer.objects.all()
    status = query.get("status") or "active"
    if status == "active":
        queryset = queryset.filter(anonymised_at__isnull=True)
    elif status == "anonymised":
        queryset = queryset.filter(anonymised_at__isnull=False)
    if query.get("registered") is not None:
        queryset = queryset.filter(user__isnull=not query["registered"])
    if query.get("has_orders") is not None:
        having = Exists(Order.objects.filter(customer_id=OuterRef("pk")))
        queryset = queryset.filter(having if query["has_orders"] else ~having)
    if query.get("date_from"):
        queryset = queryset.filter(created_at__gte=_day_start(query["date_from"]))
    if query.get("date_to"):
        queryset = queryset.filter(created_at__lt=_day_start(query["date_to"] + timedelta(days=1)))
    if query.get("country"):
        with_country = CustomerAddress.objects.filter(address__country=query["country"])
        queryset = queryset.filter(pk__in=with_country.values("customer_id"))
    if query.get("email"):
        queryset = queryset.filter(email=normalize_email(query["email"]))
    for term in (query.get("search") or "").split()[:5]:
        # every word in the e-mail address or a name (trigram indexes on PostgreSQL)
        queryset = queryset.filter(
            Q(email__icontains=term) | Q(first_name__icontains=term) | Q(last_name__icontains=term)
        )
    return queryset


def _ordered(queryset: QuerySet, query: dict, choices: dict) -> QuerySet:
    field = choices.get(query.get("orderby") or "date", "created_at")
    descending = (query.get("order") or "DESC").upper() == "DESC"
    prefix = "-" if descending else ""
    if field == "last_order_at":  # customers without orders last, either way (as on SQLite)
        first = F(field).desc(nulls_last=True) if descending else F(field).asc(nulls_last=True)
        return queryset.order_by(first, f"{prefix}id")
    fields = [f"{prefix}{field}"]
    if field == "last_name":
        fields.append(f"{prefix}first_name")
    return queryset.order_by(*fields, f"{prefix}id")


def customer_page(query: dict) -> Page:
    """A page of the staff list: one COUNT, one query for the rows, one for their default
    addresses."""
    queryset = filtered(query).select_related("user").prefetch_related(_addresses_prefetch())
    return paginate(
        _ordered(queryset, query, ORDERBY), page=query["page"], per_page=query["per_page"]
    )


def with_stats(queryset: QuerySet) -> QuerySet:
    """`queryset` annotated with orders_count, total_spent (sales in the store's currency),
    last_order_at and last_order_id: the counts and sums from the customers' running totals
    (store.reports' CustomerTotals, kept by every order write), the last order from the
    customer's orders (their index); correlated subqueries, so a page is one query."""
    totals = CustomerTotals.objects.filter(customer_id=OuterRef("pk")).order_by()
    count = totals.values("customer_id").annotate(n=Sum("orders")).values("n")
    spent = totals.filter(currency=store_currency()).values("spent")
    last = Order.objects.filter(customer_id=OuterRef("pk")).order_by("-created_at", "-id")
    return queryset.annotate(
        orders_count=Coalesce(Subquery(count, output_field=IntegerField()), Value(0)),
        total_spent=Coalesce(Subquery(spent, output_field=MONEY), Value(0), output_field=MONEY),
        last_order_at=Subquery(last.values("created_at")[:1]),
        last_order_id=Subquery(last.values("pk")[:1]),
    )


#: Orderings whose key is a customer's own column: the page is found on the customers alone,
#: and only its rows get their order stats.
PLAIN_ORDERINGS = frozenset(ORDERBY)


def _sort_keys(queryset: QuerySet[Any, Any], orderby: str) -> QuerySet[Any, Any]:
    """`queryset` with the stat it is ordered by, for every customer: total_spent and
    orders_count joined from the running totals, last_order_at the greatest date of the
    customer's orders: a join on PostgreSQL (a merge join on the orders' index; a subquery
    per customer costs more there), a subquery per customer on SQLite (its index read
    backwards; the join costs more there)."""
    if orderby == "total_spent":
        currency = Q(report_totals__currency=store_currency())
        keyed: QuerySet[Any, Any] = queryset.annotate(
            own_totals=FilteredRelation("report_totals", condition=currency)
        ).annotate(total_spent=Coalesce(F("own_totals__spent"), Value(0), output_field=MONEY))
        return keyed
    if orderby == "orders_count":
        keyed = queryset.annotate(orders_count=Coalesce(Sum("report_totals__orders"), Value(0)))
        return keyed
    if connection.vendor == "postgresql":
        keyed = queryset.annotate(last_order_at=Max("orders__created_at"))
        return keyed
    last = Order.objects.filter(customer_id=OuterRef("pk")).order_by("-created_at")
    keyed = queryset.annotate(last_order_at=Subquery(last.values("created_at")[:1]))
    return keyed


def customers_with_stats_page(query: dict) -> Page:
    """The list with each customer's order stats: one COUNT, one query for the page's rows
    and their stats (the page's ids chosen in a subquery, so that the stats are read for
    those rows only; ordered by a stat, from the running totals of every matching customer),
    one for their default addresses."""
    matching = filtered(query)
    total = matching.count()
    page, per_page = query["page"], query["per_page"]
    start = (page - 1) * per_page
    items = []
    if start < total:
        orderby = query.get("orderby") or "date"
        keyed = matching if orderby in PLAIN_ORDERINGS else _sort_keys(matching, orderby)
        ordered = _ordered(keyed, query, STATS_ORDERBY)
        ids = ordered.values("pk")[start : start + per_page]
        rows = with_stats(Customer.objects.filter(pk__in=ids)).select_related("user")
        rows = rows.prefetch_related(_addresses_prefetch())
        items = list(_ordered(rows, query, STATS_ORDERBY))
    return Page(items=items, page=page, per_page=per_page, total=total)


def customer_get(customer_id: int) -> Customer:
    customer = (
        Customer.objects.select_related("user")
        .prefetch_related(_addresses_prefetch())
        .filter(pk=customer_id)
        .first()
    )
    if customer is None:
        raise not_found("customer", customer_id)
    return customer


def customer_by_email(email: str) -> Customer:
    """The customer with this e-mail address (any case); 404 customer_not_found."""
    normalised = normalize_email(email)
    customer = (
        Customer.objects.select_related("user")
        .prefetch_related(_addresses_prefetch())
        .filter(email=normalised)
        .first()
    )
    if customer is None:
        raise not_found("customer", normalised)
    return customer


def customer_of_user(user) -> Customer | None:
    if user is None or not user.is_authenticated:
        return None
    return Customer.objects.filter(user=user).prefetch_related(_addresses_prefetch()).first()


#: Filters the customer rollups cannot answer: these counts are read from the rows.
ROWS_ONLY = ("country", "email", "search")


def customers_stats(query: dict) -> dict:
    """Counts over the customers matching the list's filters (status, registered, dates...):
    all, registered, guests, with and without orders, anonymised, new in the last 30 days.

    Customers created before the reports' watermark are counted from their rollups
    (store.reports: a few blocks of days), the others (and, for new_last_30_days, those of
    the day 30 days ago) from the rows; a country, e-mail or search filter reads the rows."""
    query = {**query, "status": query.get("status") or "any"}
    since = timezone.now() - timedelta(days=30)
    if any(query.get(name) for name in ROWS_ONLY):
        counts = _customer_counts(filtered(query), since)
    else:
        counts = _customer_counts_rolled_up(query, since)
    return {
        "total": counts["total"],
        "registered": counts["registered"],
        "guests": counts["total"] - counts["registered"],
        "with_orders": counts["with_orders"],
        "without_orders": counts["total"] - counts["with_orders"],
        "anonymised": counts["anonymised"],
        "new_last_30_days": counts["new_last_30_days"],
    }


def _customer_counts(
    matching: QuerySet[Any, Any], since: datetime, counted: Q | None = None
) -> dict[str, int]:
    """The counts of `matching` (of the rows in `counted` only, but new_last_30_days of all)."""
    having = Exists(Order.objects.filter(customer_id=OuterRef("pk")))
    counted = counted or Q()
    row = matching.aggregate(
        total=Count("id", filter=counted),
        registered=Count("id", filter=counted & Q(user__isnull=False)),
        with_orders=Count("id", filter=counted & Q(having)),
        anonymised=Count("id", filter=counted & Q(anonymised_at__isnull=False)),
        new_last_30_days=Count("id", filter=Q(created_at__gte=since)),
    )
    return {name: value or 0 for name, value in row.items()}


def _customer_counts_rolled_up(query: dict[str, Any], since: datetime) -> dict[str, int]:
    watermark = report_rollups.closed_until()
    first, last = query.get("date_from"), query.get("date_to")
    span = report_selectors.cut(first, last, watermark)
    counts = dict.fromkeys(
        ("total", "registered", "with_orders", "anonymised", "new_last_30_days"), 0
    )
    # The rows: customers from the watermark on, and those of the day 30 days ago (a part of
    # a closed day) for new_last_30_days.
    since_day = since.astimezone(UTC).date()
    partial = None
    if watermark is not None and since_day < watermark:
        partial = Q(created_at__gte=since, created_at__lt=_day_start(since_day + timedelta(days=1)))
    if span.rows or partial is not None:
        matching = filtered(query)
        opened = Q(created_at__gte=span.rows_from) if span.rows_from else Q()
        rows = opened if span.rows else Q(pk__in=[])
        if partial is not None:
            matching = matching.filter(rows | partial)
        elif span.rows_from is not None:
            matching = matching.filter(opened)
        found = _customer_counts(matching, since, rows if partial is not None else None)
        counts = {name: counts[name] + found[name] for name in counts}
    if span.closed is None or watermark is None:
        return counts
    rollups = CustomerRollup.objects.all()
    status = query["status"]
    if status != "any":
        rollups = rollups.filter(anonymised=status == "anonymised")
    for name in ("registered", "has_orders"):
        if query.get(name) is not None:
            rollups = rollups.filter(**{name: query[name]})
    newer = Q(pk__in=[])
    new_first = since_day + timedelta(days=1)
    if first is not None:
        new_first = max(new_first, first)
    new_last = watermark - timedelta(days=1)
    if last is not None:
        new_last = min(new_last, last)
    if new_first <= new_last:
        newer = report_selectors.blocks_q(
            report_rollups.day_number(new_first), report_rollups.day_number(new_last)
        )
    whole = span.closed
    row = rollups.filter(whole | newer).aggregate(
        total=Sum("customers", filter=whole),
        registered=Sum("customers", filter=whole & Q(registered=True)),
        with_orders=Sum("customers", filter=whole & Q(has_orders=True)),
        anonymised=Sum("customers", filter=whole & Q(anonymised=True)),
        new_last_30_days=Sum("customers", filter=newer),
    )
    return {name: counts[name] + (row[name] or 0) for name in counts}


def customer_orders_page(customer_id: int, query: dict) -> Page:
    """The customer's orders as the orders list finds them (newest first by default; its
    cached totals)."""
    customer_get_id(customer_id)
    return order_selectors.order_page({**query, "customer_id": customer_id})


def customer_get_id(customer_id: int) -> int:
    if not Customer.objects.filter(pk=customer_id).exists():
        raise not_found("customer", customer_id)
    return customer_id


def _money_str(value) -> str:
    return str(money(value or 0))


def order_stats(customer_id: int) -> dict:
    """One customer's order stats: counts by status, sales in the store's currency (total
    spent, average order, items bought), first and last order; other currencies' sales are
    listed apart."""
    orders = Order.objects.filter(customer_id=customer_id).order_by()
    by_status_rows = dict(orders.values_list("status").annotate(n=Count("id")))
    by_status = {value: by_status_rows.get(value, 0) for value in OrderStatus.values}
    dates = orders.aggregate(first=Min("created_at"), last=Max("created_at"))
    currency = store_currency()
    sales = {
        row["currency"]: row
        for row in orders.filter(status__in=SALES)
        .values("currency")
        .annotate(n=Count("id"), total=Sum("total"), items=Sum("item_count"))
    }
    own = sales.pop(currency, {"n": 0, "total": 0, "items": 0})
    last = orders.order_by("-created_at", "-id").values("pk", "created_at").first()
    return {
        "orders_count": sum(by_status.values()),
        "by_status": by_status,
        "currency": currency,
        "paid_orders_count": own["n"],
        "total_spent": _money_str(own["total"]),
        "average_order_value": _money_str(own["total"] / own["n"] if own["n"] else 0),
        "items_purchased": own["items"] or 0,
        "first_order_at": dates["first"],
        "last_order_at": dates["last"],
        "last_order_id": last["pk"] if last else None,
        "other_currencies": [
            {"currency": code, "orders": row["n"], "total_spent": _money_str(row["total"])}
            for code, row in sorted(sales.items())
        ],
    }


def recent_orders(customer_id: int, limit: int = 5) -> list[tuple]:
    """The customer's latest orders as rows of the orders list (its LIST_COLUMNS)."""
    return list(
        Order.objects.filter(customer_id=customer_id)
        .order_by("-created_at", "-id")
        .values_list(*order_selectors.LIST_COLUMNS)[:limit]
    )


def top_products(customer_id: int, *, limit: int) -> list[dict]:
    """What the customer bought most (units over their sales orders), by product (a line
    without a product, deleted since, counts under its title)."""
    rows = (
        OrderItem.objects.filter(order__customer_id=customer_id, order__status__in=SALES)
        .values("product_id", "title")
        .annotate(
            quantity=Sum("quantity"),
            total=Sum("total"),
            orders=Count("order_id", distinct=True),
            last_sku=Max("sku"),
        )
        .order_by("-quantity", "-total", "product_id", "title")
    )
    merged: dict = {}
    for row in rows:
        key = row["product_id"] or row["title"]
        entry = merged.setdefault(
            key,
            {
                "product_id": row["product_id"],
                "title": row["title"],
                "sku": row["last_sku"],
                "quantity": 0,
                "total": 0,
                "orders": 0,
            },
        )
        entry["quantity"] += row["quantity"]
        entry["total"] += row["total"]
        entry["orders"] += row["orders"]
    ordered = sorted(merged.values(), key=lambda e: (-e["quantity"], -e["total"], e["title"]))
    return [{**entry, "total": _money_str(entry["total"])} for entry in ordered[:limit]]


def _month_start(day: date) -> date:
    return day.replace(day=1)


def _months_back(first: date, months: int) -> date:
    year, month = first.year, first.month - (months - 1)
    while month < 1:
        month += 12
        year -= 1
    return date(year, month, 1)


def spending_history(customer_id: int, *, months: int) -> list[dict]:
    """The last `months` calendar months (UTC), oldest first, each with its orders (every
    status), sales orders and amount spent (sales in the store's currency); months without
    orders answer zeros."""
    this_month = _month_start(timezone.now().astimezone(UTC).date())
    first = _months_back(this_month, months)
    currency = store_currency()
    rows = (
        Order.objects.filter(customer_id=customer_id, created_at__gte=_day_start(first))
        .annotate(month=TruncMonth("created_at", tzinfo=UTC))
        .values("month")
        .annotate(
            orders=Count("id"),
            sales=Count("id", filter=Q(status__in=SALES, currency=currency)),
            spent=Sum("total", filter=Q(status__in=SALES, currency=currency)),
        )
        .order_by("month")
    )
    found = {}
    for row in rows:
        month = row["month"]
        key = month.date() if isinstance(month, datetime) else month
        found[key.replace(day=1)] = row
    out = []
    month = first
    for _ in range(months):
        row = found.get(month, {})
        out.append(
            {
                "month": month.strftime("%Y-%m"),
                "orders": row.get("orders", 0),
                "paid_orders": row.get("sales", 0),
                "total_spent": _money_str(row.get("spent")),
            }
        )
        month = date(month.year + (month.month == 12), month.month % 12 + 1, 1)
    return out


def addresses_of(customer_id: int, *, kind: str | None = None) -> list[CustomerAddress]:
    customer_get_id(customer_id)
    rows = CustomerAddress.objects.filter(customer_id=customer_id)
    if kind:
        rows = rows.filter(type=kind)
    return list(rows.order_by("type", "-is_default", "id"))


def address_get(address_id: int) -> CustomerAddress:
    row = CustomerAddress.objects.filter(pk=address_id).first()
    if row is None:
        raise not_found("address", address_id)
    return row


def account_order_counts(customer_id: int | None) -> dict:
    rows = (
        dict(
            Order.objects.filter(customer_id=customer_id)
            .order_by()
            .values_list("status")
            .annotate(n=Count("id"))
        )
        if customer_id
        else {}
    )
    by_status = {value: rows.get(value, 0) for value in OrderStatus.values}
    return {"total": sum(by_status.values()), "by_status": by_status}
