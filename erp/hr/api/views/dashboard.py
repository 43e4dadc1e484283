"""The HR dashboard and who is out."""

from __future__ import annotations

from rest_framework.response import Response

from erp.hr import selectors
from erp.hr.api.views._shared import HRView
from store.common.params import validate_query
from store.common.schema import store_schema

from .. import serializers as s


class DashboardView(HRView):
    @store_schema(
        summary="HR dashboard",
        responses={200: s.HrDashboardSerializer},
        description="Today's headcount (hired, not terminated) by employment type and by "
        "department, employees on approved leave today, and pending requests (count and "
        "days). A fixed number of aggregate queries.",
    )
    def get(self, request):
        data = selectors.dashboard()
        return Response({**data, "date": data["date"].isoformat()})


class WhoIsOutView(HRView):
    @store_schema(
        summary="Who is out",
        parameters=[s.WhoIsOutQuerySerializer],
        responses={200: s.WhoIsOutSerializer},
        description="Approved leave overlapping `date_from`..`date_to` (default today; at "
        "most a year), by start: `{date_from, date_to, absences, total, page, per_page, "
        "total_pages}`; `department_id`.",
    )
    def get(self, request):
        query = validate_query(s.WhoIsOutQuerySerializer, request.query_params)
        page = selectors.who_is_out(query)
        return Response(
            {
                "date_from": query["date_from"].isoformat(),
                "date_to": query["date_to"].isoformat(),
                **s.named_page("absences", page, s.leave_data),
            }
        )
