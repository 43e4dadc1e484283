"""Leave types, and leave requests: listed (HR everyone's; anyone else their own and their
reports'), requested for an employee, approved, rejected, cancelled.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from erp.hr import selectors, services
from erp.hr.access import HR
from erp.hr.api.views._shared import HRResourceView, HRView
from store.common.params import validate_body, validate_query
from store.common.permissions import LOGGED_IN
from store.common.schema import store_schema

from .. import serializers as s

REQUEST_ID = OpenApiParameter("request_id", int, OpenApiParameter.PATH)


class LeaveTypeListView(HRView):
    @store_schema(
        summary="List leave types",
        parameters=[s.LeaveTypeListQuerySerializer],
        responses={200: s.LeaveTypePageSerializer},
        description="`{leave_types, total, page, per_page, total_pages}` by name; `active`.",
    )
    def get(self, request):
        query = validate_query(s.LeaveTypeListQuerySerializer, request.query_params)
        page = selectors.leave_type_page(query)
        return Response(s.named_page("leave_types", page, s.leave_type_data))

    @store_schema(
        summary="Create a leave type",
        request=s.LeaveTypeWriteSerializer,
        responses={201: s.LeaveTypeSerializer},
        description="`yearly_allowance_days`: working days a year (null: no limit); `paid`. "
        "Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.LeaveTypeWriteSerializer, request.data)
        leave_type = services.leave_type_create(fields=dict(fields))
        return Response(s.leave_type_data(leave_type), status=status.HTTP_201_CREATED)


class LeaveTypeDetailView(HRResourceView):
    resource = "leave type"
    id_kwarg = "leave_type_id"
    output_serializer = s.LeaveTypeSerializer
    write_serializer = s.LeaveTypeWriteSerializer
    descriptions = {
        "patch": "Only the fields sent change; `active: false` takes no new requests.",
        "put": "Same as PATCH.",
        "delete": "A type with requests answers 409 `in_use` (deactivate it instead).",
    }

    def read(self, request, pk):
        return s.leave_type_data(selectors.leave_type_get(pk))

    def update(self, request, pk, fields):
        services.leave_type_update(leave_type_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.leave_type_delete(leave_type_id=pk)


# --- Leave requests -----------------------------------------------------------------------------

LEAVE_CREATE_ERRORS = {
    409: "Overlaps a pending or approved request (`leave_overlap`), exceeds the balance "
    "(`leave_balance_exceeded`), or falls outside the employment (`not_employed`)."
}


class LeaveRequestListView(HRView):
    access = {"GET": LOGGED_IN, "*": HR}

    @store_schema(
        summary="List leave requests",
        parameters=[s.LeaveRequestListQuerySerializer],
        responses={200: s.LeaveRequestPageSerializer},
        description="`{leave_requests, total, page, per_page, total_pages}`, latest start "
        "first. HR sees every request; anyone else their own and their direct reports'. "
        "Filters: `employee_id`, `leave_type_id`, `department_id`, `status` (comma-separated), "
        "`date_from`/`date_to` (requests overlapping the range).",
    )
    def get(self, request):
        query = validate_query(s.LeaveRequestListQuerySerializer, request.query_params)
        page = selectors.leave_page(query, request.user)
        return Response(s.named_page("leave_requests", page, s.leave_data))

    @store_schema(
        summary="Request leave for an employee",
        request=s.LeaveRequestCreateSerializer,
        responses={201: s.LeaveRequestSerializer},
        errors={404: "No such employee (`employee_not_found`).", **LEAVE_CREATE_ERRORS},
        description="A pending request: working days (Monday to Friday) from `start_date` to "
        "`end_date`, both included, within one calendar year. Refused when it overlaps the "
        "employee's pending or approved requests or asks for more than the balance "
        "(allowance - approved - pending days of the type that year). Send an "
        "Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = dict(validate_body(s.LeaveRequestCreateSerializer, request.data))
        leave = services.leave_request_create(
            employee_id=fields.pop("employee_id"), fields=fields, user=request.user
        )
        return Response(
            s.leave_data(selectors.leave_get(leave.pk, request.user)),
            status=status.HTTP_201_CREATED,
        )


class LeaveRequestDetailView(HRResourceView):
    access = {"*": LOGGED_IN}  # read-only: GET is the one method it answers
    resource = "leave request"
    id_kwarg = "request_id"
    output_serializer = s.LeaveRequestSerializer
    descriptions = {"get": "HR, the employee, or their manager; anyone else 404."}

    def read(self, request, pk):
        return s.leave_data(selectors.leave_get(pk, request.user))


def _decision(summary: str, description: str, errors: dict):
    return store_schema(
        summary=summary,
        parameters=[REQUEST_ID],
        request=s.LeaveDecisionSerializer,
        responses={200: s.LeaveRequestSerializer},
        errors=errors,
        description=description,
    )


APPROVER = (
    "Not the employee's manager nor HR, or the employee's own request (`not_leave_approver`)."
)


class LeaveRequestApproveView(HRView):
    access = {"POST": LOGGED_IN}

    @_decision(
        "Approve a leave request",
        "By the employee's manager (the account linked to the manager's employee record) or "
        "HR, never the employee. Checked again under the employee's lock: approved days of "
        "the type and year plus these stay within the allowance. Requests the caller cannot "
        "see answer 404.",
        {
            403: APPROVER,
            409: "Not pending (`leave_not_pending`) or over the balance "
            "(`leave_balance_exceeded`).",
        },
    )
    def post(self, request, request_id):
        fields = validate_body(s.LeaveDecisionSerializer, request.data)
        services.leave_request_approve(
            request_id=request_id, user=request.user, note=fields.get("note", "")
        )
        return Response(s.leave_data(selectors.leave_get(request_id, request.user)))


class LeaveRequestRejectView(HRView):
    access = {"POST": LOGGED_IN}

    @_decision(
        "Reject a leave request",
        "By the employee's manager or HR; `note` says why.",
        {403: APPROVER, 409: "Not pending (`leave_not_pending`)."},
    )
    def post(self, request, request_id):
        fields = validate_body(s.LeaveDecisionSerializer, request.data)
        services.leave_request_reject(
            request_id=request_id, user=request.user, note=fields.get("note", "")
        )
        return Response(s.leave_data(selectors.leave_get(request_id, request.user)))


class LeaveRequestCancelView(HRView):
    access = {"POST": LOGGED_IN}

    @_decision(
        "Cancel a leave request",
        "A pending or approved request: by HR, or by the employee before it starts. The days "
        "return to the balance.",
        {
            403: "Neither the employee nor HR (`not_leave_owner`).",
            409: "Rejected or cancelled already, or approved leave that has started "
            "(`leave_not_cancellable`).",
        },
    )
    def post(self, request, request_id):
        fields = validate_body(s.LeaveDecisionSerializer, request.data)
        services.leave_request_cancel(
            request_id=request_id, user=request.user, note=fields.get("note", "")
        )
        return Response(s.leave_data(selectors.leave_get(request_id, request.user)))
