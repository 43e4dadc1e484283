"""Time entries: hours an employee worked, listed, recorded, changed, deleted."""

from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response

from erp.hr import selectors, services
from erp.hr.api.views._shared import HRResourceView, HRView
from store.common.params import validate_body, validate_query
from store.common.schema import store_schema

from .. import serializers as s

TIME_ERRORS = {
    409: "Overlaps another entry of the day (`time_entry_overlap`), the day would pass "
    "HR_MAX_HOURS_PER_DAY (`daily_hours_exceeded`), or the employee is not employed that day "
    "(`not_employed`)."
}


class TimeEntryListView(HRView):
    @store_schema(
        summary="List time entries",
        parameters=[s.TimeEntryListQuerySerializer],
        responses={200: s.TimeEntryPageSerializer},
        description="`{time_entries, total, page, per_page, total_pages}`, latest first; "
        "`employee_id`, `date_from`/`date_to`.",
    )
    def get(self, request):
        query = validate_query(s.TimeEntryListQuerySerializer, request.query_params)
        return Response(s.named_page("time_entries", selectors.time_page(query), s.time_data))

    @store_schema(
        summary="Record a time entry",
        request=s.TimeEntryCreateSerializer,
        responses={201: s.TimeEntrySerializer},
        errors={404: "No such employee (`employee_not_found`).", **TIME_ERRORS},
        description="Hours an employee worked on a day (today or earlier): `start_time` and "
        "`end_time` the same day. Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = dict(validate_body(s.TimeEntryCreateSerializer, request.data))
        entry = services.time_entry_create(employee_id=fields.pop("employee_id"), fields=fields)
        return Response(s.time_data(selectors.time_get(entry.pk)), status=status.HTTP_201_CREATED)


class TimeEntryDetailView(HRResourceView):
    resource = "time entry"
    id_kwarg = "entry_id"
    output_serializer = s.TimeEntrySerializer
    write_serializer = s.TimeEntryUpdateSerializer
    errors = {"patch": TIME_ERRORS, "put": TIME_ERRORS}
    descriptions = {"patch": "Only the fields sent change; checked again.", "put": "Same as PATCH."}

    def read(self, request, pk):
        return s.time_data(selectors.time_get(pk))

    def update(self, request, pk, fields):
        services.time_entry_update(entry_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.time_entry_delete(entry_id=pk)
