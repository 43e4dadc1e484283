"""Order services: every write of orders, their lines, payments, shipments and stock.

The checkout places orders with `order_create` (the one way to create an order).
"""

from store.orders.services.items import order_item_add, order_item_delete, order_item_update
from store.orders.services.orders import (
    BULK_DELETE,
    BULK_LIMIT,
    BulkResult,
    order_create,
    order_delete,
    order_fulfillment_status_set,
    order_payment_status_set,
    order_status_set,
    order_update,
    orders_bulk,
)
from store.orders.services.payments import payment_create, payment_delete, payment_update
from store.orders.services.restock import Restocked, order_items_restock, restock_check
from store.orders.services.shipments import shipment_create, shipment_delete, shipment_update
from store.orders.services.stock import order_stock_release, release_due

__all__ = [
    "BULK_DELETE",
    "BULK_LIMIT",
    "BulkResult",
    "Restocked",
    "order_create",
    "order_delete",
    "order_fulfillment_status_set",
    "order_item_add",
    "order_item_delete",
    "order_item_update",
    "order_items_restock",
    "order_payment_status_set",
    "order_status_set",
    "order_stock_release",
    "order_update",
    "orders_bulk",
    "payment_create",
    "payment_delete",
    "payment_update",
    "release_due",
    "restock_check",
    "shipment_create",
    "shipment_delete",
    "shipment_update",
]
