"""Product bodies written by PostgreSQL as JSON text (common.pg_json): a list entry and a
single read, byte for byte what api.serializers.products.product_summary and product_detail
give once DRF's JSONRenderer has written them (tests/store/catalog/test_product_json.py
compares them on PostgreSQL).

A page of 100 entries built in Python cost more than the rest of its request: 100 model rows
with their brands, images and categories, 200 timestamps, 500 decimals, 400 image URLs, then
the renderer. Here each entry is one text column of the page's query: no model, no dict; the
texts are joined into the body (api.serializers.bodies). A single read is one query (its
variants, gallery and attributes as subqueries) instead of seven.

Only where the answers are the same: on PostgreSQL, and while media URLs are the storage's
base URL and the file's name (the local file system: store.media.models.media_url takes the
same short cut), which the SQL writes itself (`media_base`). Under another storage (S3 signs
its URLs) the bodies are built in Python; so is a body with a file name that filepath_to_uri
would percent-encode (none the store writes): its text holds pg_json.UNWRITTEN_URL.

The entry's SQL is compiled once per database and media base and reused as a raw column in
each page's query (whose filters and order vary); the single read is a CompiledQuery.

A list entry, once built, is stored (models.ProductListEntry, services.list_entries) and read
from there while it is valid: the page's query itself checks that the stored entry was built
from the product row's current version, in the current generation and for this media base,
and builds it (as above) where not; `finish` stores what was built. Building the image,
categories and brand of 100 entries cost about 5 ms of the page's SQL; reading 100 stored
entries about 1 ms.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.files.storage import FileSystemStorage, default_storage
from django.db.models import (
    BigIntegerField,
    Exists,
    F,
    Func,
    OuterRef,
    QuerySet,
    Subquery,
    TextField,
    Value,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce, Collate, NullIf
from django.utils.functional import empty

from common import pg_json
from common.compiled import CompiledQuery
from common.pg_json import (
    CompactAgg,
    CompactMembers,
    CompactObject,
    FileUrlJson,
    IfUriSafe,
    IsoUtc,
    JsonMembers,
    JsonPathText,
    JsonString,
    JsonText,
    RendererText,
    TextConstant,
    json_list,
    json_or,
    json_or_null,
    member_run,
)
from store.catalog.choices import ProductStatus
from store.catalog.models import (
    Attribute,
    AttributeTerm,
    Brand,
    Product,
    ProductImage,
    ProductListEntry,
    Variant,
    VariantAttribute,
)
from store.catalog.selectors import products as selectors
from store.catalog.services import list_entries
from store.common.pagination import Page
from store.media.models import SIZE_NAMES, MediaImage

ProductCategory = Product.categories.through
ProductTerm = Product.attribute_terms.through


def media_base() -> str | None:
    """The base URL that media_url puts before a file's name (the local file system); None
    when the storage makes its URLs itself."""
    lazy: Any = default_storage
    storage = getattr(lazy, "_wrapped", lazy)
    if storage is empty:
        lazy._setup()
        storage = lazy._wrapped
    base = storage.base_url if type(storage) is FileSystemStorage else ""
    return base if base.endswith("/") and FileUrlJson.writes(base) else None


def enabled() -> bool:
    """Whether product bodies can be written by the database (see the module's docstring)."""
    return pg_json.enabled_for(Product) and media_base() is not None


# --- The JSON expressions -----------------------------------------------------------------------


def _rendition(path: str, size: str, fmt: str) -> NullIf:
    """The file name of a rendition (MediaImage.rendition_url): NULL when there is none."""
    return NullIf(JsonPathText(F(f"{path}renditions"), size, "files", fmt), TextConstant(""))


def _image_names(path: str, fmts: tuple[str, ...] = ("base",)) -> list[Any]:
    return [F(f"{path}file"), *(_rendition(path, size, fmt) for fmt in fmts for size in SIZE_NAMES)]


def image_object(base: str, path: str = "", *, guarded: bool = True) -> Func:
    """store.media.selectors.featured() of the image whose fields are reached by `path`: each
    size's URL, or the original's where the size has no file. `guarded`: UNWRITTEN_URL when
    a name needs percent-encoding (else the caller tests the names: IfUriSafe)."""
    file = F(f"{path}file")
    sizes = {
        size: FileUrlJson(Coalesce(_rendition(path, size, "base"), file), base, checked=True)
        for size in SIZE_NAMES
    }
    image = CompactObject(
        id=f"{path}id",
        url=FileUrlJson(file, base, checked=True),
        **sizes,
        alt=f"{path}alt_text",
        width=f"{path}width",
        height=f"{path}height",
    )
    return IfUriSafe(image, *_image_names(path)) if guarded else image


def image_sources(base: str) -> Func:
    """MediaImage.sources(): per modern format, the URL of each size that has it."""
    formats = ("avif", "webp")
    sources = CompactMembers(
        **{
            fmt: NullIf(
                CompactMembers(
                    **{
                        size: FileUrlJson(_rendition("", size, fmt), base, checked=True)
                        for size in SIZE_NAMES
                    }
                ),
                TextConstant("{}"),
            )
            for fmt in formats
        }
    )
    return IfUriSafe(sources, *_image_names("", formats)[1:])


def _image(column: str) -> QuerySet[MediaImage]:
    """The MediaImage row whose id is the outer row's `column`."""
    return MediaImage.objects.filter(pk=OuterRef(column)).order_by()


def summary_fields(base: str) -> dict[str, Any]:
    """The keys and values of product_summary, on a Product row. Keys that come from the same
    rows are written by one subquery (JsonMembers): the featured image and its URL, the
    categories and their ids."""
    categories: Any = (  # the through model's annotations escape django-stubs
        ProductCategory.objects.filter(product_id=OuterRef("pk")).order_by().values("product_id")
    )
    category_order = ("category__sort_order", "category__name", "category_id")
    return {
        "id": "id",
        "title": "title",
        "slug": "slug",
        "type": "type",
        "status": "status",
        "sku": "sku",
        "price": JsonString("price"),
        "regular_price": JsonString("regular_price"),
        "sale_price": JsonString("sale_price"),
        "on_sale": "on_sale",
        "min_price": JsonString("min_price"),
        "max_price": JsonString("max_price"),
        "stock_status": "stock_status",
        "stock_quantity": "stock_quantity",
        "low_stock_threshold": "low_stock_threshold",
        "featured_image": JsonMembers(  # and "image"
            json_or(
                _image("featured_image_id").values(
                    json=IfUriSafe(
                        member_run(
                            featured_image=image_object(base, guarded=False),
                            image=FileUrlJson(F("file"), base, checked=True),
                        ),
                        *_image_names(""),
                    )
                ),
                '"featured_image":null,"image":null',
            )
        ),
        "categories": JsonMembers(  # and "category_ids"
            json_or(
                categories.annotate(
                    json=member_run(
                        categories=CompactAgg(
                            CompactObject(
                                id="category_id", name="category__name", slug="category__slug"
                            ),
                            order_by=category_order,
                        ),
                        category_ids=CompactAgg(
                            JsonText(F("category_id")), order_by=category_order
                        ),
                    )
                ).values("json"),
                '"categories":[],"category_ids":[]',
            )
        ),
        "brand": json_or_null(
            Brand.objects.filter(pk=OuterRef("brand_id"))
            .order_by()
            .values(json=CompactObject(id="id", name="name", slug="slug"))
        ),
        "average_rating": JsonString("average_rating"),
        "review_count": "review_count",
        "created_at": JsonString(IsoUtc("created_at")),
        "updated_at": JsonString(IsoUtc("updated_at")),
    }


def _variant_object(base: str) -> CompactObject:
    """variant_data, on a Variant row."""
    attributes = (
        VariantAttribute.objects.filter(variant_id=OuterRef("pk"))
        .order_by()
        .values("variant_id")
        .annotate(
            json=CompactAgg(
                CompactObject(
                    attribute_id="attribute_id",
                    attribute="attribute__name",
                    attribute_slug="attribute__slug",
                    term_id="term_id",
                    term="term__name",
                    term_slug="term__slug",
                ),
                order_by=("attribute__sort_order", "attribute_id"),
            )
        )
        .values("json")
    )
    return CompactObject(
        id="id",
        product_id="product_id",
        sku="sku",
        barcode="barcode",
        title="title",
        attributes=json_list(attributes),
        price=JsonString("price"),
        regular_price=JsonString("regular_price"),
        sale_price=JsonString("sale_price"),
        on_sale="on_sale",
        stock_status="stock_status",
        stock_quantity="stock_quantity",
        track_inventory="track_inventory",
        allow_backorders="allow_backorders",
        weight=JsonString("weight"),
        length=JsonString("length"),
        width=JsonString("width"),
        height=JsonString("height"),
        image_id="image_id",
        image=json_or_null(_image("image_id").values(json=image_object(base))),
        enabled="enabled",
        sort_order="sort_order",
        created_at=JsonString(IsoUtc("created_at")),
        updated_at=JsonString(IsoUtc("updated_at")),
    )


def _attributes() -> Func:
    """product_detail's `attributes`: the product's terms grouped by attribute, attributes by
    (sort order, name, id) and terms by (sort order, name, id), names compared as Python
    compares them (by code point: the C collation)."""
    terms = (
        AttributeTerm.objects.filter(
            attribute_id=OuterRef("pk"),
            pk__in=ProductTerm.objects.filter(product_id=OuterRef(OuterRef(OuterRef("pk")))).values(
                "attributeterm_id"
            ),
        )
        .order_by()
        .values("attribute_id")
        .annotate(
            json=CompactAgg(
                CompactObject(id="id", name="name", slug="slug", value="value"),
                order_by=("sort_order", Collate(F("name"), "C"), "id"),
            )
        )
        .values("json")
    )
    attributes = (
        Attribute.objects.filter(
            Exists(
                ProductTerm.objects.filter(
                    product_id=OuterRef(OuterRef("pk")), attributeterm__attribute_id=OuterRef("pk")
                )
            )
        )
        .order_by()
        .annotate(one=Value(1))
        .values("one")
        .annotate(
            json=CompactAgg(
                CompactObject(
                    id="id", name="name", slug="slug", type="type", terms=json_list(terms)
                ),
                order_by=("sort_order", Collate(F("name"), "C"), "id"),
            )
        )
        .values("json")
    )
    return json_list(attributes)


def detail_fields(base: str) -> dict[str, Any]:
    """The keys and values product_detail adds to the summary, on a Product row."""
    gallery = ProductImage.objects.filter(product_id=OuterRef("pk")).order_by().values("product_id")
    variants = (
        Variant.objects.filter(product_id=OuterRef("pk"), enabled=True)
        .order_by()
        .values("product_id")
        .annotate(json=CompactAgg(_variant_object(base), order_by=("sort_order", "id")))
        .values("json")
    )
    return {
        "ean": "ean",
        "mpn": "mpn",
        "product_condition": "product_condition",
        "short_description": "short_description",
        "description": "description",
        "track_inventory": "track_inventory",
        "allow_backorders": "allow_backorders",
        "weight": JsonString("weight"),
        "length": JsonString("length"),
        "width": JsonString("width"),
        "height": JsonString("height"),
        "featured_image_id": "featured_image_id",
        "image_sources": json_or(
            _image("featured_image_id").values(json=image_sources(base)), "{}"
        ),
        "gallery_image_ids": JsonMembers(  # and "gallery_images"
            json_or(
                gallery.annotate(
                    json=member_run(
                        gallery_image_ids=CompactAgg(
                            JsonText(F("image_id")), order_by=("sort_order", "id")
                        ),
                        gallery_images=CompactAgg(
                            image_object(base, "image__"), order_by=("sort_order", "id")
                        ),
                    )
                ).values("json"),
                '"gallery_image_ids":[],"gallery_images":[]',
            )
        ),
        "attributes": _attributes(),
        "variants": json_list(variants),
        "total_sales": "total_sales",
    }


# --- The queries --------------------------------------------------------------------------------

_SUMMARY_SQL: dict[tuple[str, str], tuple[str, tuple[Any, ...]]] = {}

# A built entry's text starts with STALE, then the row version and generation it was built
# from, each followed by STALE: "\x02<row version>\x02<generation>\x02{...}" (see `_entry`).
# A stored entry starts with "{"; no entry holds the character (to_json escapes it).
STALE = "\x02"
_PRODUCT_TABLE = Product._meta.db_table


class RowVersion(Func):
    """The version of the product row the query reads (its table named, as in every Product
    query), which every UPDATE of the row renews, whatever it changes and however it is
    written (a save, queryset.update(), SQL): the transaction that wrote it (xmin) and where
    (ctid). The transaction alone does not tell two versions written by the same one apart;
    the place does, as the older version keeps its place until that transaction ends."""

    arity = 0
    output_field = TextField()
    template = f'("{_PRODUCT_TABLE}".xmin::text || "{_PRODUCT_TABLE}".ctid::text)'


class Generation(Func):
    """The stored entries' generation (ListEntryGeneration's table; 0 before the first bump)."""

    arity = 0
    output_field = BigIntegerField()
    template = (
        'COALESCE((SELECT "value" FROM "store_catalog_listentrygeneration" WHERE "id" = 1), 0)'
    )


class _Built(Func):
    """A built entry behind its marker (STALE, row version, generation)."""

    output_field = TextField()
    template = "concat(chr(2), %(expressions)s)"
    arg_joiner = ", chr(2), "


def _entry(base: str) -> Coalesce:
    """The list entry of a Product row: the stored one while it is valid (built from this
    version of the row, in this generation, for this media base), else built here behind its
    marker, so that the caller stores it (`finish`). PostgreSQL's COALESCE evaluates the build
    only where no valid entry is stored."""
    stored = ProductListEntry.objects.filter(
        product_id=OuterRef("pk"),
        row_version=RowVersion(),
        generation=Generation(),
        base=TextConstant(base),
    ).values("body")
    built = RendererText(CompactObject(**summary_fields(base)))
    return Coalesce(Subquery(stored), _Built(RowVersion(), Generation(), built))


def _summary_column(alias: str, base: str) -> RawSQL:
    """The list entry (`_entry`) as a raw column of a Product query, its SQL compiled once per
    database and media base (it refers to the product table by its name, as any Product query
    does)."""
    compiled = _SUMMARY_SQL.get((alias, base))
    if compiled is None:
        query = Product.objects.using(alias).annotate(entry=_entry(base)).values_list("entry").query
        compiler = query.get_compiler(alias)
        sql, params = compiler.compile(query.annotations["entry"])
        compiled = _SUMMARY_SQL[(alias, base)] = (sql, tuple(params))
    # SQL compiled by the ORM from the expressions above; the values stay parameters.
    return RawSQL(compiled[0], compiled[1], output_field=TextField())  # noqa: S611


def _base() -> str:
    base = media_base()
    if base is None:
        raise RuntimeError("product entries need media URLs the database can write")
    return base


def with_entries(queryset: QuerySet[Product]) -> QuerySet[Product, tuple[int, str]]:
    """`queryset` (of products) as (id, entry text) rows, an entry built by the query behind
    its marker: the rows go through `finish`."""
    return queryset.annotate(entry=_summary_column(queryset.db, _base())).values_list("pk", "entry")


def finish(rows: Iterable[tuple[int, str]]) -> list[tuple[int, str]]:
    """`rows` of `with_entries` as (id, entry JSON text); the entries the query built are
    stored (services.list_entries), with the row version and generation they were built
    from."""
    out: list[tuple[int, str]] = []
    built: dict[int, tuple[str, int, str]] = {}
    for pk, text in rows:
        if text[0] == STALE:
            version, generation, text = text[1:].split(STALE, 2)
            built[pk] = (version, int(generation), text)
        out.append((pk, text))
    if built:
        list_entries.store(built, _base())
    return out


def entry_page(args: dict[str, Any]) -> Page:
    """selectors.products.product_page with (id, entry) rows for items: the same COUNT and
    rows, each row's entry written by the database (no categories query)."""
    queryset = selectors.product_queryset(args)
    page, per_page = args["page"], args["per_page"]
    start = (page - 1) * per_page
    if args.get("search"):
        found, total = selectors.ranked_ids(selectors.ordered(queryset, args), start, per_page)
        items = entries_in_order(found, active_only=False)
        return Page(items=items, page=page, per_page=per_page, total=total)
    total = queryset.count()
    if start >= total:
        return Page(items=[], page=page, per_page=per_page, total=total)
    end = min(start + per_page, total)
    if start > total - end:  # the back half: read from the other end (product_page)
        rows = with_entries(selectors.ordered(queryset, args, reverse=True))
        items = finish(rows[total - end : total - start])[::-1]
    else:
        items = finish(with_entries(selectors.ordered(queryset, args))[start:end])
    return Page(items=items, page=page, per_page=per_page, total=total)


def entries_in_order(ids: list[int], *, active_only: bool = True) -> list[tuple[int, str]]:
    """(id, entry) of the products `ids` (the active ones only, by default), in that order."""
    if not ids:
        return []
    queryset = Product.objects.filter(pk__in=ids)
    if active_only:
        queryset = queryset.filter(status=ProductStatus.ACTIVE)
    found = dict(finish(with_entries(queryset.order_by())))
    return [(pk, found[pk]) for pk in ids if pk in found]


_DETAIL: dict[tuple[str, str], CompiledQuery] = {}


def _detail_query(by: str, base: str) -> CompiledQuery:
    """An active product's (id, slug, body JSON text) by id or by slug, compiled once per
    connection."""
    query = _DETAIL.get((by, base))
    if query is None:
        entry = RendererText(CompactObject(**summary_fields(base), **detail_fields(base)))

        def build(value: Any) -> QuerySet[Product, tuple[int, str, str]]:
            return (
                Product.objects.filter(**{by: value}, status=ProductStatus.ACTIVE)
                .order_by()
                .annotate(entry=entry)
                .values_list("pk", "slug", "entry")
            )

        samples = ((-1,), (-2,)) if by == "pk" else (("sample-slug-1",), ("sample-slug-2",))
        query = _DETAIL[(by, base)] = CompiledQuery(build, *samples)
    return query


def detail(
    *, product_id: int | None = None, slug: str | None = None
) -> tuple[int, str, str] | None:
    """An active product's (id, slug, body JSON text), by id or by slug; None: no such
    product for the public."""
    base = media_base()
    if base is None:
        raise RuntimeError("product bodies need media URLs the database can write")
    if product_id is not None:
        rows = _detail_query("pk", base).rows(product_id)
    else:
        rows = _detail_query("slug", base).rows(slug)
    return tuple(rows[0]) if rows else None
