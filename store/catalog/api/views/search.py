from __future__ import annotations

from rest_framework.response import Response

from store.catalog.selectors import search as selectors
from store.common import hooks
from store.common.params import validate_query
from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.media.selectors import featured

from ..serializers import products as s


class SearchView(StoreAPIView):
    access = {"GET": PUBLIC}
    openapi_tag = "Search"

    @store_schema(
        summary="Search products and categories",
        parameters=[s.SearchQuerySerializer],
        responses={200: s.SearchResultSerializer},
        description="Weighted: a match in the title ranks above a match in the SKU (also a "
        "variant's), which ranks above a match in the descriptions; every word of `q` must "
        "match. Active products only. per_page (default 8, capped at 20) limits both lists; "
        "`products.total` counts every match.",
    )
    def get(self, request):
        query = validate_query(s.SearchQuerySerializer, request.query_params)
        term = query["q"].strip()
        limit = query["per_page"]
        products, total = selectors.search_products(term, limit=limit)
        categories = selectors.search_categories(term, limit=limit)
        results = {
            "products": {
                "items": [
                    hooks.apply_filters(hooks.API_PRODUCT_RESPONSE, s.product_summary(p), p)
                    for p in products
                ],
                "total": total,
            },
            "categories": {
                "items": [
                    {
                        "id": c.pk,
                        "name": c.name,
                        "slug": c.slug,
                        "parent_id": c.parent_id,
                        "image": featured(c.image),
                    }
                    for c in categories
                ]
            },
        }
        return Response(hooks.apply_filters(hooks.SEARCH_RESULTS, results, term))
