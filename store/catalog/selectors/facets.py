"""Facet counts for a filter sidebar: for the same filters as the product list, the price
range and, per category, brand, attribute term and stock status, how many products match.

Counts are disjunctive (the way shoppers expect multi-select filters to work): the counts of
one dimension ignore that dimension's own filter, so with attr_color=red selected the colour
facet still shows how many products are blue. Category counts include products of
subcategories, the same way the category filter does.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, Max, Min

from store.catalog.models import Attribute, AttributeTerm, Brand, Category
from store.catalog.selectors.products import ProductCategory, ProductTerm, product_queryset
from store.common.money import money_str


def _ancestors() -> tuple[dict[int, list[int]], dict[int, Category]]:
    categories = {c.pk: c for c in Category.objects.only("id", "name", "slug", "parent_id")}
    chains: dict[int, list[int]] = {}
    for pk in categories:
        chain, seen, current = [], set(), pk
        while current is not None and current not in seen and current in categories:
            chain.append(current)
            seen.add(current)
            current = categories[current].parent_id
        chains[pk] = chain
    return chains, categories


def _category_counts(args: dict) -> list[dict]:
    products = product_queryset(args, exclude=frozenset({"category"})).values("pk")
    pairs = ProductCategory.objects.filter(product_id__in=products).values_list(
        "product_id", "category_id"
    )
    chains, categories = _ancestors()
    members: dict[int, set[int]] = defaultdict(set)
    for product_id, category_id in pairs:
        for ancestor in chains.get(category_id, [category_id]):
            members[ancestor].add(product_id)
    return [
        {
            "id": pk,
            "name": categories[pk].name,
            "slug": categories[pk].slug,
            "parent_id": categories[pk].parent_id,
            "count": len(members[pk]),
        }
        for pk in categories
        if members.get(pk)
    ]


def _brand_counts(args: dict) -> list[dict]:
    rows = (
        product_queryset(args, exclude=frozenset({"brand"}))
        .filter(brand__isnull=False)
        .values("brand_id")
        .annotate(count=Count("pk"))
        .order_by()
    )
    counts = {row["brand_id"]: row["count"] for row in rows}
    brands = Brand.objects.filter(pk__in=counts).only("id", "name", "slug")
    return [{"id": b.pk, "name": b.name, "slug": b.slug, "count": counts[b.pk]} for b in brands]


def _term_counts(args: dict, *, exclude: frozenset[str], attribute_slugs=None) -> dict[int, int]:
    products = product_queryset(args, exclude=exclude).values("pk")
    rows = ProductTerm.objects.filter(product_id__in=products)
    if attribute_slugs is not None:
        rows = rows.filter(attributeterm__attribute__slug__in=attribute_slugs)
    rows = (
        rows.values("attributeterm_id")
        .annotate(count=Count("product_id", distinct=True))
        .order_by()
    )
    return {row["attributeterm_id"]: row["count"] for row in rows}


def _attribute_counts(args: dict) -> list[dict]:
    filtered = [slug for slug, terms in (args.get("attributes") or {}).items() if terms]
    counts: dict[int, int] = {}
    # Attributes without a filter of their own: one query with every filter applied...
    others = _term_counts(args, exclude=frozenset())
    filtered_terms = (
        set(AttributeTerm.objects.filter(attribute__slug__in=filtered).values_list("pk", flat=True))
        if filtered
        else set()
    )
    counts.update({pk: n for pk, n in others.items() if pk not in filtered_terms})
    # ...and each filtered attribute with its own filter left out.
    for slug in filtered:
        counts.update(
            _term_counts(args, exclude=frozenset({f"attr_{slug}"}), attribute_slugs=[slug])
        )
    if not counts:
        return []
    terms = AttributeTerm.objects.filter(pk__in=counts).select_related("attribute")
    by_attribute: dict[int, dict] = {}
    for term in sorted(
        terms,
        key=lambda t: (
            t.attribute.sort_order,
            t.attribute.name,
            t.attribute_id,
            t.sort_order,
            t.name,
        ),
    ):
        attribute: Attribute = term.attribute
        entry = by_attribute.setdefault(
            attribute.pk,
            {
                "id": attribute.pk,
                "name": attribute.name,
                "slug": attribute.slug,
                "type": attribute.type,
                "terms": [],
            },
        )
        entry["terms"].append(
            {
                "id": term.pk,
                "name": term.name,
                "slug": term.slug,
                "value": term.value,
                "count": counts[term.pk],
            }
        )
    return list(by_attribute.values())


def _stock_counts(args: dict) -> list[dict]:
    rows = (
        product_queryset(args, exclude=frozenset({"stock_status"}))
        .values("stock_status")
        .annotate(count=Count("pk"))
        .order_by("stock_status")
    )
    return [{"value": row["stock_status"], "count": row["count"]} for row in rows]


def facet_counts(args: dict) -> dict:
    price = product_queryset(args, exclude=frozenset({"price"})).aggregate(
        min=Min("min_price"), max=Max("max_price")
    )
    matching = product_queryset(args)
    return {
        "total": matching.count(),
        "on_sale": matching.filter(on_sale=True).count(),
        "price_range": {"min": money_str(price["min"]), "max": money_str(price["max"])},
        "categories": _category_counts(args),
        "brands": _brand_counts(args),
        "attributes": _attribute_counts(args),
        "stock_status": _stock_counts(args),
    }
