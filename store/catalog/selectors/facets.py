"""Facet counts for a filter sidebar: for the same filters as the product list, the price
range and, per category, brand, attribute term and stock status, how many products match.

Counts are disjunctive (the way shoppers expect multi-select filters to work): the counts of
one dimension ignore that dimension's own filter, so with attr_color=red selected the colour
facet still shows how many products are blue. Category counts include products of
subcategories, the same way the category filter does.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, Max, Min, Q

from store.catalog.models import Attribute, AttributeTerm, Category
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
        .values("brand_id", "brand__name", "brand__slug")
        .annotate(count=Count("pk"))
        .order_by("brand__name", "brand_id")
    )
    return [
        {
            "id": r["brand_id"],
            "name": r["brand__name"],
            "slug": r["brand__slug"],
            "count": r["count"],
        }
        for r in rows
    ]


def _term_counts(
    args: dict, *, exclude: frozenset[str], only=None, leave_out=None
) -> dict[int, int]:
    products = product_queryset(args, exclude=exclude).values("pk")
    rows = ProductTerm.objects.filter(product_id__in=products)
    if only is not None:
        rows = rows.filter(attributeterm__attribute__slug__in=only)
    if leave_out:
        rows = rows.exclude(attributeterm__attribute__slug__in=leave_out)
    rows = (
        rows.values("attributeterm_id")
        .annotate(count=Count("product_id", distinct=True))
        .order_by()
    )
    return {row["attributeterm_id"]: row["count"] for row in rows}


def _attribute_counts(args: dict) -> list[dict]:
    filtered = [slug for slug, terms in (args.get("attributes") or {}).items() if terms]
    # Attributes without a filter of their own: one query with every filter applied...
    counts = _term_counts(args, exclude=frozenset(), leave_out=filtered)
    # ...and each filtered attribute with its own filter left out.
    for slug in filtered:
        counts.update(_term_counts(args, exclude=frozenset({f"attr_{slug}"}), only=[slug]))
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
    matching = product_queryset(args).aggregate(
        total=Count("pk"), on_sale=Count("pk", filter=Q(on_sale=True))
    )
    return {
        "total": matching["total"],
        "on_sale": matching["on_sale"],
        "price_range": {"min": money_str(price["min"]), "max": money_str(price["max"])},
        "categories": _category_counts(args),
        "brands": _brand_counts(args),
        "attributes": _attribute_counts(args),
        "stock_status": _stock_counts(args),
    }
