"""The weighted search of GET /search: products (title > SKU > description) and categories."""

from __future__ import annotations

from django.db import connections
from django.db.models import Case, IntegerField, Q, Value, When

from store.catalog.choices import ProductStatus
from store.catalog.models import Category, Product
from store.catalog.selectors.products import list_rows, ordered, ranked_slice, search_filter


def search_products(term: str, *, limit: int) -> tuple[list[Product], int]:
    queryset = search_filter(Product.objects.filter(status=ProductStatus.ACTIVE), term)
    rows = ordered(queryset, {"orderby": "relevance", "order": "DESC", "search": term})
    if connections[queryset.db].vendor == "postgresql":
        return ranked_slice(rows, 0, limit)
    return list_rows(rows[:limit]), queryset.count()


def search_categories(term: str, *, limit: int) -> list[Category]:
    words = term.split()[:8]
    condition = Q()
    for word in words:
        condition &= Q(name__icontains=word) | Q(slug__icontains=word)
    rank = Case(
        When(name__iexact=term, then=Value(3)),
        When(name__istartswith=term, then=Value(2)),
        default=Value(1),
        output_field=IntegerField(),
    )
    return list(
        Category.objects.filter(condition)
        .select_related("image")
        .annotate(rank=rank)
        .order_by("-rank", "name", "id")[:limit]
    )
