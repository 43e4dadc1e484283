"""Product reads: the list with every filter of the spec, single reads, barcode lookup.

The list is described by a plain dict of arguments (`list_args`), which the
`{prefix}_product_query_args` hook may change and which keys the cache of public lists.
"""

from __future__ import annotations

import re
from decimal import Decimal

from django.db import connections
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    Field,
    FloatField,
    Func,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Value,
    When,
    Window,
)
from django.db.models.functions import Cast

from store.catalog.choices import ProductStatus, StockStatus
from store.catalog.models import (
    Attribute,
    AttributeTerm,
    Category,
    Product,
    ProductImage,
    Variant,
    VariantAttribute,
)
from store.common.errors import invalid_params, not_found
from store.common.pagination import Page

ProductCategory = Product.categories.through
ProductTerm = Product.attribute_terms.through

ORDERBY = {
    "id": "id",
    "title": "title",
    "slug": "slug",
    "price": "price",
    "date": "created_at",
    "modified": "updated_at",
    "rating": "average_rating",
    "popularity": "total_sales",
    "sku": "sku",
    "stock_quantity": "stock_quantity",
    "relevance": "relevance",
}
MAX_SEARCH_TERMS = 8

# Search weights: any title match outranks any SKU match, which outranks any description match.
TITLE_EXACT, TITLE_PREFIX, TITLE_CONTAINS = 100, 40, 20
SKU_EXACT, SKU_CONTAINS = 12, 8
SHORT_DESCRIPTION, DESCRIPTION = 2, 1


def list_args(
    query: dict, *, attributes: dict[str, list[str]], out_of_stock_visible: bool, per_page: int
) -> dict:
    """The list's arguments as plain JSON values (the hook's `args` and the cache key)."""
    search = (query.get("q") or query.get("search") or "").strip() or None
    brand_ids = list(query.get("brand_ids") or [])
    if query.get("brand_id"):
        brand_ids = list(dict.fromkeys([query["brand_id"], *brand_ids]))
    stock_status = query.get("stock_status")

    def decimal(name):
        value = query.get(name)
        return None if value is None else format(value, "f")

    return {
        "status": query.get("status") or ProductStatus.ACTIVE.value,
        "type": query.get("type"),
        "search": search,
        "category": query.get("category"),
        "category_id": query.get("category_id"),
        "brand_ids": brand_ids,
        "min_price": decimal("min_price"),
        "max_price": decimal("max_price"),
        "on_sale": bool(query.get("on_sale")),
        "min_rating": decimal("min_rating"),
        "stock_status": stock_status,
        "attributes": attributes,
        "filter_logic": query.get("filter_logic") or "and",
        # Spec: without stock_status and search term, and with the out-of-stock visibility
        # setting off, out-of-stock products are left out.
        "hide_out_of_stock": not stock_status and not search and not out_of_stock_visible,
        "orderby": query.get("orderby") or ("relevance" if search else "id"),
        "order": query.get("order") or "DESC",
        "page": query.get("page") or 1,
        "per_page": per_page,
    }


def descendant_ids(root_ids) -> set[int]:
    """The categories and all their descendants (one query over the category tree)."""
    children: dict[int | None, list[int]] = {}
    for pk, parent_id in Category.objects.values_list("pk", "parent_id"):
        children.setdefault(parent_id, []).append(pk)
    out: set[int] = set()
    stack = list(root_ids)
    while stack:
        current = stack.pop()
        if current in out:
            continue
        out.add(current)
        stack.extend(children.get(current, []))
    return out


# The products found through their variants' SKUs, per term (a SKU fragment matching more
# variants than this finds the rest through the product's own fields or not at all).
MAX_VARIANT_SKU_MATCHES = 1000


def _terms(search: str) -> list[str]:
    return [term[:100] for term in search.split()][:MAX_SEARCH_TERMS]


def search_filter(queryset: QuerySet, search: str) -> QuerySet:
    """Keep products matching every term; annotate `relevance` (title > SKU > description).

    On PostgreSQL each term is found through indexes (migration 0002): the weighted full-text
    document `search_document` (GIN, prefix match: 'hood' finds 'hoodie'), trigrams of title
    and SKUs for partial words anywhere in them, and the variants' SKUs; the matches are ranked
    by the weights below, then by ts_rank over the document. Elsewhere (SQLite) icontains over
    the same fields, ranked by the same weights."""
    terms = _terms(search)
    postgres = connections[queryset.db].vendor == "postgresql"
    relevance = Value(0, output_field=IntegerField())
    tsquery_parts = []
    for term in terms:
        variant_sku = Q(
            pk__in=Variant.objects.filter(sku__icontains=term).values("product_id").order_by()
        )
        if postgres:
            # Every arm of the OR on the product table itself, so that the planner combines
            # the indexes (BitmapOr) rather than scanning the table against hashed sub-plans;
            # the variants' SKUs matching the term (few, on their trigram index) come first,
            # as literal ids.
            variant_ids = list(
                Variant.objects.filter(sku__icontains=term)
                .values_list("product_id", flat=True)
                .distinct()
                .order_by()[:MAX_VARIANT_SKU_MATCHES]
            )
            variant_sku = Q(pk__in=variant_ids)
            words = _words(term)
            matching = Q(title__icontains=term) | Q(sku__icontains=term)
            if words:
                tsquery_parts.extend(words)
                matching |= Q(search_document__matches=_tsquery(words))
            if variant_ids:
                matching |= variant_sku
            queryset = queryset.filter(matching)
        else:
            queryset = queryset.filter(
                Q(title__icontains=term)
                | Q(sku__icontains=term)
                | variant_sku
                | Q(short_description__icontains=term)
                | Q(description__icontains=term)
            )
        relevance = (
            relevance
            + Case(
                When(title__iexact=term, then=Value(TITLE_EXACT)),
                When(title__istartswith=term, then=Value(TITLE_PREFIX)),
                When(title__icontains=term, then=Value(TITLE_CONTAINS)),
                default=Value(0),
                output_field=IntegerField(),
            )
            + Case(
                When(sku__iexact=term, then=Value(SKU_EXACT)),
                When(sku__icontains=term, then=Value(SKU_CONTAINS)),
                When(variant_sku, then=Value(SKU_CONTAINS)),
                default=Value(0),
                output_field=IntegerField(),
            )
        )
        if not postgres:
            # On PostgreSQL the descriptions' part is the ts_rank over the weighted document
            # (below), read from the index's own vector: scanning every match's description
            # text again for the term cost a third of a common word's search at 50,000
            # products.
            relevance = (
                relevance
                + Case(
                    When(short_description__icontains=term, then=Value(SHORT_DESCRIPTION)),
                    default=Value(0),
                    output_field=IntegerField(),
                )
                + Case(
                    When(description__icontains=term, then=Value(DESCRIPTION)),
                    default=Value(0),
                    output_field=IntegerField(),
                )
            )
    if postgres and tsquery_parts:
        rank = Func(
            F("search_document"),
            _tsquery(tsquery_parts),
            function="ts_rank",
            output_field=FloatField(),
        )
        relevance = Cast(relevance, FloatField()) + rank
    return queryset.annotate(relevance=relevance)


def _words(term: str) -> list[str]:
    """The term's words as the 'simple' text-search parser sees them (letters and digits)."""
    return [word.lower() for word in re.findall(r"[^\W_]+", term)][:MAX_SEARCH_TERMS]


class _PrefixQuery(Func):
    """to_tsquery('simple', 'w1:* & w2:*'): every word, as a prefix."""

    function = "to_tsquery"

    def __init__(self, words: list[str]):
        text = " & ".join(f"{word}:*" for word in words)
        super().__init__(Value("simple"), Value(text), output_field=Field())

    def as_sql(self, compiler, connection, **extra_context):
        sql, params = super().as_sql(compiler, connection, **extra_context)
        return sql.replace("to_tsquery(%s", "to_tsquery(%s::regconfig", 1), params


def _tsquery(words: list[str]) -> _PrefixQuery:
    return _PrefixQuery(words)


def resolve_attribute_filters(attributes: dict[str, list[str]]) -> dict[str, list[str]]:
    """Refuse unknown attribute slugs (400 naming attr_{slug}); one query."""
    if not attributes:
        return {}
    known = set(Attribute.objects.filter(slug__in=list(attributes)).values_list("slug", flat=True))
    unknown = [slug for slug in attributes if slug not in known]
    if unknown:
        raise invalid_params({f"attr_{slug}": ["No attribute with this slug."] for slug in unknown})
    return attributes


def _attribute_condition(attributes: dict[str, list[str]], logic: str) -> Q:
    """Products having, per attribute, one of its terms (every attribute with `and`, any
    with `or`). The terms are looked up inside the query (no extra round trip); each
    attribute is one semi-join over the product-term links (indexed by term)."""

    def terms_of(condition: Q) -> Q:
        terms = AttributeTerm.objects.filter(condition).values("pk")
        return Q(pk__in=ProductTerm.objects.filter(attributeterm_id__in=terms).values("product_id"))

    wanted = [
        Q(attribute__slug=slug, slug__in=term_slugs)
        for slug, term_slugs in attributes.items()
        if term_slugs
    ]
    if not wanted:
        return Q()
    if logic == "or":
        combined = wanted[0]
        for condition in wanted[1:]:
            combined |= condition
        return terms_of(combined)
    out = Q()
    for condition in wanted:
        out &= terms_of(condition)
    return out


def _price_condition(low: str | None, high: str | None) -> Q:
    """The product's price is within the bounds; for a variable product, some enabled
    variant's price is.

    On the denormalised range [min_price, max_price] (services.products._derive: a simple
    product's price, or the lowest and highest price of the enabled variants): the range must
    overlap the bounds (indexed). With one bound that is exact (the cheapest, or the dearest,
    variant is in). With both, it is exact when the range's low end or high end is inside;
    only a range reaching past both bounds is checked against the variants."""
    if low is None and high is None:
        return Q()
    overlap = Q()
    if low is not None:
        overlap &= Q(max_price__gte=Decimal(low))
    if high is not None:
        overlap &= Q(min_price__lte=Decimal(high))
    if low is None or high is None:
        return overlap
    low_value, high_value = Decimal(low), Decimal(high)
    some_variant = Exists(
        Variant.objects.filter(
            product=OuterRef("pk"), enabled=True, price__gte=low_value, price__lte=high_value
        )
    )
    return overlap & (Q(min_price__gte=low_value) | Q(max_price__lte=high_value) | some_variant)


def product_queryset(args: dict, *, exclude: frozenset[str] = frozenset()) -> QuerySet:
    """Products matching `args`, unordered. `exclude` leaves filters out (facet counts)."""
    queryset = Product.objects.all()
    if args.get("status") and args["status"] != "any":
        queryset = queryset.filter(status=args["status"])
    if args.get("type"):
        queryset = queryset.filter(type=args["type"])
    if args.get("search") and "search" not in exclude:
        queryset = search_filter(queryset, args["search"])
    if "category" not in exclude:
        if args.get("category"):
            roots = list(
                Category.objects.filter(slug=args["category"]).values_list("pk", flat=True)
            )
            queryset = queryset.filter(
                Exists(
                    ProductCategory.objects.filter(
                        product_id=OuterRef("pk"), category_id__in=descendant_ids(roots)
                    )
                )
            )
        if args.get("category_id"):
            queryset = queryset.filter(
                Exists(
                    ProductCategory.objects.filter(
                        product_id=OuterRef("pk"),
                        category_id__in=descendant_ids([args["category_id"]]),
                    )
                )
            )
    if args.get("brand_ids") and "brand" not in exclude:
        queryset = queryset.filter(brand_id__in=args["brand_ids"])
    if "price" not in exclude and (
        args.get("min_price") is not None or args.get("max_price") is not None
    ):
        queryset = queryset.filter(_price_condition(args.get("min_price"), args.get("max_price")))
    if args.get("on_sale"):
        queryset = queryset.filter(on_sale=True)
    if args.get("min_rating") is not None:
        queryset = queryset.filter(average_rating__gte=Decimal(args["min_rating"]))
    if "stock_status" not in exclude:
        if args.get("stock_status"):
            queryset = queryset.filter(stock_status=args["stock_status"])
        elif args.get("hide_out_of_stock"):
            queryset = queryset.exclude(stock_status=StockStatus.OUT_OF_STOCK)
    attributes = {
        slug: terms
        for slug, terms in (args.get("attributes") or {}).items()
        if f"attr_{slug}" not in exclude
    }
    if attributes:
        queryset = queryset.filter(
            _attribute_condition(attributes, args.get("filter_logic") or "and")
        )
    return queryset


NULLABLE_ORDERS = frozenset({"price"})


def ordered(queryset: QuerySet, args: dict, *, reverse: bool = False) -> QuerySet:
    """The list's order: the field, ties by id; a missing price last both ways. These are
    the orders of the list's indexes. `reverse` gives the exact reverse order (the same
    index read backward)."""
    field = ORDERBY.get(args.get("orderby") or "id", "id")
    if field == "relevance" and not args.get("search"):
        field = "id"
    descending = _descending(args) != reverse
    tie = "-id" if descending else "id"
    if field == "id":
        return queryset.order_by(tie)
    if field not in NULLABLE_ORDERS:
        return queryset.order_by(f"-{field}" if descending else field, tie)
    nulls = {"nulls_first": True} if reverse else {"nulls_last": True}
    expression = F(field).desc(**nulls) if descending else F(field).asc(**nulls)
    return queryset.order_by(expression, tie)


def with_list_relations(queryset: QuerySet) -> QuerySet:
    """What a list entry shows, for a whole page in a fixed number of queries."""
    return queryset.select_related("featured_image", "brand").prefetch_related(
        Prefetch("categories", queryset=Category.objects.only("id", "name", "slug"))
    )


# Columns a list entry never shows: the search document and the long descriptions.
LIST_DEFERRED = ("search_document", "description")


def list_rows(queryset: QuerySet) -> list[Product]:
    """A page's products with what a list entry shows, in two queries whatever their number:
    the rows (brand and featured image joined) and their categories (one flat query, set as
    each product's prefetched categories; lighter than a Prefetch of model rows)."""
    products = list(queryset.select_related("featured_image", "brand").defer(*LIST_DEFERRED))
    attach_categories(products)
    return products


def rows_in_order(ids: list[int]) -> list[Product]:
    """`list_rows` of the products `ids`, in that order."""
    if not ids:
        return []
    found = {product.pk: product for product in list_rows(Product.objects.filter(pk__in=ids))}
    return [found[pk] for pk in ids if pk in found]


def attach_categories(products: list[Product]) -> None:
    by_product: dict[int, list[Category]] = {product.pk: [] for product in products}
    if by_product:
        rows = (
            ProductCategory.objects.filter(product_id__in=list(by_product))
            .order_by("category__sort_order", "category__name", "category_id")
            .values_list("product_id", "category_id", "category__name", "category__slug")
        )
        for product_id, category_id, name, slug in rows:
            by_product[product_id].append(Category(id=category_id, name=name, slug=slug))
    for product in products:
        cache = product.__dict__.setdefault("_prefetched_objects_cache", {})
        cache["categories"] = by_product[product.pk]


def with_detail_relations(queryset: QuerySet, *, all_variants: bool = False) -> QuerySet:
    variants = Variant.objects.select_related("image").prefetch_related(
        Prefetch(
            "variant_attributes",
            queryset=VariantAttribute.objects.select_related("attribute", "term"),
        )
    )
    if not all_variants:
        variants = variants.filter(enabled=True)
    return with_list_relations(queryset).prefetch_related(
        Prefetch("gallery_items", queryset=ProductImage.objects.select_related("image")),
        Prefetch("attribute_terms__attribute"),
        Prefetch("variants", queryset=variants),
    )


def product_page(args: dict) -> Page:
    """One COUNT, the page's rows, their categories. A page in the back half of the list is
    read from the other end (the order reversed, its rows flipped back): the order is total
    (ties broken by id), so the rows are the same and no query walks more than half the
    matches, however deep the page."""
    queryset = product_queryset(args)
    page, per_page = args["page"], args["per_page"]
    if args.get("search") and connections[queryset.db].vendor == "postgresql":
        return _ranked_page(queryset, args, page, per_page)
    total = queryset.count()
    start = (page - 1) * per_page
    if start >= total:
        return Page(items=[], page=page, per_page=per_page, total=total)
    end = min(start + per_page, total)
    if start > total - end:
        rows = ordered(queryset, args, reverse=True)[total - end : total - start]
        items = list_rows(rows)[::-1]
    else:
        items = list_rows(ordered(queryset, args)[start:end])
    return Page(items=items, page=page, per_page=per_page, total=total)


def _ranked_page(queryset: QuerySet, args: dict, page: int, per_page: int) -> Page:
    start = (page - 1) * per_page
    items, total = ranked_slice(ordered(queryset, args), start, per_page)
    return Page(items=items, page=page, per_page=per_page, total=total)


def ranked_slice(ranked: QuerySet, start: int, size: int) -> tuple[list[Product], int]:
    """A search's rows `start` to `start + size` and the number of matches (PostgreSQL): the
    slice's ids with COUNT(*) OVER () in one query (the rank sorts every match anyway), then
    their rows by id; a separate COUNT only for a slice past the last match. A common word's
    COUNT walked every match a second time, and sorting the matches' full rows cost a fifth
    of the search at 50,000 products."""
    ids, total = ranked_ids(ranked, start, size)
    return rows_in_order(ids), total


def ranked_ids(ranked: QuerySet[Product], start: int, size: int) -> tuple[list[int], int]:
    """The ids of a search's rows `start` to `start + size`, and the number of matches
    (`ranked_slice`)."""
    found = list(
        ranked.annotate(matches=Window(Count("*"))).values_list("pk", "matches")[
            start : start + size
        ]
    )
    if not found:
        return [], ranked.order_by().count()
    return [pk for pk, _matches in found], found[0][1]


def _descending(args: dict) -> bool:
    return (args.get("order") or "DESC").upper() == "DESC"


def products_by_ids(ids: list[int]) -> list[Product]:
    """Active products with what a list entry shows (two queries, whatever their number)."""
    return list_rows(Product.objects.filter(pk__in=ids, status=ProductStatus.ACTIVE))


def _visible(queryset: QuerySet, include_unpublished: bool) -> QuerySet:
    return queryset if include_unpublished else queryset.filter(status=ProductStatus.ACTIVE)


def product_get(product_id: int, *, include_unpublished: bool = False, all_variants: bool = False):
    """A product with everything the single read shows; drafts and archived ones only for
    managers. 404 product_not_found otherwise."""
    queryset = _visible(Product.objects.filter(pk=product_id), include_unpublished)
    product = with_detail_relations(queryset, all_variants=all_variants).first()
    if product is None:
        raise not_found("product", product_id)
    return product


def product_get_by_slug(slug: str, *, include_unpublished: bool = False) -> Product:
    queryset = _visible(Product.objects.filter(slug=slug), include_unpublished)
    product = with_detail_relations(queryset).first()
    if product is None:
        raise not_found("product", slug)
    return product


def product_exists(product_id: int, *, include_unpublished: bool = False) -> Product:
    product = _visible(Product.objects.filter(pk=product_id), include_unpublished).first()
    if product is None:
        raise not_found("product", product_id)
    return product


def product_by_barcode(barcode: str) -> tuple[Product, Variant | None] | None:
    """The product whose EAN, or the variant whose barcode, is `barcode`."""
    product = with_detail_relations(Product.objects.filter(ean=barcode), all_variants=True).first()
    if product is not None:
        return product, None
    variant = (
        Variant.objects.select_related("image")
        .prefetch_related(
            Prefetch(
                "variant_attributes",
                queryset=VariantAttribute.objects.select_related("attribute", "term"),
            )
        )
        .filter(barcode=barcode)
        .first()
    )
    if variant is None:
        return None
    product = with_detail_relations(
        Product.objects.filter(pk=variant.product_id), all_variants=True
    ).first()
    return product, variant


def variants_of(product: Product, *, include_disabled: bool) -> QuerySet:
    queryset = (
        Variant.objects.filter(product=product)
        .select_related("image")
        .prefetch_related(
            Prefetch(
                "variant_attributes",
                queryset=VariantAttribute.objects.select_related("attribute", "term"),
            )
        )
        .order_by("sort_order", "id")
    )
    return queryset if include_disabled else queryset.filter(enabled=True)


def variant_get(variant_id: int, *, include_unpublished: bool = False) -> Variant:
    """A variant; for the public only an enabled variant of an active product."""
    queryset = Variant.objects.select_related("image", "product").prefetch_related(
        Prefetch(
            "variant_attributes",
            queryset=VariantAttribute.objects.select_related("attribute", "term"),
        )
    )
    if not include_unpublished:
        queryset = queryset.filter(enabled=True, product__status=ProductStatus.ACTIVE)
    variant = queryset.filter(pk=variant_id).first()
    if variant is None:
        raise not_found("variant", variant_id)
    return variant
