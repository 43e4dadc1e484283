"""Variants of variable products."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from store.catalog.selectors import products as selectors
from store.catalog.services import variants as services
from store.common.capabilities import MANAGE_PRODUCTS
from store.common.params import validate_body
from store.common.permissions import PUBLIC, can
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView

from ..serializers import products as s

TAG = "Variants"
PRODUCT_ID = OpenApiParameter("product_id", int, OpenApiParameter.PATH)
VARIANT_ID = OpenApiParameter("variant_id", int, OpenApiParameter.PATH)


def _variants_body(product, request) -> dict:
    variants = selectors.variants_of(product, include_disabled=can(request, MANAGE_PRODUCTS))
    return {"data": [s.variant_data(v) for v in variants]}


class ProductVariantsView(StoreAPIView):
    access = {"GET": PUBLIC, "*": MANAGE_PRODUCTS}
    openapi_tag = TAG

    @store_schema(
        summary="List a product's variants",
        responses={200: s.VariantListSerializer},
        parameters=[PRODUCT_ID],
        description="`{data: [...]}` in sort order. The public sees the enabled variants of "
        "active products; managers see all.",
    )
    def get(self, request, product_id):
        manager = can(request, MANAGE_PRODUCTS)
        product = selectors.product_exists(product_id, include_unpublished=manager)
        return Response(_variants_body(product, request))

    @store_schema(
        summary="Create a variant",
        request=s.VariantWriteSerializer,
        responses={201: s.VariantSerializer},
        parameters=[PRODUCT_ID],
        errors={409: "Another variant has the same attributes (`variant_exists`)."},
        description="Only for variable products (else 400 `not_variable_product`). Without "
        "prices the variant takes the product's; its terms are added to the product's "
        "attributes so attribute filters find the product.",
    )
    def post(self, request, product_id):
        fields = validate_body(s.VariantWriteSerializer, request.data)
        variant = services.variant_create(product_id=product_id, fields=fields, user=request.user)
        variant = selectors.variant_get(variant.pk, include_unpublished=True)
        return Response(s.variant_data(variant), status=status.HTTP_201_CREATED)

    @store_schema(
        summary="Delete all variants of a product",
        responses={200: s.DeletedCountSerializer},
        parameters=[PRODUCT_ID],
    )
    def delete(self, request, product_id):
        deleted = services.variants_delete_all(product_id=product_id)
        return Response(
            {
                "success": True,
                "message": f"{deleted} variant(s) deleted.",
                "data": {"deleted": deleted},
            }
        )


class VariantReorderView(StoreAPIView):
    access = {"POST": MANAGE_PRODUCTS}
    openapi_tag = TAG

    @store_schema(
        summary="Reorder a product's variants",
        request=s.ReorderSerializer,
        responses={200: s.VariantListSerializer},
        parameters=[PRODUCT_ID],
        description="Body `{order: [{id, sort_order}, ...]}`; every id must be a variant of the "
        "product (else 400, nothing changes). Answers the variants in their new order.",
    )
    def post(self, request, product_id):
        body = validate_body(s.ReorderSerializer, request.data)
        services.variants_reorder(product_id=product_id, order=body["order"])
        product = selectors.product_exists(product_id, include_unpublished=True)
        return Response(_variants_body(product, request))


class VariantDetailView(StoreResourceView):
    access = {"GET": PUBLIC, "*": MANAGE_PRODUCTS}
    openapi_tag = TAG
    resource = "variant"
    id_kwarg = "variant_id"
    output_serializer = s.VariantSerializer
    write_serializer = s.VariantWriteSerializer
    errors = {
        method: {409: "Another variant has the same attributes (`variant_exists`)."}
        for method in ("patch", "put")
    }

    def read(self, request, pk):
        variant = selectors.variant_get(pk, include_unpublished=can(request, MANAGE_PRODUCTS))
        return s.variant_data(variant)

    def update(self, request, pk, fields):
        services.variant_update(variant_id=pk, fields=fields, user=request.user)

    def remove(self, request, pk):
        services.variant_delete(variant_id=pk)
