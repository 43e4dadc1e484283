"""Categories (with tree and bulk), attributes with terms, brands (with search)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from store.catalog.selectors import taxonomy as selectors
from store.catalog.services import attributes as attribute_services
from store.catalog.services import brands as brand_services
from store.catalog.services import categories as category_services
from store.common.capabilities import MANAGE_PRODUCTS
from store.common.pagination import data_page, page_of, paginate
from store.common.params import validate_body, validate_query
from store.common.permissions import PUBLIC
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView

from ..serializers import taxonomy as s

READ_PUBLIC_WRITE_MANAGERS = {"GET": PUBLIC, "*": MANAGE_PRODUCTS}


def _id(name: str) -> OpenApiParameter:
    return OpenApiParameter(name, int, OpenApiParameter.PATH)


# --- Categories ---------------------------------------------------------------------------------


class CategoryListView(StoreAPIView):
    access = READ_PUBLIC_WRITE_MANAGERS
    openapi_tag = "Categories"

    @store_schema(
        summary="List categories",
        parameters=[s.CategoryListQuerySerializer],
        responses={200: s.CategoryPageSerializer},
        description="`{data, meta}` ordered by sort_order then name. `parent=0` gives the top "
        "level; `hide_empty` leaves out categories without active products of their own.",
    )
    def get(self, request):
        query = validate_query(s.CategoryListQuerySerializer, request.query_params)
        page = page_of(
            selectors.categories(
                parent_id=query.get("parent"),
                search=query.get("search"),
                hide_empty=query["hide_empty"],
            ),
            query,
        )
        return Response(data_page(page, s.category_data))

    @store_schema(
        summary="Create a category",
        request=s.CategoryWriteSerializer,
        responses={201: s.CategorySerializer},
    )
    def post(self, request):
        fields = validate_body(s.CategoryWriteSerializer, request.data)
        category = category_services.category_create(fields=fields)
        return Response(
            s.category_data(selectors.category_get(category.pk)), status=status.HTTP_201_CREATED
        )


class CategoryTreeView(StoreAPIView):
    access = {"GET": PUBLIC}
    openapi_tag = "Categories"

    @store_schema(
        summary="All categories as a tree",
        responses={200: s.CategoryTreeSerializer(many=True)},
        description="Top-level categories, each with `children` nested to any depth.",
    )
    def get(self, request):
        return Response([s.tree_data(node) for node in selectors.category_tree()])


class CategoryBulkView(StoreAPIView):
    access = {"POST": MANAGE_PRODUCTS}
    openapi_tag = "Categories"

    @store_schema(
        summary="Create, update and delete categories in one request",
        request=s.CategoryBulkSerializer,
        responses={200: s.BulkResultSerializer},
        description="Body `{create: [category], update: [{id, ...fields}], delete: [id]}`. "
        "All in one transaction: any invalid item refuses the whole request (400 naming it, "
        "e.g. `update.2.parent_id`) and nothing changes. Deleted categories' children move up "
        "to their parent.",
    )
    def post(self, request):
        body = validate_body(s.CategoryBulkSerializer, request.data)
        result = category_services.categories_bulk(
            create=body["create"], update=body["update"], delete=body["delete"]
        )
        ids = [c.pk for c in [*result["created"], *result["updated"]]]
        fresh = {c.pk: c for c in selectors.categories().filter(pk__in=ids)}
        return Response(
            {
                "success": True,
                "message": f"{len(result['created'])} created, {len(result['updated'])} "
                f"updated, {len(result['deleted'])} deleted.",
                "data": {
                    "created": [s.category_data(fresh[c.pk]) for c in result["created"]],
                    "updated": [s.category_data(fresh[c.pk]) for c in result["updated"]],
                    "deleted": result["deleted"],
                },
            }
        )


class CategoryDetailView(StoreResourceView):
    access = READ_PUBLIC_WRITE_MANAGERS
    openapi_tag = "Categories"
    resource = "category"
    id_kwarg = "category_id"
    output_serializer = s.CategorySerializer
    write_serializer = s.CategoryWriteSerializer
    descriptions = {
        "patch": "A category cannot move under itself or its descendants (400 `category_cycle`).",
        "delete": "Its children move up to its parent; its products just lose it.",
    }

    def read(self, request, pk):
        return s.category_data(selectors.category_get(pk))

    def update(self, request, pk, fields):
        category_services.category_update(category_id=pk, fields=fields)

    def remove(self, request, pk):
        category_services.category_delete(category_id=pk)


# --- Attributes and terms -----------------------------------------------------------------------


class AttributeListView(StoreAPIView):
    access = READ_PUBLIC_WRITE_MANAGERS
    openapi_tag = "Attributes"

    @store_schema(summary="List attributes", responses={200: s.AttributeListSerializer})
    def get(self, request):
        return Response({"data": [s.attribute_data(a) for a in selectors.attributes()]})

    @store_schema(
        summary="Create an attribute",
        request=s.AttributeWriteSerializer,
        responses={201: s.AttributeSerializer},
        description="The slug (made from the name when not given) names the product list "
        "filter `attr_{slug}`: lower-case letters, digits, '-' and '_'.",
    )
    def post(self, request):
        fields = validate_body(s.AttributeWriteSerializer, request.data)
        attribute = attribute_services.attribute_create(fields=fields)
        return Response(
            s.attribute_data(selectors.attribute_get(attribute.pk)), status=status.HTTP_201_CREATED
        )


class AttributesWithTermsView(StoreAPIView):
    access = {"GET": PUBLIC}
    openapi_tag = "Attributes"

    @store_schema(
        summary="Every attribute with its terms",
        responses={200: s.AttributeWithTermsListSerializer},
    )
    def get(self, request):
        return Response(
            {
                "data": [
                    s.attribute_data(a, with_terms=True)
                    for a in selectors.attributes(with_terms=True)
                ]
            }
        )


class AttributeDetailView(StoreResourceView):
    access = READ_PUBLIC_WRITE_MANAGERS
    openapi_tag = "Attributes"
    resource = "attribute"
    id_kwarg = "attribute_id"
    output_serializer = s.AttributeSerializer
    write_serializer = s.AttributeWriteSerializer
    summaries = {"delete": "Delete an attribute and its terms"}
    errors = {"delete": {409: "Variants use the attribute (`attribute_in_use`)."}}

    def read(self, request, pk):
        return s.attribute_data(selectors.attribute_get(pk))

    def update(self, request, pk, fields):
        attribute_services.attribute_update(attribute_id=pk, fields=fields)

    def remove(self, request, pk):
        attribute_services.attribute_delete(attribute_id=pk)


class AttributeTermsView(StoreAPIView):
    access = READ_PUBLIC_WRITE_MANAGERS
    openapi_tag = "Attributes"

    @store_schema(
        summary="List an attribute's terms",
        responses={200: s.TermListSerializer},
        parameters=[_id("attribute_id")],
    )
    def get(self, request, attribute_id):
        attribute = selectors.attribute_get(attribute_id)
        return Response({"data": [s.term_data(t) for t in selectors.terms_of(attribute)]})

    @store_schema(
        summary="Create a term",
        request=s.TermWriteSerializer,
        responses={201: s.TermSerializer},
        parameters=[_id("attribute_id")],
    )
    def post(self, request, attribute_id):
        fields = validate_body(s.TermWriteSerializer, request.data)
        term = attribute_services.term_create(attribute_id=attribute_id, fields=fields)
        return Response(s.term_data(selectors.term_get(term.pk)), status=status.HTTP_201_CREATED)


class TermDetailView(StoreResourceView):
    access = READ_PUBLIC_WRITE_MANAGERS
    openapi_tag = "Attributes"
    resource = "term"
    id_kwarg = "term_id"
    output_serializer = s.TermSerializer
    write_serializer = s.TermWriteSerializer
    errors = {"delete": {409: "Variants use the term (`term_in_use`)."}}

    def read(self, request, pk):
        return s.term_data(selectors.term_get(pk))

    def update(self, request, pk, fields):
        attribute_services.term_update(term_id=pk, fields=fields)

    def remove(self, request, pk):
        attribute_services.term_delete(term_id=pk)


# --- Brands -------------------------------------------------------------------------------------


class BrandListView(StoreAPIView):
    access = READ_PUBLIC_WRITE_MANAGERS
    openapi_tag = "Brands"

    @store_schema(
        summary="List brands",
        parameters=[s.BrandListQuerySerializer],
        responses={200: s.BrandPageSerializer},
    )
    def get(self, request):
        query = validate_query(s.BrandListQuerySerializer, request.query_params)
        page = page_of(selectors.brands(search=query.get("search")), query)
        return Response(data_page(page, s.brand_data))

    @store_schema(
        summary="Create a brand", request=s.BrandWriteSerializer, responses={201: s.BrandSerializer}
    )
    def post(self, request):
        fields = validate_body(s.BrandWriteSerializer, request.data)
        brand = brand_services.brand_create(fields=fields)
        return Response(s.brand_data(selectors.brand_get(brand.pk)), status=status.HTTP_201_CREATED)


class BrandSearchView(StoreAPIView):
    access = {"GET": PUBLIC}
    openapi_tag = "Brands"

    @store_schema(
        summary="Search brands",
        parameters=[s.BrandSearchQuerySerializer],
        responses={200: s.BrandPageSerializer},
        description="Brands whose name or slug contains `q`: exact name first, then names "
        "starting with it, then the rest. per_page default 10, at most 50.",
    )
    def get(self, request):
        query = validate_query(s.BrandSearchQuerySerializer, request.query_params)
        page = paginate(
            selectors.brand_search(query["q"].strip()), page=1, per_page=query["per_page"]
        )
        return Response(data_page(page, s.brand_data))


class BrandDetailView(StoreResourceView):
    access = READ_PUBLIC_WRITE_MANAGERS
    openapi_tag = "Brands"
    resource = "brand"
    id_kwarg = "brand_id"
    output_serializer = s.BrandSerializer
    write_serializer = s.BrandWriteSerializer
    descriptions = {"delete": "Its products stay, without a brand."}

    def read(self, request, pk):
        return s.brand_data(selectors.brand_get(pk))

    def update(self, request, pk, fields):
        brand_services.brand_update(brand_id=pk, fields=fields)

    def remove(self, request, pk):
        brand_services.brand_delete(brand_id=pk)
