"""What the modules of this package share (private to it): the store's currency, the cost
quantum, the item a body names, a purchase order locked, a warehouse by id.
"""

from __future__ import annotations

from decimal import Decimal

from erp.purchasing.models import PurchaseOrder
from store.catalog.choices import ProductType
from store.catalog.models import Product, Variant
from store.common.errors import invalid_params, not_found
from store.inventory.models import Warehouse
from store.settings import selectors as store_settings

COST = Decimal("0.0001")


def store_currency() -> str:
    return str(store_settings.get_value("currency", "currency")).upper()


def _item(product_id: int, variant_id: int | None, param: str) -> tuple[Product, Variant | None]:
    """The product and variant a body names; 400 naming `param` when they do not fit."""
    product = Product.objects.filter(pk=product_id).first()
    if product is None:
        raise invalid_params({f"{param}product_id": [f"No product with id {product_id}."]})
    if variant_id is None:
        if product.type == ProductType.VARIABLE:
            raise invalid_params(
                {f"{param}variant_id": ["A variable product is bought by variant: give one."]}
            )
        return product, None
    variant = Variant.objects.filter(pk=variant_id, product_id=product.pk).first()
    if variant is None:
        raise invalid_params(
            {f"{param}variant_id": [f"Product {product_id} has no variant with id {variant_id}."]}
        )
    return product, variant


def _order_for_update(order_id: int) -> PurchaseOrder:
    order = (
        PurchaseOrder.objects.select_for_update(of=("self",))
        .select_related("supplier")
        .filter(pk=order_id)
        .first()
    )
    if order is None:
        raise not_found("purchase_order", order_id)
    return order


def _warehouse(warehouse_id: int | None, param: str = "warehouse_id") -> Warehouse | None:
    if warehouse_id is None:
        return None
    warehouse = Warehouse.objects.filter(pk=warehouse_id).first()
    if warehouse is None:
        raise invalid_params({param: [f"No warehouse with id {warehouse_id}."]})
    return warehouse
