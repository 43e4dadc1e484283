"""The labels' read: a product's labels, computed from the product and the settings."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from store.catalog.choices import StockStatus
from store.catalog.models import Product


def product_labels(product: Product, now: datetime | None = None) -> list[dict[str, str]]:
    now = now or timezone.now()
    labels: list[dict[str, str]] = []
    if now - product.created_at <= timedelta(days=settings.THEME_LABEL_NEW_DAYS):
        labels.append({"code": "new", "label": "New"})
    if product.on_sale:
        labels.append({"code": "sale", "label": "Sale"})
    if product.stock_status == StockStatus.OUT_OF_STOCK:
        labels.append({"code": "out_of_stock", "label": "Out of stock"})
    elif product.track_inventory:
        threshold = product.low_stock_threshold
        if threshold is None:
            threshold = settings.THEME_LABEL_LOW_STOCK
        if product.stock_quantity <= threshold:
            labels.append({"code": "low_stock", "label": "Low stock"})
    return labels
