"""The kernel's reads: which modules are on, and the active products the modules name."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings

from store.catalog.choices import ProductStatus
from store.catalog.models import Product
from store.common.errors import not_found


def module_active(name: str) -> bool:
    """Whether module `name` is on (settings.THEME_MODULES)."""
    return name in settings.THEME_MODULES


def active_product(product_id: int) -> Product:
    """An active product, else 404 `product_not_found` (the modules show only what is sold)."""
    product = Product.objects.filter(pk=product_id, status=ProductStatus.ACTIVE).first()
    if product is None:
        raise not_found("product", product_id)
    return product


def active_products(ids: Iterable[int]) -> dict[int, Product]:
    """The active products of `ids` by id, in one query; 404 `product_not_found` naming the
    lowest id that is not one, so a write that names a product refuses before it changes
    anything."""
    wanted = set(ids)
    found = Product.objects.filter(pk__in=wanted, status=ProductStatus.ACTIVE).in_bulk()
    missing = sorted(wanted - set(found))
    if missing:
        raise not_found("product", missing[0])
    return found
