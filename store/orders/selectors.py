"""Order reads: the list with its filters, single reads (staff, the customer, the key), stats."""

from __future__ import annotations

import functools
import hmac
import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.db.models import (
    Case,
    Count,
    F,
    JSONField,
    Model,
    Q,
    QuerySet,
    Sum,
    TextField,
    When,
    prefetch_related_objects,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast
from django.db.models.signals import post_delete, post_save
from django.urls import reverse

from common import pg_json
from common.compiled import CompiledQuery
from common.links import absolute_url
from common.pg_json import IsoUtc, JsonBuildObject, entry_text
from store.common.cache import VersionedCache
from store.common.errors import not_found
from store.common.money import money
from store.common.pagination import Page
from store.customers.models import Customer
from store.orders.choices import SALES, FulfillmentStatus, OrderStatus, PaymentStatus
from store.orders.models import Order, OrderItem, OrderStatusChange, Payment, Shipment
from store.reports import rollups as report_rollups
from store.reports import selectors as report_selectors
from store.reports.models import OrderRollup
from store.settings import selectors as store_settings

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
#: A list entry's columns, in the order api.serializers.order_summary_row reads them: lists
#: read plain rows (no model instances: a page of 100 orders and their customers would be 200).
LIST_COLUMNS = (
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
    "customer_id",
    "customer__email",
    "customer__first_name",
    "customer__last_name",
    "customer__user_id",
)


@functools.cache
def list_entry_json():
    """A list entry as PostgreSQL writes it (common.pg_json): the keys, order and spelling of
    api.serializers.order_summary_row (tests/store/orders/test_list.py compares them). Built
    once: a query copies the expressions it resolves."""
    customer = JsonBuildObject(
        id=F("customer_id"),
        email=F("customer__email"),
        first_name=F("customer__first_name"),
        last_name=F("customer__last_name"),
        user_id=F("customer__user_id"),
    )
    return entry_text(
        JsonBuildObject(
            id=F("id"),
            order_number=F("order_number"),
            status=F("status"),
            payment_status=F("payment_status"),
            fulfillment_status=F("fulfillment_status"),
            currency=F("currency"),
            total=Cast("total", TextField()),  # numeric(_, 2): always two places
            item_count=F("item_count"),
            customer_id=F("customer_id"),
            customer=Case(
                When(customer_id__isnull=True, then=RawSQL("NULL", (), output_field=JSONField())),
                default=customer,
            ),
            created_at=IsoUtc("created_at"),
            updated_at=IsoUtc("updated_at"),
        )
    )


def lists_json() -> bool:
    """Whether order lists read their entries as JSON text (PostgreSQL) or as LIST_COLUMNS."""
    return pg_json.enabled_for(Order)


def list_columns() -> tuple:
    """What a list reads per order: its entry's JSON text on PostgreSQL, else LIST_COLUMNS."""
    return (list_entry_json(),) if lists_json() else LIST_COLUMNS


def list_row(order: Order) -> tuple:
    """An order instance as a list row (LIST_COLUMNS), for the bodies built on the summary."""
    customer = order.customer
    return (
        order.pk,
        order.order_number,
        order.status,
        order.payment_status,
        order.fulfillment_status,
        order.currency,
        order.total,
        order.item_count,
        order.created_at,
        order.updated_at,
        order.customer_id,
        *(
            (customer.email, customer.first_name, customer.last_name, customer.user_id)
            if customer is not None
            else (None, None, None, None)
        ),
    )


def order_list(query: dict) -> QuerySet:
    queryset = filtered(query)
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
    args = {name: query.get(name) for name in COUNTED}
    total, version = COUNTS.get_tagged(args)  # the version and the total: one round trip
    if total is None:
        total = queryset.count()
        COUNTS.set_tagged(args, version, total)
    return total


#: The list's query parameters that do not filter.
PAGING = frozenset({"page", "per_page", "orderby", "order"})


def _unfiltered(query: dict) -> bool:
    return not any(value for name, value in query.items() if name not in PAGING)


_FIRST_PAGES: dict[tuple[str, str, int], CompiledQuery] = {}


def _first_page_query(orderby: str, order: str, per_page: int) -> CompiledQuery:
    """The first page of the unfiltered list (the list's most asked page): its SQL compiled
    once per connection and ordering (common.compiled); it takes no argument."""
    key = (orderby, order, per_page)
    query = _FIRST_PAGES.get(key)
    if query is None:
        shape = {"orderby": orderby, "order": order}
        query = _FIRST_PAGES[key] = CompiledQuery(
            lambda: order_list(shape).values_list(*list_columns())[:per_page], (), ()
        )
    return query


def order_page(query: dict) -> Page:
    """A page of the staff list: the total (above) and the rows of the page (list_columns():
    one JSON text each on PostgreSQL, else LIST_COLUMNS); a deep page finds its ids first,
    then reads their rows."""
    page, per_page = query["page"], query["per_page"]
    queryset = order_list(query)
    total = order_total(query, queryset)
    start = (page - 1) * per_page
    if start >= total:
        items = []
    elif start == 0 and _unfiltered(query):
        items = _first_page_query(query["orderby"], query["order"], per_page).rows()
    elif start < DEFERRED_FROM:
        items = list(queryset.values_list(*list_columns())[start : start + per_page])
    else:
        ids = list(queryset.values_list("pk", flat=True)[start : start + per_page])
        found = Order.objects.filter(pk__in=ids).values_list("pk", *list_columns())
        rows = {row[0]: row[1:] for row in found}
        items = [rows[pk] for pk in ids if pk in rows]
    return Page(items=items, page=page, per_page=per_page, total=total)


# The order's body shows its latest status changes (oldest first); an order moved back and
# forth for years keeps a bounded answer. The admin shows the whole history.
HISTORY_SHOWN = 100


def _children(model: type[Model], *related: str) -> CompiledQuery:
    """An order's rows of `model` (its lines, payments, shipments) in their model's order,
    compiled once per connection: the full order is read on every staff answer."""
    return CompiledQuery(
        lambda order_id: model.objects.select_related(*related).filter(order_id=order_id),
        (-1,),
        (-2,),
    )


_ORDER = CompiledQuery(
    lambda order_id: Order.objects.select_related("customer").filter(pk=order_id), (-1,), (-2,)
)
_ITEMS = _children(OrderItem)
_PAYMENTS = _children(Payment)
_SHIPMENTS = _children(Shipment)
_LINES_WITH_PRODUCTS = _children(OrderItem, "product", "variant")


def lines_with_products(order: Order) -> list[OrderItem]:
    """The order's lines with their product and variant (whether they track stock), kept on
    the order as its `items` (its answer shows them without reading them again)."""
    items = _LINES_WITH_PRODUCTS.instances(order.pk)
    _prefetched(order, "items", items)
    return items


_HISTORY_COLUMNS = (
    "id",
    "field",
    "from_value",
    "to_value",
    "note",
    "source",
    "actor__email",
    "created_at",
)
_HISTORY = CompiledQuery(
    lambda order_id: (
        OrderStatusChange.objects.filter(order_id=order_id)
        .order_by("-created_at", "-id")
        .values_list(*_HISTORY_COLUMNS)[:HISTORY_SHOWN]
    ),
    (-1,),
    (-2,),
)


def _prefetched(order: Order, name: str, rows: list[Any]) -> None:
    """Keep `rows` as prefetch_related() does: `order.<name>.all()` answers them, and
    `.filter()` or `.exists()` on the relation still make queries of their own."""
    cache = order.__dict__.setdefault("_prefetched_objects_cache", {})
    cache.pop(name, None)
    queryset = getattr(order, name).all()  # the relation's queryset, not run
    queryset._result_cache = rows
    queryset._prefetch_done = True
    cache[name] = queryset


def order_get(order_id: int) -> Order:
    """The full order (items, payments, shipments, its latest status changes as
    `recent_history`: history_rows); 404 order_not_found."""
    found = _ORDER.instances(order_id)
    if not found:
        raise not_found("order", order_id)
    return order_completed(found[0])


def order_with_lines(order_id: int) -> Order:
    """The order with its customer and lines (what its e-mails show); 404 order_not_found."""
    found = _ORDER.instances(order_id)
    if not found:
        raise not_found("order", order_id)
    order = found[0]
    _prefetched(order, "items", _ITEMS.instances(order.pk))
    return order


def order_completed(order: Order) -> Order:
    """`order_get`'s order from an instance a service answered (its row as written, its
    customer read along): only what it lacks is read (its lines unless the service kept
    them, payments, shipments, the latest history), after the service's commit."""
    _with_children(order)
    order.recent_history = history_rows(order.pk)  # type: ignore[attr-defined]
    return order


def _with_children(order: Order) -> Order:
    """The order's lines (unless kept on it already), payments and shipments (with their
    items), as prefetch_related() would keep them."""
    cache = getattr(order, "_prefetched_objects_cache", {})
    if "items" not in cache:
        _prefetched(order, "items", _ITEMS.instances(order.pk))
    _prefetched(order, "payments", _PAYMENTS.instances(order.pk))
    shipments = _SHIPMENTS.instances(order.pk)
    if shipments:
        prefetch_related_objects(shipments, "items")
    _prefetched(order, "shipments", shipments)
    return order


def history_rows(order_id: int) -> list[dict]:
    """The order's latest status changes (at most HISTORY_SHOWN), oldest first, as plain rows
    (id, field, from_value, to_value, note, source, actor__email, created_at)."""
    rows = [dict(zip(_HISTORY_COLUMNS, row, strict=True)) for row in _HISTORY.rows(order_id)]
    rows.reverse()
    return rows


def orders_of_user(user, query: dict) -> QuerySet:
    """The account's own orders as list rows (list_columns()), newest first."""
    queryset = Order.objects.filter(customer__user=user)
    if query.get("status"):
        queryset = queryset.filter(status__in=query["status"])
    return queryset.order_by("-created_at", "-id").values_list(*list_columns())


def order_of_user(user, order_id: int) -> Order:
    """The account's own order; someone else's is 404 order_not_found, like a missing one."""
    order = Order.objects.select_related("customer").filter(pk=order_id, customer__user=user)
    found = order.first()
    if found is None:
        raise not_found("order", order_id)
    return _with_children(found)


def key_matches(order: Order, key: str | None) -> bool:
    return bool(key) and hmac.compare_digest(order.order_key.encode(), str(key).encode())


def order_received_url(
    order: Order, *, config: dict | None = None, for_person: bool = False
) -> str:
    """The storefront's page when the settings name one (checkout.order_received_page; a path
    is on FRONTEND_URL), else the API's order-received URL (`for_person`: the server-rendered
    page a person reads, store.pages, for the e-mails), on FRONTEND_URL (common.links)."""
    config = config or store_settings.get_all()
    page = config["checkout"]["order_received_page"]
    if page:
        return absolute_url(
            page.format(order_id=order.pk, order_number=order.order_number, key=order.order_key)
        )
    route = "order-received-page" if for_person else "store-order-received"
    path = reverse(route, kwargs={"order_id": order.pk})
    return absolute_url(f"{path}?key={order.order_key}")


def order_received(order_id: int) -> Order | None:
    found = _ORDER.instances(order_id)
    return _with_children(found[0]) if found else None


#: What the stats count per group of orders (the rollups keep the same groups).
STATS_GROUP = ("status", "payment_status", "fulfillment_status", "currency")
#: The filters that choose groups.
STATUS_FILTERS = ("status", "payment_status", "fulfillment_status")


def order_stats(query: dict) -> dict:
    """Counts by status, payment and fulfilment status, and sales per currency (orders in
    processing, shipped or completed) for the orders matching the list's filters.

    Without a customer or a search, the days before the reports' watermark are read from their
    rollups (store.reports: a few blocks of days whatever the number of orders) and the days
    after it from the rows found by date (the status filters then choose among the groups:
    an index on a status would read every order of that status): one query each, grouped
    alike. With either, from the rows."""
    if query.get("customer_id") or (query.get("search") or "").strip():
        return _stats_answer(_stats_groups(filtered(query)))
    span = report_selectors.cut(
        query.get("date_from"), query.get("date_to"), report_rollups.closed_until()
    )
    groups = []
    if span.rows:
        if span.rows_from is None:
            orders = filtered(query)
        else:  # the days from the watermark on, by date (one lower bound: the index reads
            # those days only); their statuses are chosen below
            dropped = {*STATUS_FILTERS, "date_from"}
            orders = filtered({k: v for k, v in query.items() if k not in dropped})
            orders = orders.filter(created_at__gte=span.rows_from)
        groups += _stats_groups(orders)
    if span.closed is not None:
        groups += (
            OrderRollup.objects.filter(span.closed)
            .values(*STATS_GROUP)
            .annotate(
                n=Sum("orders"),
                gross=Sum("total"),
                paid=Sum("amount_paid"),
                refunded=Sum("amount_refunded"),
                units=Sum("items"),
            )
            .order_by()
        )
    wanted = {name: set(query[name]) for name in STATUS_FILTERS if query.get(name)}
    return _stats_answer(
        [g for g in groups if all(g[name] in values for name, values in wanted.items())]
    )


def _stats_groups(orders: QuerySet[Any, Any]) -> list[dict[str, Any]]:
    return list(
        orders.values(*STATS_GROUP)
        .annotate(
            n=Count("id"),
            gross=Sum("total"),
            paid=Sum("amount_paid"),
            refunded=Sum("amount_refunded"),
            units=Sum("item_count"),
        )
        .order_by()
    )


def _stats_answer(groups: list[dict[str, Any]]) -> dict[str, Any]:
    by = {
        "status": dict.fromkeys(OrderStatus.values, 0),
        "payment_status": dict.fromkeys(PaymentStatus.values, 0),
        "fulfillment_status": dict.fromkeys(FulfillmentStatus.values, 0),
    }
    per_currency: dict[str, list[Any]] = {}
    for group in groups:
        count = group["n"] or 0
        if not count:
            continue
        for name, counts in by.items():
            if group[name] in counts:
                counts[group[name]] += count
        if group["status"] in SALES:
            sums = per_currency.setdefault(group["currency"], [0, 0, 0, 0, 0])
            sums[0] += count
            for position, name in enumerate(("gross", "paid", "refunded", "units"), start=1):
                sums[position] += group[name] or 0
    sales = []
    for currency in sorted(per_currency):
        count, total, paid, refunded, items = per_currency[currency]
        sales.append(
            {
                "currency": currency,
                "orders": count,
                "total_sales": str(money(total)),
                "average_order_value": str(money(total / count)),
                "net_paid": str(money(paid - refunded)),
                "items_sold": items,
            }
        )
    return {
        "total_orders": sum(by["status"].values()),
        "by_status": by["status"],
        "by_payment_status": by["payment_status"],
        "by_fulfillment_status": by["fulfillment_status"],
        "sales": sales,
    }
