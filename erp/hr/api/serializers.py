"""Bodies and answers of the HR and labor-registry routes. Money and hours are decimal
strings; dates ISO 8601; times UTC ISO 8601."""

from __future__ import annotations

from django.utils import timezone
from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from erp.core.api.base import ListQuery, iso_date, optional_text, page_serializer
from erp.hr.choices import (
    DocumentKind,
    EmploymentType,
    ErganiEnvironment,
    LeaveStatus,
    RegistryProvider,
    SubmissionKind,
    SubmissionStatus,
    TerminationReason,
)
from erp.hr.models import SALARY_DIGITS, SALARY_PLACES
from store.common.formats import decimal_str, iso
from store.common.pagination import named_page as named_page  # the views' s.named_page
from store.common.params import (
    CaseInsensitiveChoiceField,
    ChoiceListField,
    StrictBooleanField,
    StrictCharField,
    StrictDecimalField,
)


def _choice(choices, **kwargs):
    kwargs.setdefault("required", False)
    return CaseInsensitiveChoiceField(choices=choices, **kwargs)


class HrDateRangeQuery(ListQuery):
    date_from = serializers.DateField(required=False, help_text="On or after (ISO date).")
    date_to = serializers.DateField(required=False, help_text="On or before (ISO date).")

    def validate(self, attrs):
        if (
            attrs.get("date_from")
            and attrs.get("date_to")
            and attrs["date_to"] < attrs["date_from"]
        ):
            raise serializers.ValidationError({"date_to": "Before date_from."})
        return attrs


# --- Departments --------------------------------------------------------------------------------


class DepartmentWriteSerializer(serializers.Serializer):
    name = StrictCharField(max_length=120)
    code = serializers.SlugField(
        max_length=40, required=False, allow_blank=True, help_text="Unique; empty: from the name."
    )
    description = optional_text(2000)


class DepartmentListQuerySerializer(ListQuery):
    search = serializers.CharField(required=False, max_length=200)


class DepartmentSerializer(serializers.Serializer):
    id = IntegerField()
    name = serializers.CharField()
    code = serializers.CharField()
    description = serializers.CharField()
    employee_count = IntegerField(help_text="Employees not terminated.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def department_data(department) -> dict:
    return {
        "id": department.pk,
        "name": department.name,
        "code": department.code,
        "description": department.description,
        "employee_count": getattr(department, "employee_count", 0),
        "created_at": iso(department.created_at),
        "updated_at": iso(department.updated_at),
    }


DepartmentPageSerializer = page_serializer(
    "DepartmentPageSerializer", "departments", DepartmentSerializer
)


# --- Employees ----------------------------------------------------------------------------------


class EmployeeWriteSerializer(serializers.Serializer):
    user_id = IdField(
        required=False, allow_null=True, help_text="The account the employee logs in with."
    )
    first_name = StrictCharField(max_length=100)
    last_name = StrictCharField(max_length=100)
    email = serializers.EmailField(max_length=254, required=False, allow_blank=True)
    phone = optional_text(40)
    job_title = optional_text(120)
    department_id = IdField(required=False, allow_null=True)
    manager_id = IdField(required=False, allow_null=True, help_text="Another employee.")
    hire_date = serializers.DateField()
    termination_date = serializers.DateField(required=False, allow_null=True)
    termination_reason = _choice(TerminationReason.choices, allow_blank=True, allow_null=True)
    employment_type = _choice(EmploymentType.choices)
    weekly_hours = StrictDecimalField(
        max_digits=4, decimal_places=1, max_value=80, required=False, coerce_to_string=True
    )
    birth_date = serializers.DateField(required=False, allow_null=True)
    home_address = optional_text(300)
    tax_id = optional_text(20, help_text="Greek AFM, 9 digits (checked with python-stdnum).")
    social_security_number = optional_text(20, help_text="Greek AMKA, 11 digits (checked).")
    salary = StrictDecimalField(
        max_digits=SALARY_DIGITS,
        decimal_places=SALARY_PLACES,
        required=False,
        allow_null=True,
        coerce_to_string=True,
        help_text="Gross monthly salary.",
    )


class EmployeeListQuerySerializer(ListQuery):
    search = serializers.CharField(
        required=False, max_length=200, help_text="Words in the name, e-mail or job title."
    )
    department_id = IdField(required=False)
    manager_id = IdField(required=False)
    employment_type = _choice(EmploymentType.choices)
    active = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="true: not terminated."
    )


class HrRefSerializer(serializers.Serializer):
    id = IntegerField()
    name = serializers.CharField()


class EmployeeSerializer(serializers.Serializer):
    id = IntegerField()
    user_id = IntegerField(allow_null=True)
    first_name = serializers.CharField()
    last_name = serializers.CharField()
    full_name = serializers.CharField()
    email = serializers.CharField()
    phone = serializers.CharField()
    job_title = serializers.CharField()
    department = HrRefSerializer(allow_null=True)
    manager = HrRefSerializer(allow_null=True)
    hire_date = serializers.DateField()
    termination_date = serializers.DateField(allow_null=True)
    termination_reason = serializers.CharField()
    employment_type = serializers.ChoiceField(choices=EmploymentType.choices)
    weekly_hours = serializers.CharField()
    active = serializers.BooleanField()
    personal = serializers.BooleanField(
        help_text="Whether the personal fields are shown (HR and the employee only)."
    )
    birth_date = serializers.DateField(required=False, allow_null=True)
    home_address = serializers.CharField(required=False)
    tax_id = serializers.CharField(required=False)
    social_security_number = serializers.CharField(required=False)
    salary = serializers.CharField(required=False, allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def _ref(row, name: str):
    return {"id": row.pk, "name": name} if row is not None else None


def employee_data(employee, *, personal: bool) -> dict:
    data = {
        "id": employee.pk,
        "user_id": employee.user_id,
        "first_name": employee.first_name,
        "last_name": employee.last_name,
        "full_name": employee.full_name,
        "email": employee.email,
        "phone": employee.phone,
        "job_title": employee.job_title,
        "department": _ref(employee.department, getattr(employee.department, "name", "")),
        "manager": _ref(employee.manager, getattr(employee.manager, "full_name", "")),
        "hire_date": iso_date(employee.hire_date),
        "termination_date": iso_date(employee.termination_date),
        "termination_reason": employee.termination_reason,
        "employment_type": employee.employment_type,
        "weekly_hours": decimal_str(employee.weekly_hours),
        "active": employee.is_active_on(timezone.localdate()),
        "personal": personal,
        "created_at": iso(employee.created_at),
        "updated_at": iso(employee.updated_at),
    }
    if personal:
        data |= {
            "birth_date": iso_date(employee.birth_date),
            "home_address": employee.home_address,
            "tax_id": employee.tax_id,
            "social_security_number": employee.social_security_number,
            "salary": decimal_str(employee.salary),
        }
    return data


EmployeePageSerializer = page_serializer("EmployeePageSerializer", "employees", EmployeeSerializer)


# --- Leave types and balances -------------------------------------------------------------------


class LeaveTypeWriteSerializer(serializers.Serializer):
    name = StrictCharField(max_length=100)
    code = serializers.SlugField(max_length=40, required=False, allow_blank=True)
    yearly_allowance_days = IntegerField(
        min_value=0,
        max_value=366,
        required=False,
        allow_null=True,
        help_text="Working days a year; null: no limit.",
    )
    paid = StrictBooleanField(required=False)
    active = StrictBooleanField(required=False, help_text="Inactive types take no new requests.")

    def validate(self, attrs):
        if "active" in attrs:
            attrs["is_active"] = attrs.pop("active")
        return attrs


class LeaveTypeListQuerySerializer(ListQuery):
    active = serializers.BooleanField(required=False, allow_null=True, default=None)


class LeaveTypeSerializer(serializers.Serializer):
    id = IntegerField()
    name = serializers.CharField()
    code = serializers.CharField()
    yearly_allowance_days = IntegerField(allow_null=True)
    paid = serializers.BooleanField()
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def leave_type_data(leave_type) -> dict:
    return {
        "id": leave_type.pk,
        "name": leave_type.name,
        "code": leave_type.code,
        "yearly_allowance_days": leave_type.yearly_allowance_days,
        "paid": leave_type.paid,
        "active": leave_type.is_active,
        "created_at": iso(leave_type.created_at),
        "updated_at": iso(leave_type.updated_at),
    }


LeaveTypePageSerializer = page_serializer(
    "LeaveTypePageSerializer", "leave_types", LeaveTypeSerializer
)


class LeaveBalanceQuerySerializer(serializers.Serializer):
    year = IntegerField(
        min_value=1900, max_value=2999, required=False, help_text="Default: this year."
    )


class LeaveBalanceSerializer(serializers.Serializer):
    leave_type_id = IntegerField()
    leave_type = serializers.CharField()
    paid = serializers.BooleanField()
    year = IntegerField()
    allowance = IntegerField(allow_null=True, help_text="null: no limit.")
    approved = IntegerField(help_text="Working days approved.")
    pending = IntegerField(help_text="Working days asked for, not decided yet.")
    remaining = IntegerField(allow_null=True, help_text="allowance - approved.")


class LeaveBalancesSerializer(serializers.Serializer):
    employee_id = IntegerField()
    year = IntegerField()
    balances = LeaveBalanceSerializer(many=True)


# --- Leave requests -----------------------------------------------------------------------------


class LeaveRequestBodySerializer(serializers.Serializer):
    leave_type_id = IdField()
    start_date = serializers.DateField()
    end_date = serializers.DateField()
    reason = optional_text(500)


class LeaveRequestCreateSerializer(LeaveRequestBodySerializer):
    employee_id = IdField()


class LeaveDecisionSerializer(serializers.Serializer):
    note = optional_text(500, help_text="Why (shown to the employee).")


class LeaveRequestListQuerySerializer(HrDateRangeQuery):
    employee_id = IdField(required=False)
    leave_type_id = IdField(required=False)
    department_id = IdField(required=False)
    status = ChoiceListField(choices=LeaveStatus.values)


class MyLeaveQuerySerializer(HrDateRangeQuery):
    status = ChoiceListField(choices=LeaveStatus.values)
    year = IntegerField(min_value=1900, max_value=2999, required=False, help_text="Balances' year.")


class LeaveRequestSerializer(serializers.Serializer):
    id = IntegerField()
    employee = HrRefSerializer()
    department = serializers.CharField()
    leave_type = HrRefSerializer()
    start_date = serializers.DateField()
    end_date = serializers.DateField()
    days = IntegerField(help_text="Working days (Monday to Friday).")
    status = serializers.ChoiceField(choices=LeaveStatus.choices)
    reason = serializers.CharField()
    decision_note = serializers.CharField()
    decided_by = serializers.CharField(allow_null=True, help_text="Who approved or rejected.")
    decided_at = serializers.DateTimeField(allow_null=True)
    cancelled_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()


def leave_data(leave) -> dict:
    decided_by = leave.decided_by
    return {
        "id": leave.pk,
        "employee": {"id": leave.employee_id, "name": leave.employee.full_name},
        "department": leave.employee.department.name if leave.employee.department else "",
        "leave_type": {"id": leave.leave_type_id, "name": leave.leave_type.name},
        "start_date": iso_date(leave.start_date),
        "end_date": iso_date(leave.end_date),
        "days": leave.days,
        "status": leave.status,
        "reason": leave.reason,
        "decision_note": leave.decision_note,
        "decided_by": (decided_by.name or decided_by.email) if decided_by else None,
        "decided_at": iso(leave.decided_at),
        "cancelled_at": iso(leave.cancelled_at),
        "created_at": iso(leave.created_at),
    }


LeaveRequestPageSerializer = page_serializer(
    "LeaveRequestPageSerializer", "leave_requests", LeaveRequestSerializer
)


class MyLeaveSerializer(serializers.Serializer):
    year = IntegerField()
    balances = LeaveBalanceSerializer(many=True)
    leave_requests = LeaveRequestSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


# --- Time entries -------------------------------------------------------------------------------


class TimeEntryBodySerializer(serializers.Serializer):
    date = serializers.DateField(help_text="Today or earlier.")
    start_time = serializers.TimeField(help_text="HH:MM")
    end_time = serializers.TimeField(help_text="HH:MM, after the start, the same day.")
    note = optional_text(300)


class TimeEntryCreateSerializer(TimeEntryBodySerializer):
    employee_id = IdField()


class TimeEntryUpdateSerializer(serializers.Serializer):
    date = serializers.DateField(required=False)
    start_time = serializers.TimeField(required=False)
    end_time = serializers.TimeField(required=False)
    note = optional_text(300)


class TimeEntryListQuerySerializer(HrDateRangeQuery):
    employee_id = IdField(required=False)


class TimeEntrySerializer(serializers.Serializer):
    id = IntegerField()
    employee = HrRefSerializer()
    date = serializers.DateField()
    start_time = serializers.CharField()
    end_time = serializers.CharField()
    hours = serializers.CharField()
    note = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def time_data(entry) -> dict:
    return {
        "id": entry.pk,
        "employee": {"id": entry.employee_id, "name": entry.employee.full_name},
        "date": iso_date(entry.date),
        "start_time": entry.start_time.strftime("%H:%M"),
        "end_time": entry.end_time.strftime("%H:%M"),
        "hours": decimal_str(entry.hours),
        "note": entry.note,
        "created_at": iso(entry.created_at),
        "updated_at": iso(entry.updated_at),
    }


TimeEntryPageSerializer = page_serializer(
    "TimeEntryPageSerializer", "time_entries", TimeEntrySerializer
)


# --- Documents ----------------------------------------------------------------------------------


class EmployeeDocumentUploadSerializer(serializers.Serializer):
    employee_id = IdField()
    file = serializers.FileField(help_text="PDF, PNG or JPEG (detected from the content).")
    title = optional_text(200, help_text="Default: the file name.")
    kind = _choice(DocumentKind.choices)
    visible_to_employee = serializers.BooleanField(
        required=False, default=True, help_text="Listed at /hr/me/documents (default true)."
    )


class EmployeeDocumentUpdateSerializer(serializers.Serializer):
    title = StrictCharField(max_length=200, required=False)
    kind = _choice(DocumentKind.choices)
    visible_to_employee = StrictBooleanField(required=False)


class EmployeeDocumentListQuerySerializer(ListQuery):
    employee_id = IdField(required=False)
    kind = _choice(DocumentKind.choices)


class MyDocumentQuerySerializer(ListQuery):
    kind = _choice(DocumentKind.choices)


class EmployeeDocumentSerializer(serializers.Serializer):
    id = IntegerField()
    employee = HrRefSerializer()
    title = serializers.CharField()
    kind = serializers.ChoiceField(choices=DocumentKind.choices)
    file_name = serializers.CharField()
    content_type = serializers.CharField()
    size = IntegerField()
    sha256 = serializers.CharField()
    visible_to_employee = serializers.BooleanField()
    download_path = serializers.CharField(help_text="The authorised route that serves it.")
    uploaded_at = serializers.DateTimeField()


def document_data(document, *, own: bool = False) -> dict:
    path = (
        f"/hr/me/documents/{document.pk}/download"
        if own
        else f"/employee-documents/{document.pk}/download"
    )
    return {
        "id": document.pk,
        "employee": {"id": document.employee_id, "name": document.employee.full_name},
        "title": document.title,
        "kind": document.kind,
        "file_name": document.original_name,
        "content_type": document.content_type,
        "size": document.size,
        "sha256": document.sha256,
        "visible_to_employee": document.visible_to_employee,
        "download_path": path,
        "uploaded_at": iso(document.uploaded_at),
    }


EmployeeDocumentPageSerializer = page_serializer(
    "EmployeeDocumentPageSerializer", "documents", EmployeeDocumentSerializer
)


# --- Dashboard and who is out -------------------------------------------------------------------


class HrDepartmentCountSerializer(serializers.Serializer):
    department_id = IntegerField(allow_null=True)
    department = serializers.CharField()
    headcount = IntegerField()


class HrDashboardSerializer(serializers.Serializer):
    date = serializers.DateField()
    headcount = IntegerField(help_text="Employees hired and not terminated today.")
    by_employment_type = serializers.DictField(child=IntegerField())
    by_department = HrDepartmentCountSerializer(many=True)
    on_leave_today = IntegerField()
    pending_leave_requests = IntegerField()
    pending_leave_days = IntegerField()


class WhoIsOutQuerySerializer(ListQuery):
    date_from = serializers.DateField(required=False, help_text="Default: today.")
    date_to = serializers.DateField(required=False, help_text="Default: date_from.")
    department_id = IdField(required=False)

    def validate(self, attrs):
        attrs.setdefault("date_from", timezone.localdate())
        attrs.setdefault("date_to", attrs["date_from"])
        if attrs["date_to"] < attrs["date_from"]:
            raise serializers.ValidationError({"date_to": "Before date_from."})
        if (attrs["date_to"] - attrs["date_from"]).days > 366:
            raise serializers.ValidationError({"date_to": "At most a year after date_from."})
        return attrs


class WhoIsOutSerializer(serializers.Serializer):
    date_from = serializers.DateField()
    date_to = serializers.DateField()
    absences = LeaveRequestSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


# --- Labor registry -----------------------------------------------------------------------------


class RegistrySettingsWriteSerializer(serializers.Serializer):
    provider = _choice(RegistryProvider.choices)
    ergani_environment = _choice(ErganiEnvironment.choices)
    ergani_username = optional_text(100, help_text="Sealed at rest; empty removes it.")
    ergani_password = optional_text(200, help_text="Sealed at rest, never shown; empty removes it.")
    employer_name = optional_text(200)
    employer_tax_id = optional_text(20, help_text="Greek AFM.")
    employer_registry_number = optional_text(20, help_text="AME.")
    branch_code = optional_text(10)
    auto_submit = StrictBooleanField(required=False)


class RegistrySettingsSerializer(serializers.Serializer):
    provider = serializers.ChoiceField(choices=RegistryProvider.choices)
    ergani_environment = serializers.ChoiceField(choices=ErganiEnvironment.choices)
    ergani_username = serializers.CharField()
    ergani_password = serializers.CharField(help_text="Masked.")
    credentials_set = serializers.BooleanField()
    employer_name = serializers.CharField()
    employer_tax_id = serializers.CharField()
    employer_registry_number = serializers.CharField()
    branch_code = serializers.CharField()
    auto_submit = serializers.BooleanField()
    updated_at = serializers.DateTimeField(allow_null=True)


def registry_settings_data(data: dict) -> dict:
    return {**data, "updated_at": iso(data["updated_at"])}


class LaborConnectionTestSerializer(serializers.Serializer):
    provider = serializers.CharField()
    ok = serializers.BooleanField()
    message = serializers.CharField()


class SubmissionListQuerySerializer(HrDateRangeQuery):
    status = ChoiceListField(choices=SubmissionStatus.values)
    kind = ChoiceListField(choices=SubmissionKind.values)
    employee_id = IdField(required=False)


class LaborSubmissionErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class SubmissionSerializer(serializers.Serializer):
    id = IntegerField()
    employee = HrRefSerializer()
    kind = serializers.ChoiceField(choices=SubmissionKind.choices)
    provider = serializers.ChoiceField(choices=RegistryProvider.choices)
    status = serializers.ChoiceField(choices=SubmissionStatus.choices)
    protocol_number = serializers.CharField()
    registry_id = serializers.CharField()
    registered_at = serializers.DateTimeField(allow_null=True)
    errors = LaborSubmissionErrorSerializer(many=True)
    attempts = IntegerField()
    last_error = serializers.CharField()
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    event_key = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def submission_data(submission) -> dict:
    return {
        "id": submission.pk,
        "employee": {"id": submission.employee_id, "name": submission.employee.full_name},
        "kind": submission.kind,
        "provider": submission.provider,
        "status": submission.status,
        "protocol_number": submission.protocol_number,
        "registry_id": submission.registry_id,
        "registered_at": iso(submission.registered_at),
        "errors": submission.errors,
        "attempts": submission.attempts,
        "last_error": submission.last_error,
        "last_attempt_at": iso(submission.last_attempt_at),
        "event_key": submission.event_key,
        "created_at": iso(submission.created_at),
        "updated_at": iso(submission.updated_at),
    }


SubmissionPageSerializer = page_serializer(
    "LaborSubmissionPageSerializer", "submissions", SubmissionSerializer
)
