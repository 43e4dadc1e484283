"""Fixtures of the purchasing tests: a buyer (ec_manage_purchasing) and helpers that make
suppliers, prices and orders through the services."""

from __future__ import annotations

import itertools
from decimal import Decimal

import pytest

from erp.purchasing import services
from store.catalog.models import Product
from store.inventory.models import StockLevel, StockMovement
from store.inventory.services import default_warehouse
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, grant
from tests.store.catalog.factories import make_product

PURCHASING = "ec_manage_purchasing"
BASE = API


@pytest.fixture
def buyer(db):
    return grant(UserFactory(email="buyer@example.com"), PURCHASING)


@pytest.fixture
def buyer_client(store_client, buyer, erp_on):
    return store_client(buyer)


def make_supplier(**fields):
    fields.setdefault("name", "Acme Supplies")
    fields.setdefault("email", "orders@acme.example")
    return services.supplier_create(fields=fields)


def make_price(supplier, item, unit_price="2.50", **fields):
    variant = getattr(item, "product_id", None)
    body = {
        "product_id": item.product_id if variant else item.pk,
        "variant_id": item.pk if variant else None,
        "unit_price": Decimal(str(unit_price)),
        **fields,
    }
    return services.supplier_price_create(supplier_id=supplier.pk, fields=body)


_skus = itertools.count(1)


def product(title="Widget", stock=0, sku=None, **fields):
    """A product with tracked stock; its SKU the title's (then numbered when taken)."""
    if sku is None:
        sku = title.upper()[:10]
        if Product.objects.filter(sku=sku).exists():
            sku = f"{sku}-{next(_skus)}"
    return make_product(title=title, stock_quantity=stock, sku=sku, **fields)


def make_order(supplier, *lines, **fields):
    """A draft: lines are (item, quantity) or (item, quantity, unit_cost)."""
    body_lines = []
    for entry in lines:
        item, quantity, *cost = entry
        line = {"product_id": getattr(item, "product_id", None) or item.pk, "quantity": quantity}
        if getattr(item, "product_id", None):
            line["variant_id"] = item.pk
        if cost:
            line["unit_cost"] = Decimal(str(cost[0]))
        body_lines.append(line)
    return services.purchase_order_create(
        fields={"supplier_id": supplier.pk, "lines": body_lines, **fields}
    )


def sent_order(supplier, *lines, **fields):
    order = make_order(supplier, *lines, **fields)
    services.purchase_order_send(order_id=order.pk, email=False)
    order.refresh_from_db()
    return order


def level_of(item, warehouse=None) -> StockLevel:
    warehouse = warehouse or default_warehouse()
    variant_id = item.pk if getattr(item, "product_id", None) else None
    product_id = item.product_id if variant_id else item.pk
    return StockLevel.objects.get(warehouse=warehouse, product_id=product_id, variant_id=variant_id)


def ledger_sum(level: StockLevel) -> int:
    return sum(StockMovement.objects.filter(level=level).values_list("quantity", flat=True))


__all__ = ["BASE", "PURCHASING"]
