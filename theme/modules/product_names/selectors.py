"""The product names' reads: the ids asked for, parsed and bounded; the active ones' titles."""

from __future__ import annotations

from django.conf import settings

from store.catalog.choices import ProductStatus
from store.catalog.models import Product
from store.common.errors import invalid_params


def parse_ids(text: str) -> list[int]:
    """Comma-separated ids, each once in the order given, at most THEME_PRODUCT_NAMES_MAX."""
    ids: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isascii() or not part.isdigit() or len(part) > 18 or int(part) < 1:
            raise invalid_params({"ids": ["Use comma-separated product ids."]})
        if int(part) not in ids:
            ids.append(int(part))
    if not ids:
        raise invalid_params({"ids": ["Name at least one product id."]})
    if len(ids) > settings.THEME_PRODUCT_NAMES_MAX:
        raise invalid_params({"ids": [f"At most {settings.THEME_PRODUCT_NAMES_MAX} ids."]})
    return ids


def product_names(ids: list[int]) -> dict[int, str]:
    rows = Product.objects.filter(pk__in=ids, status=ProductStatus.ACTIVE).values_list(
        "pk", "title"
    )
    return dict(rows)
