"""The read abilities of the AI tool endpoint. Each calls the store's own selectors (catalog,
orders, reports, customers: never raw SQL) and answers plain JSON, redacted (redaction.redact)
before it leaves this module. A record about a person (a customer, a user) is built with
`person()`, so the redaction knows its name is a person's."""

from __future__ import annotations

import json
from datetime import date

from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone

from store.catalog.selectors import products as catalog_products
from store.catalog.selectors import search as catalog_search
from store.common.money import money
from store.customers import selectors as customer_selectors
from store.orders import selectors as order_selectors
from store.reports import selectors as report_selectors
from theme.mcp.redaction import person, redact

MAX_PER_PAGE = 50


def _answer(value) -> dict:
    """Redacted (while the records still say what they are, and amounts are still numbers),
    then JSON types only (Decimals and datetimes as strings)."""
    return json.loads(json.dumps(redact(value), cls=DjangoJSONEncoder))


def _product_card(product) -> dict:
    return {
        "id": product.pk,
        "title": product.title,
        "sku": product.sku,
        "status": product.status,
        "type": product.type,
        "price": product.price,
        "regular_price": product.regular_price,
        "sale_price": product.sale_price,
        "stock_status": product.stock_status,
        "stock_quantity": product.stock_quantity if product.track_inventory else None,
    }


def search_products(*, query: str, limit: int) -> dict:
    """Published products, by the storefront's weighted search (title > SKU > description)."""
    rows, total = catalog_search.search_products(query, limit=limit)
    return _answer({"total": total, "products": [_product_card(p) for p in rows]})


def read_product(*, product_id: int) -> dict:
    """One product, drafts and archived ones included (the administrator's view)."""
    product = catalog_products.product_get(product_id, include_unpublished=True, all_variants=True)
    body = _product_card(product)
    body |= {
        "slug": product.slug,
        "ean": product.ean,
        "mpn": product.mpn,
        "short_description": product.short_description,
        "description": product.description,
        "on_sale": product.on_sale,
        "track_inventory": product.track_inventory,
        "allow_backorders": product.allow_backorders,
        "low_stock_threshold": product.low_stock_threshold,
        "average_rating": product.average_rating,
        "review_count": product.review_count,
        "sales_count": product.total_sales,
        "categories": [
            {"id": c.pk, "name": c.name, "slug": c.slug} for c in product.categories.all()
        ],
        "variants": [
            {
                "id": v.pk,
                "title": v.title,
                "sku": v.sku,
                "price": v.price,
                "stock_quantity": v.stock_quantity,
                "stock_status": v.stock_status,
                "enabled": v.enabled,
            }
            for v in product.variants.all()
        ],
        "created_at": product.created_at,
        "updated_at": product.updated_at,
    }
    return _answer(body)


ORDER_FIELDS = (
    "id",
    "order_number",
    "status",
    "payment_status",
    "fulfillment_status",
    "currency",
    "total",
    "item_count",
    "customer_id",
    "created_at",
)


def list_orders(
    *,
    status: str | None,
    date_from: date | None,
    date_to: date | None,
    page: int,
    per_page: int,
) -> dict:
    """A page of orders, the newest first (the staff list's filters and order)."""
    query = {
        "status": [status] if status else [],
        "date_from": date_from,
        "date_to": date_to,
        "orderby": "date",
        "order": "DESC",
    }
    queryset = order_selectors.order_list(query)
    total = queryset.count()
    start = (page - 1) * per_page
    rows = list(queryset.values(*ORDER_FIELDS)[start : start + per_page]) if start < total else []
    return _answer(
        {
            "orders": rows,
            "total": total,
            "page": page,
            "per_page": per_page,
            "total_pages": -(-total // per_page),
        }
    )


def read_order(*, order_id: int) -> dict:
    """One order with its items, payments, shipments and latest status changes; the buyer's
    identity and addresses redacted (the country of each address kept)."""
    order = order_selectors.order_get(order_id)
    body = {field: getattr(order, field) for field in ORDER_FIELDS}
    body |= {
        "subtotal": order.subtotal,
        "amount_paid": order.amount_paid,
        "amount_refunded": order.amount_refunded,
        "payment_method": order.payment_method,
        "shipping_method": order.shipping_method,
        "billing_country": (order.billing_address or {}).get("country", ""),
        "shipping_country": (order.shipping_address or {}).get("country", ""),
        "billing_address": order.billing_address,
        "shipping_address": order.shipping_address,
        "customer_note": order.customer_note,
        "customer": (
            person(
                {
                    "id": order.customer.pk,
                    "email": order.customer.email,
                    "first_name": order.customer.first_name,
                    "last_name": order.customer.last_name,
                    "registered": order.customer.user_id is not None,
                }
            )
            if order.customer is not None
            else None
        ),
        "items": [
            {
                "id": item.pk,
                "product_id": item.product_id,
                "variant_id": item.variant_id,
                "title": item.title,
                "sku": item.sku,
                "quantity": item.quantity,
                "total": item.total,
            }
            for item in order.items.all()
        ],
        "payments": [
            {
                "id": p.pk,
                "kind": p.kind,
                "status": p.status,
                "amount": p.signed_amount,  # a refund negative, as in every list
                "paid_at": p.paid_at,
            }
            for p in order.payments.all()
        ],
        "shipments": [
            {
                "id": s.pk,
                "status": s.status,
                "carrier": s.carrier,
                "shipped_at": s.shipped_at,
                "delivered_at": s.delivered_at,
            }
            for s in order.shipments.all()
        ],
        "history": [
            {k: v for k, v in row.items() if k in ("field", "from_value", "to_value", "created_at")}
            for row in order.recent_history
        ],
        "completed_at": order.completed_at,
        "paid_at": order.paid_at,
    }
    return _answer(body)


def store_stats(*, period: str) -> dict:
    """The dashboard's figures for a named period (and the one before it)."""
    chosen = report_selectors.period_for(period, today=timezone.now().date())
    body = report_selectors.dashboard_stats(
        period=chosen,
        currency=report_selectors.store_currency(),
        default_threshold=report_selectors.store_low_stock_threshold(),
    )
    return _answer(body)


def low_stock(*, limit: int) -> dict:
    """Tracked products and variants at or below their low-stock threshold, emptiest first."""
    return _answer(
        report_selectors.low_stock(
            default_threshold=report_selectors.store_low_stock_threshold(), limit=limit
        )
    )


def customer_summaries(*, search: str, page: int, per_page: int) -> dict:
    """A page of customers with their order figures; who they are is redacted (their id, the
    figures and whether they hold an account are what an assistant gets)."""
    query = {
        "search": search,
        "status": "active",
        "orderby": "date",
        "order": "DESC",
        "page": page,
        "per_page": per_page,
    }
    found = customer_selectors.customers_with_stats_page(query)
    rows = [
        person(
            {
                "id": c.pk,
                "email": c.email,
                "first_name": c.first_name,
                "last_name": c.last_name,
                "phone": c.phone,
                "registered": c.user_id is not None,
                "orders_count": c.orders_count,
                "total_spent": money(c.total_spent),
                "last_order_at": c.last_order_at,
                "last_order_id": c.last_order_id,
                "created_at": c.created_at,
            }
        )
        for c in found.items
    ]
    return _answer(
        {
            "customers": rows,
            "currency": customer_selectors.store_currency(),
            **found.meta(),
        }
    )
