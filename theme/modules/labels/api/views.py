from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from theme.modules import selectors as kernel
from theme.modules.api.views import OFF, ModuleView
from theme.modules.labels import selectors

from . import serializers as s


class ProductLabelsView(ModuleView):
    module = "labels"
    access = {"GET": PUBLIC}

    @store_schema(
        summary="A product's labels",
        parameters=[
            OpenApiParameter("product_id", int, OpenApiParameter.PATH, description="A product.")
        ],
        responses={200: s.ProductLabelsSerializer},
        errors={404: f"No such active product (`product_not_found`). {OFF}"},
        description="Computed from the product: `new` (created within THEME_LABEL_NEW_DAYS), "
        "`sale` (on sale now), `out_of_stock`, or `low_stock` (tracked stock at or under its "
        "low-stock threshold, else THEME_LABEL_LOW_STOCK). Public.",
    )
    def get(self, request, product_id: int):
        product = kernel.active_product(product_id)
        return Response({"product_id": product.pk, "labels": selectors.product_labels(product)})
