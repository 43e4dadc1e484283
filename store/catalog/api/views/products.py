"""Products: list (with its cache), facets, single reads, lookup, writes, duplicate."""

from __future__ import annotations

import re

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from store.catalog import cache as catalog_cache
from store.catalog.choices import ProductStatus
from store.catalog.rules import barcode_problem
from store.catalog.selectors import facets as facet_selectors
from store.catalog.selectors import products as selectors
from store.catalog.services import products as services
from store.common import hooks
from store.common.capabilities import MANAGE_PRODUCTS
from store.common.errors import invalid_params, not_found
from store.common.params import validate_body, validate_query
from store.common.permissions import PUBLIC, can, ensure_capability
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.inventory import selectors as inventory_selectors
from store.settings import selectors as store_settings

from ..serializers import bodies
from ..serializers import products as s

TAG = "Products"
_ATTR_PARAM = re.compile(r"^attr_([a-z0-9][a-z0-9_-]*)$")
MAX_ATTRIBUTE_FILTERS = 20

PRODUCT_ID = OpenApiParameter("product_id", int, OpenApiParameter.PATH)
ATTR_PARAMETER = OpenApiParameter(
    "attr_{slug}",
    str,
    OpenApiParameter.QUERY,
    required=False,
    description="Attribute filter, one parameter per attribute: `attr_color=red,blue` (term "
    "slugs; a comma means OR within the attribute). An unknown attribute slug answers 400.",
)


def _attribute_filters(query_params) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    errors: dict[str, list[str]] = {}
    for name in query_params:
        if not name.startswith("attr_"):
            continue
        match = _ATTR_PARAM.match(name)
        if match is None:
            errors[name] = ["Attribute slugs are lower-case letters, digits, '-' and '_'."]
            continue
        terms = [t.strip() for t in ",".join(query_params.getlist(name)).split(",") if t.strip()]
        if not terms:
            errors[name] = ["Give at least one term slug."]
        out[match.group(1)] = list(dict.fromkeys(terms))[:50]
    if len(out) > MAX_ATTRIBUTE_FILTERS:
        errors["attr_"] = [f"At most {MAX_ATTRIBUTE_FILTERS} attribute filters."]
    if errors:
        raise invalid_params(errors)
    return out


def product_response(product) -> dict:
    """A single product's body, through the {prefix}_api_product_response hook."""
    return hooks.apply_filters(hooks.API_PRODUCT_RESPONSE, s.product_detail(product), product)


def _list_args(request) -> dict:
    query = validate_query(s.ProductListQuerySerializer, request.query_params)
    attributes = _attribute_filters(request.query_params)
    if query.get("status") not in (None, ProductStatus.ACTIVE):
        # Drafts and archived products are for managers only.
        ensure_capability(request, MANAGE_PRODUCTS)
    per_page = query.get("per_page")
    if per_page is None:
        default = store_settings.get_value("products", "products_per_page")
        per_page = max(1, min(int(hooks.apply_filters(hooks.PRODUCTS_PER_PAGE, default)), 100))
    args = selectors.list_args(
        query,
        attributes=attributes,
        out_of_stock_visible=store_settings.get_value("inventory", "out_of_stock_visibility"),
        per_page=per_page,
    )
    return hooks.apply_filters(hooks.PRODUCT_QUERY_ARGS, args)


def _cacheable(args: dict) -> bool:
    """Public lists (active products) without a search term are cached (spec)."""
    return not args.get("search") and args.get("status") == ProductStatus.ACTIVE


def _json(content: bytes) -> HttpResponse:
    """A cached answer: the rendered JSON as it was stored (no re-rendering)."""
    return HttpResponse(content, content_type="application/json")


def _cached_detail(request, load, product_id: int | None = None, slug: str | None = None):
    """A single product's body: the public's through the cache (serializers.bodies); managers
    (who may see drafts) read the database."""
    if can(request, MANAGE_PRODUCTS):
        return Response(product_response(load(True)))
    return _json(bodies.detail_content(product_id=product_id, slug=slug))


class ProductListView(StoreAPIView):
    access = {"GET": PUBLIC, "POST": MANAGE_PRODUCTS}
    openapi_tag = TAG

    @store_schema(
        summary="List products",
        parameters=[s.ProductListQuerySerializer, ATTR_PARAMETER],
        responses={200: s.ProductListSerializer},
        description="Every filter combines with the others. Without `stock_status` and "
        "without a search term, out-of-stock products are left out when the store setting "
        "inventory.out_of_stock_visibility is off. Lists of active products without a search "
        "term are cached until the catalog changes. Answers `{data, meta, inventory_settings}`;"
        " a page past the end has empty `data`.",
    )
    def get(self, request):
        args = _list_args(request)
        return _json(bodies.list_content(args, cacheable=_cacheable(args)))

    @store_schema(
        summary="Create a product",
        request=s.ProductWriteSerializer,
        responses={201: s.ProductDetailSerializer},
        description="`title` is required; type defaults to simple, status to draft, "
        "product_condition to new. Duplicate SKU, slug or barcode answer 400 "
        "(`duplicate_sku`, `duplicate_slug`, `duplicate_barcode`); a wrong EAN check digit "
        "400 `invalid_barcode`.",
    )
    def post(self, request):
        fields = validate_body(s.ProductWriteSerializer, request.data)
        product = services.product_create(fields=fields, user=request.user)
        product = selectors.product_get(product.pk, include_unpublished=True)
        return Response(product_response(product), status=status.HTTP_201_CREATED)


class ProductFacetsView(StoreAPIView):
    access = {"GET": PUBLIC}
    openapi_tag = TAG

    @store_schema(
        summary="Facet counts for the product filters",
        parameters=[s.ProductListQuerySerializer, ATTR_PARAMETER],
        responses={200: s.FacetsSerializer},
        description="Takes the filters of GET /products (paging and order are ignored) and "
        "answers, for a filter sidebar, the price range and how many products match per "
        "category, brand, attribute term and stock status. Each dimension is counted "
        "ignoring its own filter, so a shopper sees what choosing another value would give. "
        "Cached like the list.",
    )
    def get(self, request):
        args = _list_args(request)
        key = None
        if _cacheable(args):
            cached = catalog_cache.entry_key("facets", args, catalog_cache.DIMENSIONS)
            key = cached[0] if cached is not None else None
        if key is not None:
            cached = catalog_cache.get(key)
            if cached is not None:
                return _json(cached)
        args["attributes"] = selectors.resolve_attribute_filters(args.get("attributes") or {})
        body = facet_selectors.facet_counts(args)
        if key is None:
            return Response(body)
        content = JSONRenderer().render(body)
        catalog_cache.set_many({key: content})
        return _json(content)


class ProductLookupView(StoreAPIView):
    access = {"GET": MANAGE_PRODUCTS}
    openapi_tag = TAG

    @store_schema(
        summary="Find a product or variant by barcode",
        parameters=[s.LookupQuerySerializer],
        responses={200: s.LookupSerializer},
        description="Resolves a product by its EAN or a variant by its barcode. The barcode "
        "must be a valid EAN-8, UPC-A, EAN-13 or GTIN-14 (check digit verified; else 400 "
        "`invalid_barcode`). `stock_quantity` is the item's stock in `warehouse_id` (0, the "
        "default, is the default warehouse); an unknown warehouse answers 404 "
        "`warehouse_not_found`.",
        errors={
            404: "No product or variant has the barcode (`product_not_found`), or no such "
            "warehouse (`warehouse_not_found`)."
        },
    )
    def get(self, request):
        query = validate_query(s.LookupQuerySerializer, request.query_params)
        barcode = query["barcode"].strip()
        problem = barcode_problem(barcode)
        if problem:
            raise invalid_params({"barcode": [problem]}, code="invalid_barcode")
        warehouse = inventory_selectors.warehouse_get(query["warehouse_id"])
        found = selectors.product_by_barcode(barcode)
        if found is None:
            raise not_found("product", barcode)
        product, variant = found
        return Response(
            {
                "match": "variant" if variant else "product",
                "barcode": barcode,
                "warehouse_id": query["warehouse_id"],
                "stock_quantity": inventory_selectors.quantity_in(
                    warehouse=warehouse,
                    product_id=product.pk,
                    variant_id=variant.pk if variant else None,
                ),
                "product": product_response(product),
                "variant": s.variant_data(variant) if variant else None,
            }
        )


class ProductBySlugView(StoreAPIView):
    access = {"GET": PUBLIC}
    openapi_tag = TAG

    @store_schema(
        summary="Read a product by slug",
        responses={200: s.ProductDetailSerializer},
        parameters=[OpenApiParameter("slug", str, OpenApiParameter.PATH)],
        description="Same shape as GET /products/{id}.",
    )
    def get(self, request, slug):
        return _cached_detail(
            request,
            lambda manager: selectors.product_get_by_slug(slug, include_unpublished=manager),
            slug=slug,
        )


class ProductDetailView(StoreResourceView):
    access = {"GET": PUBLIC, "*": MANAGE_PRODUCTS}
    openapi_tag = TAG
    resource = "product"
    id_kwarg = "product_id"
    output_serializer = s.ProductDetailSerializer
    write_serializer = s.ProductWriteSerializer
    descriptions = {
        "get": "The product itself (no wrapper), with its enabled variants, the min/max price "
        "of a variable product, image_sources (AVIF/WebP) and gallery_images. Drafts and "
        "archived products answer 404 product_not_found except to managers.",
        "patch": "Every field is optional; only those sent change.",
        "put": "Same as PATCH: every field is optional.",
        "delete": "Deletes the product with its variants, gallery entries and reviews. 204 has "
        "no body (HTTP forbids one), so the spec's message string is not sent.",
    }

    def get(self, request, **kwargs):
        pk = kwargs[self.id_kwarg]
        return _cached_detail(
            request,
            lambda manager: selectors.product_get(pk, include_unpublished=manager),
            product_id=pk,
        )

    def read(self, request, pk):
        product = selectors.product_get(pk, include_unpublished=can(request, MANAGE_PRODUCTS))
        return product_response(product)

    def update(self, request, pk, fields):
        services.product_update(product_id=pk, fields=fields, user=request.user)

    def remove(self, request, pk):
        services.product_delete(product_id=pk)


class ProductDuplicateView(StoreAPIView):
    access = {"POST": MANAGE_PRODUCTS}
    openapi_tag = TAG

    @store_schema(
        summary="Duplicate a product",
        request=None,
        responses={201: s.ProductDetailSerializer},
        parameters=[PRODUCT_ID],
        description="A new draft with the fields, categories, images, attributes and variants "
        "of the product; SKUs and slug get a unique `-copy` suffix, barcodes are not copied.",
    )
    def post(self, request, product_id):
        copy = services.product_duplicate(product_id=product_id)
        product = selectors.product_get(copy.pk, include_unpublished=True, all_variants=True)
        return Response(product_response(product), status=status.HTTP_201_CREATED)
