"""HR admin: departments, employees and leave types written through the services (the forms
check by the same rules, hirings and terminations are filed at the labor registry as through
the API); leave requests decided and cancelled by actions calling the services; time entries,
documents (metadata only: the files are private and have no URL), the registry's settings and
its submissions viewed, submissions sent again by an action."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin, ServiceAdmin, ServiceForm, for_each
from erp.hr import labor, services
from erp.hr.models import (
    Department,
    Employee,
    EmployeeDocument,
    LaborRegistrySettings,
    LaborSubmission,
    LeaveRequest,
    LeaveType,
    TimeEntry,
)


class DepartmentForm(ServiceForm):
    generated = ("code",)

    class Meta:
        model = Department
        fields = ["name", "code", "description"]

    def check(self, fields: dict) -> None:
        services.department_check(fields=fields, department_id=self.instance.pk)


@admin.register(Department)
class DepartmentAdmin(ServiceAdmin):
    form = DepartmentForm
    list_display = ["name", "code"]
    search_fields = ["name", "code"]

    def create(self, request, fields):
        return services.department_create(fields=fields)

    def update(self, request, obj, fields):
        return services.department_update(department_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.department_delete(department_id=obj.pk)


class EmployeeForm(ServiceForm):
    ids = {"user": "user_id", "department": "department_id", "manager": "manager_id"}

    class Meta:
        model = Employee
        fields = [
            "user",
            "first_name",
            "last_name",
            "email",
            "phone",
            "job_title",
            "department",
            "manager",
            "hire_date",
            "termination_date",
            "termination_reason",
            "employment_type",
            "weekly_hours",
            "birth_date",
            "home_address",
            "tax_id",
            "social_security_number",
            "salary",
        ]

    def check(self, fields: dict) -> None:
        services.employee_check(fields=fields, employee_id=self.instance.pk)


@admin.register(Employee)
class EmployeeAdmin(ServiceAdmin):
    form = EmployeeForm
    list_display = [
        "__str__",
        "job_title",
        "department",
        "manager",
        "hire_date",
        "termination_date",
    ]
    list_filter = ["department", "employment_type"]
    list_select_related = ["department", "manager"]
    raw_id_fields = ["user", "manager"]
    search_fields = ["first_name", "last_name", "email", "job_title"]
    readonly_fields = ["created_at", "updated_at"]

    def create(self, request, fields):
        return services.employee_create(fields=fields)

    def update(self, request, obj, fields):
        return services.employee_update(employee_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.employee_delete(employee_id=obj.pk)


class LeaveTypeForm(ServiceForm):
    generated = ("code",)

    class Meta:
        model = LeaveType
        fields = ["name", "code", "yearly_allowance_days", "paid", "is_active"]

    def check(self, fields: dict) -> None:
        services.leave_type_check(fields=fields, leave_type_id=self.instance.pk)


@admin.register(LeaveType)
class LeaveTypeAdmin(ServiceAdmin):
    form = LeaveTypeForm
    list_display = ["name", "code", "yearly_allowance_days", "paid", "is_active"]
    list_filter = ["paid", "is_active"]

    def create(self, request, fields):
        return services.leave_type_create(fields=fields)

    def update(self, request, obj, fields):
        return services.leave_type_update(leave_type_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.leave_type_delete(leave_type_id=obj.pk)


@admin.register(LeaveRequest)
class LeaveRequestAdmin(ReadOnlyAdmin):
    """Requests are made through the API; here they are decided and cancelled by actions
    (the same rules: the acting account must be HR or the employee's manager)."""

    list_display = ["employee", "leave_type", "start_date", "end_date", "days", "status"]
    list_filter = ["status", "leave_type"]
    list_select_related = ["employee", "leave_type"]
    search_fields = ["employee__first_name", "employee__last_name"]
    date_hierarchy = "start_date"
    actions = ["approve", "reject", "cancel"]

    def _each(self, request, queryset, call, done: str) -> None:
        ids = queryset.values_list("pk", flat=True)
        count = for_each(self, request, ids, call, label="Leave request")
        self.message_user(request, f"{count} leave request(s) {done}.")

    @admin.action(description="Approve")
    def approve(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda pk: services.leave_request_approve(request_id=pk, user=request.user),
            "approved",
        )

    @admin.action(description="Reject")
    def reject(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda pk: services.leave_request_reject(request_id=pk, user=request.user),
            "rejected",
        )

    @admin.action(description="Cancel")
    def cancel(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda pk: services.leave_request_cancel(request_id=pk, user=request.user),
            "cancelled",
        )


@admin.register(TimeEntry)
class TimeEntryAdmin(ReadOnlyAdmin):
    list_display = ["employee", "date", "start_time", "end_time", "hours"]
    list_select_related = ["employee"]
    date_hierarchy = "date"
    search_fields = ["employee__first_name", "employee__last_name"]


@admin.register(EmployeeDocument)
class EmployeeDocumentAdmin(ReadOnlyAdmin):
    """Metadata only: the file is private (downloaded through the API's authorised routes)."""

    list_display = ["title", "employee", "kind", "content_type", "size", "uploaded_at"]
    list_filter = ["kind", "content_type"]
    list_select_related = ["employee"]
    exclude = ["file"]
    search_fields = ["title", "original_name", "employee__last_name"]


@admin.register(LaborRegistrySettings)
class LaborRegistrySettingsAdmin(ReadOnlyAdmin):
    """Changed through PUT /labor-registry/settings (the credentials are sealed there)."""

    exclude = ["credentials"]
    list_display = ["__str__", "provider", "ergani_environment", "auto_submit", "updated_at"]


@admin.register(LaborSubmission)
class LaborSubmissionAdmin(ReadOnlyAdmin):
    list_display = ["employee", "kind", "status", "provider", "protocol_number", "created_at"]
    list_filter = ["status", "kind", "provider"]
    list_select_related = ["employee"]
    search_fields = ["protocol_number", "event_key", "employee__last_name"]
    exclude = ["payload"]  # AFM and AMKA: shown through the API to HR only
    actions = ["retry"]

    @admin.action(description="Send again (rejected or failed)")
    def retry(self, request, queryset):
        ids = queryset.values_list("pk", flat=True)
        count = for_each(
            self,
            request,
            ids,
            lambda pk: labor.submission_retry(submission_id=pk),
            label="Submission",
        )
        self.message_user(request, f"{count} submission(s) sent again.")
