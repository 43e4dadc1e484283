"""The store's demo data for `manage.py seed_demo`: roles and a shop manager, settings, a
catalog (simple and variable products with images, categories, brands, attributes), reviews,
warehouses and orders in several statuses.
"""

from __future__ import annotations

from store.access import demo as access_demo
from store.catalog import demo as catalog_demo
from store.checkout import demo as checkout_demo
from store.coupons import demo as coupons_demo
from store.feeds import demo as feeds_demo
from store.inventory import demo as inventory_demo
from store.marketplace import demo as marketplace_demo
from store.orders import demo as orders_demo
from store.reviews import demo as reviews_demo
from store.settings import demo as settings_demo
from store.shipping import demo as shipping_demo
from store.tax import demo as tax_demo


def seed() -> list[str]:
    lines = [*access_demo.seed(), *settings_demo.seed()]
    lines.append("  Catalog:")
    lines += catalog_demo.seed()
    lines.append("  Reviews:")
    lines += reviews_demo.seed()
    lines.append("  Warehouses:")
    lines += inventory_demo.seed()
    lines.append("  Orders (developer@example.com's under /account/orders):")
    lines += orders_demo.seed()
    # Shipping, tax, coupons.
    lines.append("  Shipping:")
    lines += shipping_demo.seed()
    lines.append("  Tax:")
    lines += tax_demo.seed()
    lines.append("  Coupons:")
    lines += coupons_demo.seed()
    # Checkout: bank details, the store's e-mail.
    lines.append("  Checkout:")
    lines += checkout_demo.seed()
    # Marketplace sync and feeds.
    lines.append("  Marketplaces:")
    lines += marketplace_demo.seed()
    lines.append("  Marketplace feeds:")
    lines += feeds_demo.seed()
    lines += [
        "  Try: GET /rest/ec/v1/products, /rest/ec/v1/products/facets?attr_color=blue,",
        "       /rest/ec/v1/search?q=tee, /rest/ec/v1/categories/tree",
        "  Cart and checkout: docs/api/store.md's walk-through (POST /rest/ec/v1/cart/items)",
        "  Playground: log in at /admin/ as admin@example.com, then open",
        "       /rest/ec/v1/docs/playground",
    ]
    return lines
