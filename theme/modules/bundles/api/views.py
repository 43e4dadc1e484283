from __future__ import annotations

from rest_framework.response import Response

from store.common.money import money_str
from store.common.pagination import named_page, page_of
from store.common.params import validate_query
from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from theme.modules.api.serializers import PageQuerySerializer
from theme.modules.api.views import ModuleView, product_card
from theme.modules.bundles import selectors

from . import serializers as s


def bundle_data(bundle) -> dict:
    prices = selectors.bundle_prices(bundle)
    return {
        "id": bundle.pk,
        "title": bundle.title,
        "slug": bundle.slug,
        "description": bundle.description,
        "discount_percent": str(bundle.discount_percent),
        **{key: money_str(value) for key, value in prices.items()},
        "items": [
            {"product_id": i.product_id, "quantity": i.quantity, "product": product_card(i.product)}
            for i in bundle.items.all()
        ],
    }


class BundlesView(ModuleView):
    module = "bundles"
    access = {"GET": PUBLIC}

    @store_schema(
        summary="Product bundles",
        parameters=[PageQuerySerializer],
        responses={200: s.BundlePageSerializer},
        description="Active bundles (edited in the admin) with their items, the sum of the "
        "items' prices (`regular_price`), the bundle price after its discount and the saving. "
        "Public.",
    )
    def get(self, request):
        query = validate_query(PageQuerySerializer, request.query_params)
        return Response(named_page("bundles", page_of(selectors.bundles(), query), bundle_data))
