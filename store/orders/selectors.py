"""Order reads: the list with its filters, single reads (staff, the customer, the key), stats."""

from __future__ import annotations

import hmac
import re
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.db.models import Count, Prefetch, Q, QuerySet, Sum
from django.db.models.signals import post_delete, post_save

from store.common.cache import VersionedCache
from store.common.errors import not_found
from store.common.money import money
from store.common.pagination import Page
from store.customers.models import Customer
from store.orders.choices import SALES, FulfillmentStatus, OrderStatus, PaymentStatus
from store.orders.models import Order, OrderItem, OrderStatusChange, Shipment

ORDERBY = {
    "id": "id",
    "date": "created_at",
    "created_at": "created_at",
    "modified": "updated_at",
    "total": "total",
    "order_number": "id",  # numbers follow ids
    "status": "status",
}


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def filtered(query: dict) -> QuerySet:
    """Orders matching the list's filters (every filter combines with the others)."""
    queryset = Order.objects.all()
    for name in ("status", "payment_status", "fulfillment_status"):
        values = query.get(name)
        if values:
            queryset = queryset.filter(**{f"{name}__in": values})
    if query.get("customer_id"):
        queryset = queryset.filter(customer_id=query["customer_id"])
    if query.get("date_from"):
        queryset = queryset.filter(created_at__gte=_day_start(query["date_from"]))
    if query.get("date_to"):
        queryset = queryset.filter(created_at__lt=_day_start(query["date_to"] + timedelta(days=1)))
    search = (query.get("search") or "").strip()
    if search:
        # A search finds few orders: their ids are read first (each part of the UNION on its
        # index), so that the page's query reads them by primary key rather than joining a
        # set the planner cannot size; a search finding very many keeps the subquery.
        matching = search_ids(search)
        ids = list(matching.values_list("pk", flat=True)[: SEARCH_IDS + 1])
        queryset = queryset.filter(pk__in=ids if len(ids) <= SEARCH_IDS else matching)
    return queryset


def search_ids(search: str) -> QuerySet:
    """The ids of the orders a search term finds, as one UNION of indexed lookups (each part
    uses its own index on PostgreSQL, where an OR across joined tables would scan them all):

    - the order number by prefix (its unique index has a pattern-ops twin: LIKE 'x%'), the id
      when the term is a number;
    - the billing e-mail, names and phone (trigram GIN indexes on the upper-cased JSON keys);
    - the customer's e-mail and names (trigram GIN indexes on store_customers);
    - a line's SKU (exact, case-insensitive: an index on UPPER(sku)) or title (trigram GIN).

    A term shaped like an order number or id searches the numbers, ids, SKUs (and, all
    digits, the phones) only; a term with "@" the e-mail addresses only. On SQLite the same
    lookups are plain LIKE scans (no trigram there)."""
    number = search.lstrip("#").strip()
    numbered = NUMBER_SHAPED.fullmatch(number) is not None
    by_number = Q(order_number__startswith=number.upper())
    if number.isdigit():
        by_number |= Q(pk=int(number))
    arms = [Order.objects.filter(by_number).values("pk")]
    lines = Q(sku__iexact=search)
    if numbered:
        if number.isdigit():
            arms.append(Order.objects.filter(billing_address__phone__icontains=number).values("pk"))
    elif "@" in search:
        arms.append(Order.objects.filter(billing_address__email__icontains=search).values("pk"))
        customers = Customer.objects.filter(email__icontains=search)
        arms.append(Order.objects.filter(customer_id__in=customers.values("pk")).values("pk"))
    else:
        billed = (
            Q(billing_address__email__icontains=search)
            | Q(billing_address__first_name__icontains=search)
            | Q(billing_address__last_name__icontains=search)
            | Q(billing_address__phone__icontains=search)
        )
        arms.append(Order.objects.filter(billed).values("pk"))
        customers = Customer.objects.filter(
            Q(email__icontains=search)
            | Q(first_name__icontains=search)
            | Q(last_name__icontains=search)
        )
        arms.append(
            Order.objects.filter(customer_id__in=customers.values("pk").order_by()).values("pk")
        )
        lines |= Q(title__icontains=search)
    arms.append(OrderItem.objects.filter(lines).values("order_id"))
    first, *others = (arm.order_by() for arm in arms)
    return first.union(*others)


#: An order number (store prefix, dash, digits) or an id.
NUMBER_SHAPED = re.compile(rf"(?:{re.escape(settings.STORE_PREFIX)}-)?\d+", re.IGNORECASE)


#: Up to this many orders found, a search's ids are read first (see `filtered`).
SEARCH_IDS = 2000


# What a list entry shows: the addresses, notes and totals of the full order stay unread.
LIST_FIELDS = (
    "id",
    "order_number",
    "status",
    "payment_status",
    "fulfillment_status",
    "currency",
    "total",
    "item_count",
    "created_at",
    "updated_at",
    "customer__id",
    "customer__email",
    "customer__first_name",
    "customer__last_name",
    "customer__user_id",
)


def order_list(query: dict) -> QuerySet:
    queryset = filtered(query).select_related("customer").only(*LIST_FIELDS)
    field = ORDERBY.get(query.get("orderby") or "date", "created_at")
    prefix = "-" if (query.get("order") or "DESC").upper() == "DESC" else ""
    return queryset.order_by(f"{prefix}{field}", f"{prefix}id")


# The list's totals, exact, cached per filters under a version that every order write bumps
# (a COUNT(*) over 100,000 orders costs more than the whole page otherwise).
COUNTS = VersionedCache("order-counts")
COUNTED = ("status", "payment_status", "fulfillment_status", "customer_id", "date_from", "date_to")
#: From this offset on, the page's ids are found first (an index-only scan of the ordering's
#: index) and its rows read by id, rather than reading and skipping every row before it.
DEFERRED_FROM = 1000


def invalidate_counts(*args, **kwargs) -> None:
    COUNTS.bump()


def connect_invalidation() -> None:
    uid = "store.orders.counts"
    post_save.connect(invalidate_counts, sender=Order, dispatch_uid=f"{uid}.save")
    post_delete.connect(invalidate_counts, sender=Order, dispatch_uid=f"{uid}.delete")
    # a customer's deletion unlinks its orders (SET NULL, no Order signal)
    post_delete.connect(invalidate_counts, sender=Customer, dispatch_uid=f"{uid}.customer")


def order_total(query: dict, queryset: QuerySet) -> int:
    """How many orders match: cached unless the query searches (a search's matches depend on
    addresses, lines and customers, and are few)."""
    if (query.get("search") or "").strip():
        return queryset.count()
    key = COUNTS.key({name: query.get(name) for name in COUNTED})
    total = COUNTS.get(key) if key is not None else None
    if total is None:
        total = queryset.count()
        if key is not None:
            COUNTS.set(key, total)
    return total


def order_page(query: dict) -> Page:
    """A page of the staff list: the total (above) and the rows of the page; a deep page
    finds its ids first, then reads their rows."""
    page, per_page = query["page"], query["per_page"]
    queryset = order_list(query)
    total = order_total(query, queryset)
    start = (page - 1) * per_page
    if start >= total:
        items = []
    elif start < DEFERRED_FROM:
        items = list(queryset[start : start + per_page])
    else:
        ids = list(queryset.values_list("pk", flat=True)[start : start + per_page])
        found = Order.objects.filter(pk__in=ids).select_related("customer").only(*LIST_FIELDS)
        rows = {order.pk: order for order in found}
        items = [rows[pk] for pk in ids if pk in rows]
    return Page(items=items, page=page, per_page=per_page, total=total)


def _full() -> QuerySet:
    return Order.objects.select_related("customer").prefetch_related(
        "items",
        "payments",
        Prefetch("shipments", queryset=Shipment.objects.prefetch_related("items")),
        Prefetch("history", queryset=OrderStatusChange.objects.select_related("actor")),
    )


def order_get(order_id: int) -> Order:
    """The full order (items, payments, shipments, history); 404 order_not_found."""
    order = _full().filter(pk=order_id).first()
    if order is None:
        raise not_found("order", order_id)
    return order


def orders_of_user(user, query: dict) -> QuerySet:
    queryset = Order.objects.filter(customer__user=user).select_related("customer")
    queryset = queryset.only(*LIST_FIELDS)
    if query.get("status"):
        queryset = queryset.filter(status__in=query["status"])
    return queryset.order_by("-created_at", "-id")


def order_of_user(user, order_id: int) -> Order:
    """The account's own order; someone else's is 404 order_not_found, like a missing one."""
    order = _full().filter(pk=order_id, customer__user=user).first()
    if order is None:
        raise not_found("order", order_id)
    return order


def key_matches(order: Order, key: str | None) -> bool:
    return bool(key) and hmac.compare_digest(order.order_key.encode(), str(key).encode())


def order_received(order_id: int) -> Order | None:
    return _full().filter(pk=order_id).first()


def order_stats(query: dict) -> dict:
    """Counts by status, payment and fulfilment status, and sales per currency (orders in
    processing, shipped or completed) for the orders matching the list's filters."""
    orders = filtered(query)

    def counts(name: str, choices) -> dict[str, int]:
        found = dict(orders.values_list(name).annotate(n=Count("id")).order_by())
        return {value: found.get(value, 0) for value in choices.values}

    by_status = counts("status", OrderStatus)
    sales = []
    rows = (
        orders.filter(status__in=SALES)
        .values("currency")
        .annotate(
            orders=Count("id"),
            total=Sum("total"),
            paid=Sum("amount_paid"),
            refunded=Sum("amount_refunded"),
            items=Sum("item_count"),
        )
        .order_by("currency")
    )
    for row in rows:
        total = row["total"] or 0
        sales.append(
            {
                "currency": row["currency"],
                "orders": row["orders"],
                "total_sales": str(money(total)),
                "average_order_value": str(money(total / row["orders"])),
                "net_paid": str(money((row["paid"] or 0) - (row["refunded"] or 0))),
                "items_sold": row["items"] or 0,
            }
        )
    return {
        "total_orders": sum(by_status.values()),
        "by_status": by_status,
        "by_payment_status": counts("payment_status", PaymentStatus),
        "by_fulfillment_status": counts("fulfillment_status", FulfillmentStatus),
        "sales": sales,
    }
