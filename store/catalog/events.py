"""The catalog's store events, published through common.events inside the write's
transaction (see store.orders.events): product.created, product.updated, product.deleted.

Payloads: the product's id, SKU, title, slug, type, status, prices (decimal strings or null),
stock quantity and status, and times; product.updated also names the fields the write sent.
"""

from __future__ import annotations

from common import events
from store.catalog.models import Product
from store.common.money import money_str

PRODUCT_CREATED = "product.created"
PRODUCT_UPDATED = "product.updated"
PRODUCT_DELETED = "product.deleted"


def product_data(product: Product) -> dict:
    return {
        "product_id": product.pk,
        "sku": product.sku,
        "title": product.title,
        "slug": product.slug,
        "type": product.type,
        "status": product.status,
        "price": money_str(product.price),
        "regular_price": money_str(product.regular_price),
        "sale_price": money_str(product.sale_price),
        "stock_quantity": product.stock_quantity,
        "stock_status": product.stock_status,
        "created_at": product.created_at,
        "updated_at": product.updated_at,
    }


def product_created(product: Product) -> None:
    events.publish_store(PRODUCT_CREATED, {"product": product_data(product)})


def product_updated(product: Product, *, changed) -> None:
    events.publish_store(
        PRODUCT_UPDATED, {"changed": sorted(changed), "product": product_data(product)}
    )


def product_deleted(product: Product) -> None:
    events.publish_store(
        PRODUCT_DELETED,
        {
            "product": {
                "product_id": product.pk,
                "sku": product.sku,
                "title": product.title,
                "slug": product.slug,
            }
        },
    )
