"""Purchasing's reads: pages of suppliers, prices, orders and goods-received notes (each in a
fixed number of queries whatever its length), single rows, and the price choices the
services make."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, time, timedelta

from django.db.models import Count, F, Prefetch, Q

from erp.purchasing.choices import OPEN_STATUSES
from erp.purchasing.models import (
    GoodsReceivedLine,
    GoodsReceivedNote,
    PurchaseOrder,
    PurchaseOrderEmail,
    PurchaseOrderLine,
    Supplier,
    SupplierPrice,
)
from store.common.errors import not_found
from store.common.pagination import Page, paginate


def _words(search: str) -> list[str]:
    return [word for word in search.split() if word][:10]


# --- Suppliers ----------------------------------------------------------------------------------


def supplier_page(query: dict) -> Page:
    """Suppliers by name; `search` (each word in the name, code, e-mail, VAT number or
    contact), `active`, `country`."""
    rows = Supplier.objects.all()
    for word in _words(query.get("search") or ""):
        rows = rows.filter(
            Q(name__icontains=word)
            | Q(code__icontains=word)
            | Q(email__icontains=word)
            | Q(vat_number__icontains=word)
            | Q(contact_name__icontains=word)
        )
    if query.get("active") is not None:
        rows = rows.filter(is_active=query["active"])
    if query.get("country"):
        rows = rows.filter(country=query["country"])
    rows = rows.annotate(price_count=Count("prices", distinct=True)).order_by("name", "id")
    return paginate(rows, page=query["page"], per_page=query["per_page"])


def supplier_get(supplier_id: int) -> Supplier:
    supplier = (
        Supplier.objects.annotate(price_count=Count("prices", distinct=True))
        .filter(pk=supplier_id)
        .first()
    )
    if supplier is None:
        raise not_found("supplier", supplier_id)
    return supplier


# --- Prices -------------------------------------------------------------------------------------


def _prices():
    return SupplierPrice.objects.select_related("supplier", "product", "variant")


def price_page(query: dict) -> Page:
    rows = _prices()
    for name in ("supplier_id", "product_id", "variant_id"):
        if query.get(name):
            rows = rows.filter(**{name: query[name]})
    if query.get("currency"):
        rows = rows.filter(currency=query["currency"].upper())
    rows = rows.order_by("product_id", "variant_id", "unit_price", "id")
    return paginate(rows, page=query["page"], per_page=query["per_page"])


def price_get(price_id: int) -> SupplierPrice:
    price = _prices().filter(pk=price_id).first()
    if price is None:
        raise not_found("supplier_price", price_id)
    return price


def best_price(
    *, supplier_id: int, product_id: int, variant_id: int | None, quantity: int, currency: str
) -> SupplierPrice | None:
    """The supplier's price for an item at `quantity` in `currency`: the cheapest tier the
    quantity reaches, the variant's own prices before its product's."""
    rows = SupplierPrice.objects.filter(
        supplier_id=supplier_id,
        product_id=product_id,
        currency=currency,
        min_quantity__lte=quantity,
    )
    if variant_id is None:
        rows = rows.filter(variant__isnull=True)
    else:
        rows = rows.filter(Q(variant_id=variant_id) | Q(variant__isnull=True))
    return rows.order_by(
        F("variant_id").asc(nulls_last=True), "unit_price", "-min_quantity"
    ).first()


def prices_for_items(
    *, items: set[tuple[int, int | None]], currency: str
) -> dict[tuple[int, int | None], list[SupplierPrice]]:
    """{item: prices in `currency` of active suppliers} in one query; a variant's list also
    holds its product's prices (those with no variant)."""
    if not items:
        return {}
    rows = SupplierPrice.objects.filter(
        currency=currency,
        supplier__is_active=True,
        product_id__in={product_id for product_id, _variant in items},
    ).select_related("supplier")
    by_product: dict[int, list[SupplierPrice]] = defaultdict(list)
    for price in rows:
        by_product[price.product_id].append(price)
    return {
        (product_id, variant_id): [
            price
            for price in by_product.get(product_id, [])
            if price.variant_id is None or price.variant_id == variant_id
        ]
        for product_id, variant_id in items
    }


def cheapest_price(prices: list[SupplierPrice], need: int) -> tuple[SupplierPrice, int] | None:
    """The price to order `need` units at, and the quantity: the cheapest of the tiers that
    `need` reaches (ties: the variant's own price, the shorter lead time, the older row);
    when it reaches none, the tier with the smallest minimum, the quantity raised to it."""
    if not prices:
        return None

    def lead(price: SupplierPrice) -> int:
        return price.lead_time_days if price.lead_time_days is not None else 10**4

    reached = [price for price in prices if price.min_quantity <= need]
    if reached:
        best = min(reached, key=lambda p: (p.unit_price, p.variant_id is None, lead(p), p.pk))
        return best, need
    best = min(prices, key=lambda p: (p.min_quantity, p.unit_price, lead(p), p.pk))
    return best, best.min_quantity


def outstanding_by_item(*, default_warehouse_id: int) -> dict[tuple, dict]:
    """{(warehouse id, product id, variant id): {"quantity", "numbers"}}: what open orders
    (draft, sent, partially received) still bring (an order without a warehouse brings to the
    default one)."""
    rows = (
        PurchaseOrderLine.objects.filter(
            order__status__in=OPEN_STATUSES,
            quantity_received__lt=F("quantity"),
            product__isnull=False,
        )
        .values(
            "order__warehouse_id",
            "order__number",
            "product_id",
            "variant_id",
            "quantity",
            "quantity_received",
        )
        .order_by("order_id")
    )
    out: dict[tuple, dict] = {}
    for row in rows:
        key = (
            row["order__warehouse_id"] or default_warehouse_id,
            row["product_id"],
            row["variant_id"],
        )
        entry = out.setdefault(key, {"quantity": 0, "numbers": []})
        entry["quantity"] += row["quantity"] - row["quantity_received"]
        if row["order__number"] not in entry["numbers"]:
            entry["numbers"].append(row["order__number"])
    return out


# --- Purchase orders ----------------------------------------------------------------------------


def _day_start(day) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def order_page(query: dict) -> Page:
    """Newest first; `status` (one or several), `supplier_id`, `warehouse_id`,
    `date_from`/`date_to` (the order date, inclusive), `search` (number or the supplier's
    reference), `origin`."""
    rows = PurchaseOrder.objects.select_related("supplier", "warehouse").annotate(
        line_count=Count("lines")
    )
    if query.get("status"):
        rows = rows.filter(status__in=query["status"])
    for name in ("supplier_id", "warehouse_id"):
        if query.get(name):
            rows = rows.filter(**{name: query[name]})
    if query.get("date_from"):
        rows = rows.filter(order_date__gte=query["date_from"])
    if query.get("date_to"):
        rows = rows.filter(order_date__lte=query["date_to"])
    if query.get("origin"):
        rows = rows.filter(origin=query["origin"])
    for word in _words(query.get("search") or ""):
        rows = rows.filter(Q(number__icontains=word) | Q(supplier_reference__icontains=word))
    rows = rows.order_by("-order_date", "-id")
    return paginate(rows, page=query["page"], per_page=query["per_page"])


def order_get(order_id: int) -> PurchaseOrder:
    """One order with its supplier, warehouse, lines, goods-received notes and e-mails."""
    order = (
        PurchaseOrder.objects.select_related("supplier", "warehouse")
        .prefetch_related(
            Prefetch("lines", queryset=PurchaseOrderLine.objects.order_by("position", "id")),
            Prefetch("receipts", queryset=GoodsReceivedNote.objects.order_by("id")),
            Prefetch("emails", queryset=PurchaseOrderEmail.objects.order_by("id")),
        )
        .annotate(line_count=Count("lines"))
        .filter(pk=order_id)
        .first()
    )
    if order is None:
        raise not_found("purchase_order", order_id)
    return order


# --- Goods received -----------------------------------------------------------------------------


def _notes():
    return GoodsReceivedNote.objects.select_related(
        "purchase_order", "supplier", "warehouse"
    ).prefetch_related(Prefetch("lines", queryset=GoodsReceivedLine.objects.order_by("id")))


def note_page(query: dict) -> Page:
    """Newest first; `supplier_id`, `purchase_order_id`, `warehouse_id`,
    `date_from`/`date_to` (received, inclusive days in UTC)."""
    rows = _notes()
    for name in ("supplier_id", "purchase_order_id", "warehouse_id"):
        if query.get(name):
            rows = rows.filter(**{name: query[name]})
    if query.get("date_from"):
        rows = rows.filter(received_at__gte=_day_start(query["date_from"]))
    if query.get("date_to"):
        rows = rows.filter(received_at__lt=_day_start(query["date_to"]) + timedelta(days=1))
    rows = rows.order_by("-received_at", "-id")
    return paginate(rows, page=query["page"], per_page=query["per_page"])


def note_get(note_id: int) -> GoodsReceivedNote:
    note = _notes().filter(pk=note_id).first()
    if note is None:
        raise not_found("goods_received_note", note_id)
    return note
