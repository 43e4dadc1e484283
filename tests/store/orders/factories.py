"""Orders through the services (the one way to make them), and stocked products."""

from __future__ import annotations

from decimal import Decimal

from django.test import TestCase

from store.catalog.models import Product, Variant
from store.orders import services
from store.orders.models import Order
from tests.store.catalog.factories import make_product


def stocked(title: str = "Lamp", stock: int = 10, price: str = "10.00", **fields) -> Product:
    """An active simple product with tracked stock in the default warehouse."""
    return make_product(title=title, stock_quantity=stock, regular_price=price, **fields)


def line(item, quantity: int = 1, **extra) -> dict:
    """An order line for a product or a variant."""
    if isinstance(item, Variant):
        return {"product_id": item.product_id, "variant_id": item.pk, "quantity": quantity, **extra}
    return {"product_id": item.pk, "quantity": quantity, **extra}


def make_order(*lines: dict, status: str = "pending", **fields) -> Order:
    for key in ("shipping_total", "shipping_tax", "discount_total"):
        if isinstance(fields.get(key), (int, str)):
            fields[key] = Decimal(str(fields[key]))
    return services.order_create(items=list(lines), status=status, **fields)


def stock_of(item) -> int:
    item.refresh_from_db()
    return item.stock_quantity


def on_commit():
    """Run what the block enqueues on commit (the stock tasks) when it ends."""
    return TestCase.captureOnCommitCallbacks(execute=True)
