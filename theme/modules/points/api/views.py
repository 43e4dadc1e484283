from __future__ import annotations

from django.conf import settings
from rest_framework.response import Response

from store.common.pagination import named_page, page_of
from store.common.params import validate_query
from store.common.permissions import LOGGED_IN
from store.common.schema import store_schema
from theme.modules.api.serializers import PageQuerySerializer
from theme.modules.api.views import ModuleView, iso_time
from theme.modules.points import selectors

from . import serializers as s

POINTS_TEXT = (
    " Points are earned once per paid order of the customer's account (THEME_POINTS_PER_UNIT "
    "per unit of its total, rounded down) and reversed once when it is refunded. Logged-in "
    "customers only; their own points."
)


def entry_data(entry) -> dict:
    return {
        "id": entry.pk,
        "kind": entry.kind,
        "points": entry.points,
        "order_id": entry.order_id,
        "order_number": entry.order.order_number if entry.order is not None else None,
        "note": entry.note,
        "created_at": iso_time(entry.created_at),
    }


class PointsBalanceView(ModuleView):
    module = "points"
    access = {"GET": LOGGED_IN}

    @store_schema(
        summary="My loyalty points balance",
        responses={200: s.PointsBalanceSerializer},
        description="The sum of every entry." + POINTS_TEXT,
    )
    def get(self, request):
        return Response(
            {
                "balance": selectors.points_balance(request.user),
                "points_per_unit": settings.THEME_POINTS_PER_UNIT,
            }
        )


class PointsTransactionsView(ModuleView):
    module = "points"
    access = {"GET": LOGGED_IN}

    @store_schema(
        summary="My loyalty points entries",
        parameters=[PageQuerySerializer],
        responses={200: s.PointsPageSerializer},
        description="Newest first." + POINTS_TEXT,
    )
    def get(self, request):
        query = validate_query(PageQuerySerializer, request.query_params)
        page = page_of(selectors.points_transactions(request.user), query)
        return Response(named_page("transactions", page, entry_data))
