"""GET /dashboard/stats (ec_manage_reports or manage_options)."""

from __future__ import annotations

from django.utils import timezone
from rest_framework.response import Response

from store.common.capabilities import manage
from store.common.params import validate_query
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.reports import selectors

from . import serializers as s


class DashboardStatsView(StoreAPIView):
    access = {"*": manage("reports")}
    openapi_tag = "Dashboard"

    @store_schema(
        summary="Dashboard figures for a period",
        parameters=[s.DashboardQuerySerializer],
        responses={200: s.DashboardSerializer},
        description="Revenue, orders, average order value, items sold and new customers for "
        "the period, the same for the previous period of the same length and the percent "
        "change; the top products by units sold; the stock items at or below their "
        "low-stock threshold. Sales are orders in processing, shipped or completed, by the "
        "UTC day they were placed, in one currency (default the store's); revenue is their "
        "totals less the refunds recorded on them (`refunds`, negative: money going back). A "
        "fixed number of queries, whatever the number of orders.",
    )
    def get(self, request):
        query = validate_query(s.DashboardQuerySerializer, request.query_params)
        period = selectors.period_for(
            query["period"],
            today=timezone.now().date(),
            date_from=query.get("date_from"),
            date_to=query.get("date_to"),
        )
        stats = selectors.dashboard_stats(
            period=period,
            currency=query.get("currency") or selectors.store_currency(),
            default_threshold=selectors.store_low_stock_threshold(),
            top=query["top"],
            low_stock_limit=query["low_stock_limit"],
        )
        return Response(s.stats_data(stats), headers={"Cache-Control": "no-store"})
