from __future__ import annotations

from rest_framework.response import Response

from store.common.params import validate_query
from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from theme.modules.api.views import ModuleView
from theme.modules.product_names import selectors

from . import serializers as s


class ProductNamesView(ModuleView):
    module = "product_names"
    access = {"GET": PUBLIC}

    @store_schema(
        summary="Product titles by id",
        parameters=[s.ProductNamesQuerySerializer],
        responses={200: s.ProductNamesSerializer},
        description="`ids`: comma-separated product ids, at most THEME_PRODUCT_NAMES_MAX "
        "(400 beyond). Active products only; the others are listed in `missing`. Public.",
    )
    def get(self, request):
        query = validate_query(s.ProductNamesQuerySerializer, request.query_params)
        ids = selectors.parse_ids(query["ids"])
        names = selectors.product_names(ids)
        return Response(
            {
                "names": {str(pk): title for pk, title in names.items()},
                "missing": [pk for pk in ids if pk not in names],
            }
        )
