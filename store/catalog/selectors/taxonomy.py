"""Category, attribute and brand reads."""

from __future__ import annotations

from django.db.models import Count, Prefetch, Q, QuerySet

from store.catalog.choices import ProductStatus
from store.catalog.models import Attribute, AttributeTerm, Brand, Category
from store.common.errors import not_found

_ACTIVE = Q(products__status=ProductStatus.ACTIVE)


def categories(
    *, parent_id: int | None = None, search: str | None = None, hide_empty=False
) -> QuerySet:
    """Categories with `count`: how many active products are in the category itself."""
    queryset = Category.objects.select_related("image").annotate(
        count=Count("products", filter=_ACTIVE, distinct=True)
    )
    if parent_id is not None:
        queryset = queryset.filter(parent_id=parent_id or None)
    if search:
        queryset = queryset.filter(Q(name__icontains=search) | Q(slug__icontains=search))
    if hide_empty:
        queryset = queryset.filter(count__gt=0)
    return queryset.order_by("sort_order", "name", "id")


def category_get(category_id: int) -> Category:
    category = categories().filter(pk=category_id).first()
    if category is None:
        raise not_found("category", category_id)
    return category


def category_tree() -> list[dict]:
    """Every category, nested under its parent: [{..., children: [...]}]. One query."""
    rows = list(categories())
    nodes = {row.pk: {"category": row, "children": []} for row in rows}
    roots = []
    for row in rows:
        parent = nodes.get(row.parent_id)
        (parent["children"] if parent else roots).append(nodes[row.pk])
    return roots


def attributes(*, with_terms: bool = False) -> QuerySet:
    queryset = Attribute.objects.annotate(terms_count=Count("terms", distinct=True))
    if with_terms:
        queryset = queryset.prefetch_related(Prefetch("terms", queryset=terms_queryset()))
    return queryset.order_by("sort_order", "name", "id")


def attribute_get(attribute_id: int) -> Attribute:
    attribute = attributes().filter(pk=attribute_id).first()
    if attribute is None:
        raise not_found("attribute", attribute_id)
    return attribute


def terms_queryset() -> QuerySet:
    return AttributeTerm.objects.annotate(
        count=Count("products", filter=_ACTIVE, distinct=True)
    ).order_by("sort_order", "name", "id")


def terms_of(attribute: Attribute) -> QuerySet:
    return terms_queryset().filter(attribute=attribute)


def term_get(term_id: int) -> AttributeTerm:
    term = terms_queryset().filter(pk=term_id).first()
    if term is None:
        raise not_found("term", term_id)
    return term


def brands(*, search: str | None = None) -> QuerySet:
    queryset = Brand.objects.select_related("logo").annotate(
        count=Count("products", filter=_ACTIVE, distinct=True)
    )
    if search:
        queryset = queryset.filter(Q(name__icontains=search) | Q(slug__icontains=search))
    return queryset.order_by("name", "id")


def brand_search(term: str) -> QuerySet:
    """Brands whose name or slug contains `term`, names starting with it first."""
    from django.db.models import Case, IntegerField, Value, When

    return (
        brands(search=term)
        .annotate(
            rank=Case(
                When(name__iexact=term, then=Value(0)),
                When(name__istartswith=term, then=Value(1)),
                default=Value(2),
                output_field=IntegerField(),
            )
        )
        .order_by("rank", "name", "id")
    )


def brand_get(brand_id: int) -> Brand:
    brand = brands().filter(pk=brand_id).first()
    if brand is None:
        raise not_found("brand", brand_id)
    return brand
