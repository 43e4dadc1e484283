"""The bundles' reads: the active ones with their items (a bounded number of queries per page)
and a bundle's prices."""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Prefetch, QuerySet

from theme.modules.bundles.models import Bundle, BundleItem

CENT = Decimal("0.01")


def bundles() -> QuerySet[Bundle]:
    """The active bundles, their items and products prefetched (paged by the caller)."""
    items = BundleItem.objects.select_related("product").order_by("pk")
    return Bundle.objects.filter(active=True).prefetch_related(Prefetch("items", queryset=items))


def bundle_prices(bundle: Bundle) -> dict[str, Decimal]:
    """The sum of the items' prices and the bundle's price after its discount."""
    regular = sum(
        ((item.product.price or Decimal(0)) * item.quantity for item in bundle.items.all()),
        Decimal(0),
    )
    price = (regular * (100 - bundle.discount_percent) / 100).quantize(CENT)
    return {"regular_price": regular.quantize(CENT), "price": price, "saving": regular - price}
