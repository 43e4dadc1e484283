"""Demo products for `manage.py seed_demo` (development only)."""

from __future__ import annotations

from decimal import Decimal

from licensing.models import Product

DEMO_PRODUCTS = [
    {
        "slug": "emporion-theme",
        "name": "Emporion Theme",
        "description": "The storefront theme.",
        "starter_yearly_price": Decimal("59.00"),
        "starter_max_domains": 1,
        "business_yearly_price": Decimal("199.00"),
        "business_max_domains": 5,
    },
    {
        "slug": "emporion-seo",
        "name": "Emporion SEO Toolkit",
        "description": "Search-engine tools for the store.",
        "starter_yearly_price": Decimal("39.00"),
        "starter_max_domains": 1,
        "business_yearly_price": Decimal("129.00"),
        "business_max_domains": 10,
    },
]


def seed() -> list[str]:
    lines = []
    for fields in DEMO_PRODUCTS:
        values = {key: value for key, value in fields.items() if key != "slug"}
        product, _created = Product.objects.update_or_create(slug=fields["slug"], defaults=values)
        lines.append(f"  {product.name} (slug {product.slug}, id {product.pk})")
    return lines
