"""The ERP's reads of the store's inventory ledger (store.inventory.models): levels with their
value at cost, the movements, the warehouses with their stock, and the stock figures."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from django.db.models import (
    Case,
    Count,
    DecimalField,
    ExpressionWrapper,
    F,
    Q,
    QuerySet,
    Sum,
    Value,
    When,
)
from django.db.models.fields.tuple_lookups import Tuple, TupleGreaterThanOrEqual
from django.db.models.functions import Coalesce
from django.utils import timezone

from store.common.errors import invalid_params, not_found
from store.common.pagination import Page, paginate
from store.inventory import rollups
from store.inventory.models import StockLevel, StockMovement, Warehouse

VALUE = DecimalField(max_digits=24, decimal_places=6)
ZERO_VALUE = Value(Decimal(0), output_field=VALUE)

# What on-hand units are worth: units below zero (backorders) are worth nothing, units of
# unknown cost are left out.
LEVEL_VALUE = Case(
    When(
        quantity__gt=0,
        unit_cost__isnull=False,
        then=ExpressionWrapper(F("quantity") * F("unit_cost"), output_field=VALUE),
    ),
    default=ZERO_VALUE,
    output_field=VALUE,
)
LOW = Q(reorder_point__isnull=False, quantity__lte=F("reorder_point"))


# --- Warehouses ----------------------------------------------------------------------------------


def _with_stock(queryset: QuerySet) -> QuerySet:
    return queryset.annotate(
        stock_items=Count("levels", filter=~Q(levels__quantity=0)),
        stock_units=Coalesce(Sum("levels__quantity"), 0),
        stock_value=Coalesce(
            Sum(
                Case(
                    When(
                        levels__quantity__gt=0,
                        levels__unit_cost__isnull=False,
                        then=ExpressionWrapper(
                            F("levels__quantity") * F("levels__unit_cost"), output_field=VALUE
                        ),
                    ),
                    default=ZERO_VALUE,
                    output_field=VALUE,
                )
            ),
            ZERO_VALUE,
        ),
    )


def warehouse_page(query: dict) -> Page:
    warehouses = Warehouse.objects.all()
    if query.get("active") is not None:
        warehouses = warehouses.filter(is_active=query["active"])
    if query.get("search"):
        term = query["search"]
        warehouses = warehouses.filter(
            Q(name__icontains=term) | Q(code__icontains=term) | Q(city__icontains=term)
        )
    return paginate(
        _with_stock(warehouses).order_by("-is_default", "priority", "id"),
        page=query["page"],
        per_page=query["per_page"],
    )


def warehouse_get(warehouse_id: int) -> Warehouse:
    warehouse = _with_stock(Warehouse.objects.filter(pk=warehouse_id)).first()
    if warehouse is None:
        raise not_found("warehouse", warehouse_id)
    return warehouse


# --- Levels --------------------------------------------------------------------------------------


def _levels() -> QuerySet:
    return StockLevel.objects.select_related("warehouse", "product", "variant").annotate(
        value=LEVEL_VALUE
    )


#: The levels' order: by warehouse, then item (a product's variants, then its own level: NULL
#: last, PostgreSQL's default, said on every database), then id.
LEVEL_ORDER = (
    F("warehouse_id").asc(),
    F("product_id").asc(),
    F("variant_id").asc(nulls_last=True),
    F("id").asc(),
)
KEYS = ("warehouse_id", "product_id", "variant_id")


def _after(levels: QuerySet[StockLevel, int], level_id: int) -> QuerySet[StockLevel, int]:
    """The levels after level `level_id` in LEVEL_ORDER (keyset paging): one index range from
    its (warehouse, product), less the few levels of that product in that warehouse that do
    not come after it (the product's own level, variant NULL, sorts after its variants')."""
    cursor = StockLevel.objects.filter(pk=level_id).values(*KEYS).first()
    if cursor is None:
        raise invalid_params({"after": "No stock level with this id."})
    same_item = Q(warehouse_id=cursor["warehouse_id"], product_id=cursor["product_id"])
    if cursor["variant_id"] is None:
        later = Q(variant_id__isnull=True, id__gt=level_id)
    else:
        later = (
            Q(variant_id__isnull=True)
            | Q(variant_id__gt=cursor["variant_id"])
            | Q(variant_id=cursor["variant_id"], id__gt=level_id)
        )
    # (warehouse_id, product_id) >= (...): a row comparison, one range of the index
    from_item = TupleGreaterThanOrEqual(
        Tuple(F("warehouse_id"), F("product_id")),
        (cursor["warehouse_id"], cursor["product_id"]),
    )
    return levels.filter(from_item).filter(~same_item | later)


def level_page(query: dict) -> Page:
    """A page of levels in LEVEL_ORDER: the page's ids are picked on the levels table alone
    (filters join the items only when they name them), then those rows are read with their
    warehouse and item. Three queries: the COUNT, the ids, the rows (four with `after`).
    Ordered by an index on LEVEL_ORDER, the ids cost the same on any page reached with `after`
    and at any number of levels; the COUNT is an index-only scan."""
    levels = StockLevel.objects.all()
    if query.get("warehouse_id") is not None:
        levels = levels.filter(warehouse_id=query["warehouse_id"])
    if query.get("product_id") is not None:
        levels = levels.filter(product_id=query["product_id"])
    if query.get("variant_id") is not None:
        levels = levels.filter(variant_id=query["variant_id"])
    if query.get("sku"):
        sku = query["sku"]
        levels = levels.filter(
            Q(variant__isnull=False, variant__sku__iexact=sku)
            | Q(variant__isnull=True, product__sku__iexact=sku)
        )
    if query.get("search"):
        for word in query["search"].split()[:5]:
            levels = levels.filter(
                Q(product__title__icontains=word)
                | Q(product__sku__icontains=word)
                | Q(variant__sku__icontains=word)
                | Q(variant__title__icontains=word)
            )
    if query.get("low_stock") is True:
        levels = levels.filter(LOW)
    elif query.get("low_stock") is False:
        levels = levels.exclude(LOW)
    total = levels.count()
    page, per_page = query["page"], query["per_page"]
    ordered = levels.order_by(*LEVEL_ORDER).values_list("pk", flat=True)
    if query.get("after") is not None:
        ids = list(_after(ordered, query["after"])[:per_page])
    else:
        start = (page - 1) * per_page
        ids = list(ordered[start : start + per_page]) if start < total else []
    rows = _levels().in_bulk(ids) if ids else {}
    return Page(
        items=[rows[pk] for pk in ids if pk in rows], page=page, per_page=per_page, total=total
    )


def level_get(level_id: int) -> StockLevel:
    level = _levels().filter(pk=level_id).first()
    if level is None:
        raise not_found("stock_level", level_id)
    return level


# --- Movements -----------------------------------------------------------------------------------


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def movement_page(query: dict) -> Page:
    movements = StockMovement.objects.select_related("warehouse", "actor")
    for name in ("warehouse_id", "product_id", "variant_id"):
        if query.get(name) is not None:
            movements = movements.filter(**{name: query[name]})
    if query.get("reason"):
        movements = movements.filter(reason__in=query["reason"])
    for name in ("reference_type", "reference_id"):
        if query.get(name):
            movements = movements.filter(**{name: query[name]})
    if query.get("sku"):
        movements = movements.filter(sku__iexact=query["sku"])
    if query.get("date_from"):
        movements = movements.filter(created_at__gte=_day_start(query["date_from"]))
    if query.get("date_to"):
        movements = movements.filter(
            created_at__lt=_day_start(query["date_to"] + timedelta(days=1))
        )
    return paginate(
        movements.order_by("-created_at", "-id"), page=query["page"], per_page=query["per_page"]
    )


# --- Figures -------------------------------------------------------------------------------------

LOW_STOCK_ITEMS = 50


def stock_stats(query: dict) -> dict:
    """Value at cost per warehouse and in all, low stock, out of stock and turnover.

    Turnover over the period = units sold (the net of the orders' movements in it) / average
    stock (the mean of the opening and closing stock, both read back from the ledger). The
    ledger's sums come from store.inventory.rollups.flows: closed days from their rollups, the
    open ones from the movements, so the cost does not grow with the ledger's history.
    """
    today = timezone.now().date()
    date_to = query.get("date_to") or today
    date_from = query.get("date_from") or date_to - timedelta(days=29)
    levels = StockLevel.objects.all()
    if query.get("warehouse_id") is not None:
        levels = levels.filter(warehouse_id=query["warehouse_id"])
    per_warehouse = list(
        levels.values("warehouse_id", "warehouse__name", "warehouse__code", "warehouse__is_active")
        .annotate(
            value=Coalesce(Sum(LEVEL_VALUE), ZERO_VALUE),
            units=Coalesce(Sum("quantity"), 0),
            items=Count("id", filter=~Q(quantity=0)),
        )
        .order_by("warehouse_id")
    )
    flows = rollups.flows(date_from, date_to, query.get("warehouse_id"))
    units_now = sum(row["units"] for row in per_warehouse)
    closing = units_now - flows.after
    opening = closing - flows.within
    units_sold = flows.sold
    average = Decimal(opening + closing) / 2
    turnover = (Decimal(units_sold) / average).quantize(Decimal("0.01")) if average > 0 else None
    low = levels.filter(LOW, warehouse__is_active=True)
    counts = levels.filter(warehouse__is_active=True).aggregate(
        low_stock=Count("id", filter=LOW),
        out_of_stock=Count("id", filter=Q(quantity__lte=0)),
        items=Count("id"),
    )
    low_items = list(
        _levels().filter(pk__in=low.values("pk")).order_by("quantity", "id")[:LOW_STOCK_ITEMS]
    )
    return {
        "per_warehouse": per_warehouse,
        "total_value": sum((row["value"] for row in per_warehouse), Decimal(0)),
        "counts": counts,
        "low_stock_items": low_items,
        "turnover": {
            "date_from": date_from,
            "date_to": date_to,
            "units_sold": units_sold,
            "opening_stock": opening,
            "closing_stock": closing,
            "average_stock": average,
            "turnover": turnover,
        },
    }


def level_find(*, warehouse_id: int, product_id: int, variant_id: int | None) -> StockLevel | None:
    """An item's level in a warehouse (0: the default one), or None."""
    levels = _levels().filter(product_id=product_id, variant_id=variant_id)
    if warehouse_id == 0:
        return levels.filter(warehouse__is_default=True).first()
    return levels.filter(warehouse_id=warehouse_id).first()


def movements_of(ids: list[int]) -> list[StockMovement]:
    return list(StockMovement.objects.select_related("warehouse", "actor").filter(pk__in=ids))
