"""/hr/me/*: any logged-in account with an employee record (404 `employee_not_found`
otherwise) reads its record, its leave and documents, and requests leave and records time.
"""

from __future__ import annotations

from django.utils import timezone
from rest_framework import status
from rest_framework.response import Response

from erp.hr import selectors, services
from erp.hr.api.views._shared import DOCUMENT_ID, FILE_TYPES, MeView, _download
from erp.hr.api.views.leave import LEAVE_CREATE_ERRORS
from erp.hr.api.views.time_entries import TIME_ERRORS
from store.common.params import validate_body, validate_query
from store.common.schema import store_schema

from .. import serializers as s

NO_EMPLOYEE = "Your account has no employee record (`employee_not_found`)."


class MeProfileView(MeView):
    @store_schema(
        summary="My employee record",
        responses={200: s.EmployeeSerializer},
        errors={404: NO_EMPLOYEE},
        description="The logged-in account's own employee record, personal fields included.",
    )
    def get(self, request):
        employee = services.my_employee(request.user)
        return Response(s.employee_data(selectors.employee_get(employee.pk), personal=True))


class MeLeaveView(MeView):
    @store_schema(
        summary="My leave: balances and requests",
        parameters=[s.MyLeaveQuerySerializer],
        responses={200: s.MyLeaveSerializer},
        errors={404: NO_EMPLOYEE},
        description="`{year, balances, leave_requests, total, page, per_page, total_pages}`: "
        "the balances of `year` (default this year) and my requests, latest first "
        "(`status`, `date_from`/`date_to`).",
    )
    def get(self, request):
        employee = services.my_employee(request.user)
        query = validate_query(s.MyLeaveQuerySerializer, request.query_params)
        year = query.get("year") or timezone.localdate().year
        page = selectors.leave_page(query, request.user, employee_id=employee.pk)
        return Response(
            {
                "year": year,
                "balances": selectors.leave_balances(employee, year),
                **s.named_page("leave_requests", page, s.leave_data),
            }
        )

    @store_schema(
        summary="Request my leave",
        request=s.LeaveRequestBodySerializer,
        responses={201: s.LeaveRequestSerializer},
        errors={404: NO_EMPLOYEE, **LEAVE_CREATE_ERRORS},
        description="The same rules as POST /leave-requests, for my own record. My manager or "
        "HR decides. Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        employee = services.my_employee(request.user)
        fields = validate_body(s.LeaveRequestBodySerializer, request.data)
        leave = services.leave_request_create(
            employee_id=employee.pk, fields=dict(fields), user=request.user
        )
        return Response(
            s.leave_data(selectors.leave_get(leave.pk, request.user)),
            status=status.HTTP_201_CREATED,
        )


class MeTimeEntriesView(MeView):
    @store_schema(
        summary="My time entries",
        parameters=[s.HrDateRangeQuery],
        responses={200: s.TimeEntryPageSerializer},
        errors={404: NO_EMPLOYEE},
        description="`{time_entries, total, page, per_page, total_pages}`, latest first.",
    )
    def get(self, request):
        employee = services.my_employee(request.user)
        query = validate_query(s.HrDateRangeQuery, request.query_params)
        page = selectors.time_page(query, employee_id=employee.pk)
        return Response(s.named_page("time_entries", page, s.time_data))

    @store_schema(
        summary="Record my time",
        request=s.TimeEntryBodySerializer,
        responses={201: s.TimeEntrySerializer},
        errors={404: NO_EMPLOYEE, **TIME_ERRORS},
        description="The same rules as POST /time-entries, for my own record. Send an "
        "Idempotency-Key to retry safely.",
    )
    def post(self, request):
        employee = services.my_employee(request.user)
        fields = validate_body(s.TimeEntryBodySerializer, request.data)
        entry = services.time_entry_create(employee_id=employee.pk, fields=dict(fields))
        return Response(s.time_data(selectors.time_get(entry.pk)), status=status.HTTP_201_CREATED)


class MeDocumentsView(MeView):
    @store_schema(
        summary="My documents",
        parameters=[s.MyDocumentQuerySerializer],
        responses={200: s.EmployeeDocumentPageSerializer},
        errors={404: NO_EMPLOYEE},
        description="The documents HR shared with me (`visible_to_employee`), newest first.",
    )
    def get(self, request):
        employee = services.my_employee(request.user)
        query = validate_query(s.MyDocumentQuerySerializer, request.query_params)
        page = selectors.document_page(query, employee_id=employee.pk, own=True)
        return Response(s.named_page("documents", page, lambda d: s.document_data(d, own=True)))


class MeDocumentDownloadView(MeView):
    @store_schema(
        summary="Download my document",
        parameters=[DOCUMENT_ID],
        responses=FILE_TYPES,
        errors={404: NO_EMPLOYEE + " Or the document is not one of mine."},
        description="One of my shared documents; another employee's answers 404.",
    )
    def get(self, request, document_id):
        employee = services.my_employee(request.user)
        return _download(selectors.document_get(document_id, employee_id=employee.pk))
