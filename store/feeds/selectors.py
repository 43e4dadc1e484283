"""Reads of the feeds app: feeds and their status, the category mapping, and the catalog
streamed in chunks for a feed (a fixed number of queries per chunk, whatever its size)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.db.models import Prefetch, Q

from store.catalog.choices import ProductStatus, StockStatus
from store.catalog.models import Category, Product, ProductImage, Variant, VariantAttribute
from store.catalog.selectors.products import attach_categories
from store.common.errors import not_found
from store.common.locations import Location
from store.feeds.models import CategoryMapping, Feed, FeedFile, Marketplace
from store.tax import selectors as tax_selectors

MARKETPLACES = tuple(Marketplace.values)


def marketplace_checked(marketplace: str) -> str:
    """`marketplace` when it is one the store makes a feed for; 404 `marketplace_not_found`."""
    if marketplace not in MARKETPLACES:
        raise not_found("marketplace", marketplace)
    return marketplace


def feed_of(marketplace: str) -> Feed | None:
    return Feed.objects.filter(marketplace=marketplace).first()


def feeds() -> dict[str, Feed]:
    return {feed.marketplace: feed for feed in Feed.objects.all()}


def feed_file_bytes(feed: Feed, *, compressed: bool) -> bytes:
    """The stored feed's bytes (gzipped with `compressed`), only that column read."""
    name = "compressed" if compressed else "content"
    value = FeedFile.objects.filter(feed=feed).values_list(name, flat=True).first()
    return bytes(value or b"")


def feed_file_meta(marketplace: str) -> FeedFile | None:
    """The stored feed's ETag, size and time, without its content."""
    return (
        FeedFile.objects.filter(feed__marketplace=marketplace)
        .defer("content", "compressed")
        .select_related("feed")
        .first()
    )


def feed_files_meta() -> dict[str, FeedFile]:
    """Every stored feed's ETag, size and time (one query), by marketplace."""
    rows = FeedFile.objects.defer("content", "compressed").select_related("feed")
    return {row.feed.marketplace: row for row in rows}


def mapping_of(marketplace: str) -> dict[int, str]:
    return dict(
        CategoryMapping.objects.filter(marketplace=marketplace).values_list("category_id", "value")
    )


def mapping_rows(marketplace: str) -> list[dict]:
    rows = CategoryMapping.objects.filter(marketplace=marketplace).values_list(
        "category_id", "category__name", "value", "updated_at"
    )
    return [
        {"category_id": cid, "category_name": name, "value": value, "updated_at": updated}
        for cid, name, value, updated in rows
    ]


# --- The catalog, for a feed ---------------------------------------------------------------------


@dataclass
class Taxonomy:
    """Every category (one query): parents, names, and each one's path from its root."""

    names: dict[int, str]
    parents: dict[int, int | None]
    paths: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def load(cls) -> Taxonomy:
        rows = list(Category.objects.values_list("id", "name", "parent_id"))
        taxonomy = cls(names={r[0]: r[1] for r in rows}, parents={r[0]: r[2] for r in rows})
        for category_id in taxonomy.names:
            taxonomy.paths[category_id] = taxonomy._path(category_id)
        return taxonomy

    def _path(self, category_id: int) -> list[int]:
        path, seen = [], set()
        current: int | None = category_id
        while current is not None and current in self.names and current not in seen:
            seen.add(current)
            path.append(current)
            current = self.parents.get(current)
        return path[::-1]

    def path_text(self, category_id: int) -> str:
        return " > ".join(self.names[c] for c in self.paths.get(category_id, []))

    def with_descendants(self, roots) -> set[int]:
        roots = set(roots)
        return {cid for cid, path in self.paths.items() if roots & set(path)}


def catalog_queryset(*, category_ids: set[int] | None, include_out_of_stock: bool):
    queryset = Product.objects.filter(status=ProductStatus.ACTIVE)
    if category_ids is not None:
        queryset = queryset.filter(categories__in=category_ids).distinct()
    if not include_out_of_stock:
        queryset = queryset.filter(~Q(stock_status=StockStatus.OUT_OF_STOCK))
    return queryset


def catalog_chunks(
    *, category_ids: set[int] | None, include_out_of_stock: bool
) -> Iterator[list[Product]]:
    """Active products in id order, FEEDS_CHUNK_SIZE at a time (keyset: no OFFSET), each chunk
    with its brand, featured image, categories, gallery, enabled variants (their image and
    attribute terms) and tax class: seven queries a chunk."""
    size = settings.FEEDS_CHUNK_SIZE
    variants = (
        Variant.objects.filter(enabled=True)
        .select_related("image")
        .prefetch_related(
            Prefetch(
                "variant_attributes",
                queryset=VariantAttribute.objects.select_related("attribute", "term"),
            )
        )
    )
    last = 0
    base = catalog_queryset(category_ids=category_ids, include_out_of_stock=include_out_of_stock)
    while True:
        ids = list(base.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:size])
        if not ids:
            return
        products = list(
            Product.objects.filter(pk__in=ids)
            .order_by("pk")
            .select_related("brand", "featured_image")
            .defer("search_document")
            .prefetch_related(
                Prefetch("gallery_items", queryset=ProductImage.objects.select_related("image")),
                Prefetch("variants", queryset=variants),
            )
        )
        attach_categories(products)
        classes = tax_selectors.product_tax_classes(ids)
        for product in products:
            product.feed_tax_class = classes[product.pk]
        yield products
        last = ids[-1]


def tax_percents(config: dict, slugs) -> dict[str, Decimal]:
    """Each tax class's combined rate at the store's country (the feeds' prices are the
    store's own; no query beyond the cached rate table)."""
    location = Location(country=config["general"]["store_country"])
    rates = tax_selectors.rates_for(location, set(slugs), config=config)
    return {
        slug: sum((rate.percent for rate in found), Decimal(0)) for slug, found in rates.items()
    }
