"""HR and labor-registry routes (behind the ERP's licence gate): thin views over
erp.hr.selectors, services and labor.

Access: HR routes need ec_manage_hr (or manage_options), except the reads an employee makes
of the directory and of their own and their reports' leave, the decisions on leave (the
employee's manager or HR, checked by the service) and /hr/me/* (any logged-in account with an
employee record: 404 `employee_not_found` otherwise)."""

from __future__ import annotations

from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from django.http import FileResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from erp.core.views import ERPView
from erp.hr import labor, selectors, services
from erp.hr.access import HR
from store.common.params import validate_body, validate_query
from store.common.permissions import LOGGED_IN
from store.common.resources import StoreResourceView
from store.common.schema import store_schema

from . import serializers as s

TAG = "HR"
REGISTRY_TAG = "Labor registry"
EMPLOYEE_ID = OpenApiParameter("employee_id", int, OpenApiParameter.PATH)
REQUEST_ID = OpenApiParameter("request_id", int, OpenApiParameter.PATH)
DOCUMENT_ID = OpenApiParameter("document_id", int, OpenApiParameter.PATH)
SUBMISSION_ID = OpenApiParameter("submission_id", int, OpenApiParameter.PATH)
FILE_TYPES = {
    (200, content_type): OpenApiTypes.BINARY
    for content_type in ("application/pdf", "image/png", "image/jpeg")
}
NO_EMPLOYEE = "Your account has no employee record (`employee_not_found`)."
_MULTIPART_OVERHEAD = 64 * 1024


class HRView(ERPView):
    access = {"*": HR}
    openapi_tag = TAG


class HRResourceView(ERPView, StoreResourceView):
    access = {"*": HR}
    openapi_tag = TAG


class MeView(ERPView):
    access = {"*": LOGGED_IN}
    openapi_tag = TAG


def _employee_body(request, employee) -> dict:
    return s.employee_data(employee, personal=selectors.sees_personal(request.user, employee))


def _download(document) -> FileResponse:
    handle = document.file.storage.open(document.file.name, "rb")
    response = FileResponse(
        handle,
        as_attachment=True,
        filename=document.original_name,
        content_type=document.content_type,
    )
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response


# --- Departments --------------------------------------------------------------------------------


class DepartmentListView(HRView):
    @store_schema(
        summary="List departments",
        parameters=[s.DepartmentListQuerySerializer],
        responses={200: s.DepartmentPageSerializer},
        description="`{departments, total, page, per_page, total_pages}` by name, each with "
        "its count of employees not terminated. `search`: words in the name or code.",
    )
    def get(self, request):
        query = validate_query(s.DepartmentListQuerySerializer, request.query_params)
        page = selectors.department_page(query)
        return Response(s.named_page("departments", page, s.department_data))

    @store_schema(
        summary="Create a department",
        request=s.DepartmentWriteSerializer,
        responses={201: s.DepartmentSerializer},
        description="`name` unique (400); `code` from the name when empty. Send an "
        "Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.DepartmentWriteSerializer, request.data)
        department = services.department_create(fields=dict(fields))
        return Response(
            s.department_data(selectors.department_get(department.pk)),
            status=status.HTTP_201_CREATED,
        )


class DepartmentDetailView(HRResourceView):
    resource = "department"
    id_kwarg = "department_id"
    output_serializer = s.DepartmentSerializer
    write_serializer = s.DepartmentWriteSerializer
    descriptions = {
        "patch": "Only the fields sent change.",
        "put": "Same as PATCH.",
        "delete": "A department with employees answers 409 `in_use` (move them first).",
    }

    def read(self, request, pk):
        return s.department_data(selectors.department_get(pk))

    def update(self, request, pk, fields):
        services.department_update(department_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.department_delete(department_id=pk)


# --- Employees ----------------------------------------------------------------------------------


class EmployeeListView(HRView):
    access = {"GET": LOGGED_IN, "*": HR}

    @store_schema(
        summary="List employees",
        parameters=[s.EmployeeListQuerySerializer],
        responses={200: s.EmployeePageSerializer},
        description="`{employees, total, page, per_page, total_pages}` by last name. HR sees "
        "everyone with the personal fields (birth date, home address, AFM, AMKA, salary); an "
        "employee (an account linked to an employee record) sees the directory without them "
        "(`personal: false`), except on their own row; other accounts see nobody. Filters: "
        "`search`, `department_id`, `manager_id`, `employment_type`, `active`.",
    )
    def get(self, request):
        query = validate_query(s.EmployeeListQuerySerializer, request.query_params)
        page = selectors.employee_page(query, request.user)
        return Response(s.named_page("employees", page, lambda e: _employee_body(request, e)))

    @store_schema(
        summary="Create an employee (hire)",
        request=s.EmployeeWriteSerializer,
        responses={201: s.EmployeeSerializer},
        description="`first_name`, `last_name` and `hire_date` are required. `tax_id` is a "
        "Greek AFM and `social_security_number` an AMKA, both checked with python-stdnum "
        "(400 naming them). `manager_id` is another employee (no cycles); `user_id` an "
        "account not linked to another employee. The hiring is filed at the labor registry "
        "after the commit (GET /labor-registry/submissions). Send an Idempotency-Key to retry "
        "safely.",
    )
    def post(self, request):
        fields = validate_body(s.EmployeeWriteSerializer, request.data)
        employee = services.employee_create(fields=dict(fields))
        return Response(
            _employee_body(request, selectors.employee_get(employee.pk)),
            status=status.HTTP_201_CREATED,
        )


class EmployeeDetailView(HRResourceView):
    access = {"GET": LOGGED_IN, "*": HR}
    resource = "employee"
    id_kwarg = "employee_id"
    output_serializer = s.EmployeeSerializer
    write_serializer = s.EmployeeWriteSerializer
    descriptions = {
        "get": "HR and the employee themself see the personal fields; other employees the "
        "directory fields; other accounts 404.",
        "patch": "Only the fields sent change. Setting `termination_date` files a termination "
        "at the labor registry, changing `weekly_hours` a working-time change (after the "
        "commit).",
        "put": "Same as PATCH.",
        "delete": "An employee with leave, time entries, documents, filings or reports "
        "answers 409 `in_use`: set a termination date instead.",
    }

    def read(self, request, pk):
        return _employee_body(request, selectors.employee_get(pk, request.user, scoped=True))

    def update(self, request, pk, fields):
        services.employee_update(employee_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.employee_delete(employee_id=pk)


class EmployeeLeaveBalancesView(HRView):
    @store_schema(
        summary="An employee's leave balances",
        parameters=[EMPLOYEE_ID, s.LeaveBalanceQuerySerializer],
        responses={200: s.LeaveBalancesSerializer},
        description="Per leave type for `year` (default this year): the allowance, the "
        "working days approved and pending, and what remains (allowance - approved).",
    )
    def get(self, request, employee_id):
        query = validate_query(s.LeaveBalanceQuerySerializer, request.query_params)
        employee = selectors.employee_get(employee_id)
        year = query.get("year") or timezone.localdate().year
        return Response(
            {
                "employee_id": employee.pk,
                "year": year,
                "balances": selectors.leave_balances(employee, year),
            }
        )


# --- Leave types --------------------------------------------------------------------------------


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


# --- Time entries -------------------------------------------------------------------------------

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


# --- Employee documents -------------------------------------------------------------------------


class SizeCapUploadHandler(FileUploadHandler):
    """Stops reading a file part once it passes the cap, instead of spooling it to disk."""

    def __init__(self, limit: int, request=None) -> None:
        super().__init__(request)
        self.limit = limit
        self.exceeded = False

    def receive_data_chunk(self, raw_data, start):
        if start + len(raw_data) > self.limit:
            self.exceeded = True
            raise SkipFile()
        return raw_data

    def file_complete(self, file_size):
        return None


UPLOAD_ERRORS = {413: "The file is larger than HR_DOCUMENT_MAX_MB (`document_too_large`)."}


class EmployeeDocumentListView(HRView):
    _upload = None

    def upload_data(self, request):
        """The multipart body, read once with the size cap in place (413 past it)."""
        if self._upload is None:
            limit = services.max_document_bytes()
            try:
                declared = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                declared = 0
            if declared > limit + _MULTIPART_OVERHEAD:
                raise services.document_too_large(declared)
            handler = SizeCapUploadHandler(limit, request._request)
            request._request.upload_handlers.insert(0, handler)
            data = request.data
            if handler.exceeded:
                raise services.document_too_large()
            self._upload = data
        return self._upload

    def idempotency_fingerprint(self, request) -> str:
        if request.method == "POST":
            self.upload_data(request)
        return super().idempotency_fingerprint(request)

    @store_schema(
        summary="List employee documents",
        parameters=[s.EmployeeDocumentListQuerySerializer],
        responses={200: s.EmployeeDocumentPageSerializer},
        description="`{documents, total, page, per_page, total_pages}`, newest first; "
        "`employee_id`, `kind`. Files are private: read them at `download_path`.",
    )
    def get(self, request):
        query = validate_query(s.EmployeeDocumentListQuerySerializer, request.query_params)
        page = selectors.document_page(query)
        return Response(s.named_page("documents", page, s.document_data))

    @store_schema(
        summary="Upload an employee document",
        request={"multipart/form-data": s.EmployeeDocumentUploadSerializer},
        responses={201: s.EmployeeDocumentSerializer},
        errors={404: "No such employee (`employee_not_found`).", **UPLOAD_ERRORS},
        description="multipart/form-data: `employee_id`, the file in `file`, optional `title`, "
        "`kind`, `visible_to_employee`. The type is detected from the content: PDF, PNG or "
        "JPEG (400 `unsupported_document_type`), and the name's extension must agree (400 "
        "`document_type_mismatch`); an empty file is 400 `empty_document`. Stored privately "
        "(never under a public media URL).",
    )
    def post(self, request):
        data = self.upload_data(request)
        fields = validate_body(
            s.EmployeeDocumentUploadSerializer,
            {
                key: data.get(key)
                for key in ("employee_id", "file", "title", "kind", "visible_to_employee")
                if key in data
            },
        )
        document = services.document_upload(
            employee_id=fields["employee_id"],
            file=fields["file"],
            title=fields.get("title", ""),
            kind=fields.get("kind") or "other",
            visible_to_employee=fields.get("visible_to_employee", True),
            user=request.user,
        )
        return Response(
            s.document_data(selectors.document_get(document.pk)), status=status.HTTP_201_CREATED
        )


class EmployeeDocumentDetailView(HRResourceView):
    resource = "employee document"
    id_kwarg = "document_id"
    output_serializer = s.EmployeeDocumentSerializer
    write_serializer = s.EmployeeDocumentUpdateSerializer
    descriptions = {
        "patch": "Title, kind, visibility to the employee.",
        "put": "Same as PATCH.",
        "delete": "The file is removed once the deletion commits.",
    }

    def read(self, request, pk):
        return s.document_data(selectors.document_get(pk))

    def update(self, request, pk, fields):
        services.document_update(document_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.document_delete(document_id=pk)


class EmployeeDocumentDownloadView(HRView):
    @store_schema(
        summary="Download an employee document",
        parameters=[DOCUMENT_ID],
        responses=FILE_TYPES,
        description="The file as uploaded, as an attachment, never cached.",
    )
    def get(self, request, document_id):
        return _download(selectors.document_get(document_id))


# --- Dashboard and who is out -------------------------------------------------------------------


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


# --- My own record ------------------------------------------------------------------------------


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


# --- Labor registry -----------------------------------------------------------------------------


class RegistryView(ERPView):
    access = {"*": HR}
    openapi_tag = REGISTRY_TAG


class RegistrySettingsView(RegistryView):
    @store_schema(
        summary="Labor registry settings",
        responses={200: s.RegistrySettingsSerializer},
        description="The registry (`sandbox`, the default, or `ergani`), ERGANI's environment "
        "and user name (the password masked), the employer filed as, and `auto_submit`.",
    )
    def get(self, request):
        return Response(s.registry_settings_data(labor.settings_data()))

    @store_schema(
        summary="Change the labor registry settings",
        request=s.RegistrySettingsWriteSerializer,
        responses={200: s.RegistrySettingsSerializer},
        description="Only the fields sent change. ERGANI's credentials are sealed at rest "
        "(common.sealed) and never answered; `employer_tax_id` is checked as a Greek AFM.",
    )
    def put(self, request):
        fields = validate_body(s.RegistrySettingsWriteSerializer, request.data, partial=True)
        labor.settings_update(fields=dict(fields))
        return Response(s.registry_settings_data(labor.settings_data()))


class RegistryTestView(RegistryView):
    @store_schema(
        summary="Test the labor registry connection",
        request=None,
        responses={200: s.LaborConnectionTestSerializer},
        errors={502: "The registry could not be reached (`labor_registry_unavailable`)."},
        description="A real call with the stored credentials (ERGANI: a log-in). Wrong or "
        "missing credentials answer 200 with `ok: false` and the reason.",
    )
    def post(self, request):
        return Response(labor.connection_test())


class SubmissionListView(RegistryView):
    @store_schema(
        summary="List labor registry submissions",
        parameters=[s.SubmissionListQuerySerializer],
        responses={200: s.SubmissionPageSerializer},
        description="`{submissions, total, page, per_page, total_pages}`, newest first: "
        "hirings, terminations and working-time changes built from HR events. Filters: "
        "`status`, `kind` (comma-separated), `employee_id`, `date_from`/`date_to` (created).",
    )
    def get(self, request):
        query = validate_query(s.SubmissionListQuerySerializer, request.query_params)
        page = selectors.submission_page(query)
        return Response(s.named_page("submissions", page, s.submission_data))


class SubmissionDetailView(RegistryView, StoreResourceView):
    resource = "labor registry submission"
    id_kwarg = "submission_id"
    output_serializer = s.SubmissionSerializer
    descriptions = {"get": "Its status, protocol number, attempts and the registry's errors."}

    def read(self, request, pk):
        return s.submission_data(selectors.submission_get(pk))


class SubmissionRetryView(RegistryView):
    @store_schema(
        summary="Send a labor registry submission again",
        parameters=[SUBMISSION_ID],
        request=None,
        responses={200: s.SubmissionSerializer},
        errors={409: "Pending or sent already (`submission_not_retryable`)."},
        description="A rejected or failed submission becomes pending and is filed by a task "
        "after the commit, to the registry of the settings now, with the employer's details "
        "and the employee's record as they are now (the event's dates and hours stay).",
    )
    def post(self, request, submission_id):
        labor.submission_retry(submission_id=submission_id)
        return Response(s.submission_data(selectors.submission_get(submission_id)))
