"""HR: departments, employees, leave types and requests, time entries, employee documents;
the labor registry's settings and submissions (erp.hr.labor)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

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
from erp.hr.storage import document_storage

SALARY_DIGITS, SALARY_PLACES = 12, 2


class Department(models.Model):
    name = models.CharField(max_length=120, unique=True)
    code = models.SlugField(max_length=40, unique=True)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Employee(models.Model):
    """A person employed (or once employed) by the store. `user` links the account they log in
    with (for /hr/me and approving their reports' leave). Personal fields (PERSONAL_FIELDS) are
    shown only to HR and to the employee."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="employee",
    )
    first_name = models.CharField(max_length=100)
    last_name = models.CharField(max_length=100)
    email = models.EmailField(blank=True)
    phone = models.CharField(max_length=40, blank=True)
    job_title = models.CharField(max_length=120, blank=True)
    department = models.ForeignKey(
        Department, null=True, blank=True, on_delete=models.PROTECT, related_name="employees"
    )
    manager = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reports"
    )
    hire_date = models.DateField()
    termination_date = models.DateField(null=True, blank=True)
    termination_reason = models.CharField(
        max_length=12, choices=TerminationReason.choices, blank=True
    )
    employment_type = models.CharField(
        max_length=12, choices=EmploymentType.choices, default=EmploymentType.FULL_TIME
    )
    weekly_hours = models.DecimalField(max_digits=4, decimal_places=1, default=40)
    # personal
    birth_date = models.DateField(null=True, blank=True)
    home_address = models.CharField(max_length=300, blank=True)
    tax_id = models.CharField(max_length=12, blank=True, help_text="Greek AFM (9 digits).")
    social_security_number = models.CharField(
        max_length=11, blank=True, help_text="Greek AMKA (11 digits)."
    )
    salary = models.DecimalField(
        max_digits=SALARY_DIGITS, decimal_places=SALARY_PLACES, null=True, blank=True
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["last_name", "first_name", "id"]
        indexes = [models.Index(fields=["department", "last_name"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(termination_date__isnull=True)
                | Q(termination_date__gte=F("hire_date")),
                name="erp_hr_employee_terminated_after_hired",
            ),
            models.CheckConstraint(
                condition=Q(weekly_hours__gte=0) & Q(weekly_hours__lte=80),
                name="erp_hr_employee_weekly_hours_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.first_name} {self.last_name}"

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}"

    def is_active_on(self, day) -> bool:
        return self.hire_date <= day and (
            self.termination_date is None or self.termination_date >= day
        )


class LeaveType(models.Model):
    name = models.CharField(max_length=100, unique=True)
    code = models.SlugField(max_length=40, unique=True)
    yearly_allowance_days = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Working days a year; empty: no limit (e.g. unpaid)."
    )
    paid = models.BooleanField(default=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class LeaveRequest(models.Model):
    employee = models.ForeignKey(Employee, on_delete=models.PROTECT, related_name="leave_requests")
    leave_type = models.ForeignKey(LeaveType, on_delete=models.PROTECT, related_name="requests")
    start_date = models.DateField()
    end_date = models.DateField()
    days = models.PositiveSmallIntegerField(help_text="Working days (Monday to Friday).")
    status = models.CharField(
        max_length=10, choices=LeaveStatus.choices, default=LeaveStatus.PENDING
    )
    reason = models.CharField(max_length=500, blank=True)
    decision_note = models.CharField(max_length=500, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-start_date", "-id"]
        indexes = [
            models.Index(fields=["employee", "status", "start_date"]),
            models.Index(fields=["status", "start_date", "end_date"]),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(end_date__gte=F("start_date")), name="erp_hr_leave_dates_ordered"
            )
        ]

    def __str__(self) -> str:
        return f"{self.employee} {self.leave_type} {self.start_date}..{self.end_date}"


class TimeEntry(models.Model):
    employee = models.ForeignKey(Employee, on_delete=models.PROTECT, related_name="time_entries")
    date = models.DateField()
    start_time = models.TimeField()
    end_time = models.TimeField()
    hours = models.DecimalField(max_digits=4, decimal_places=2)
    note = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-date", "-start_time", "-id"]
        verbose_name_plural = "time entries"
        indexes = [models.Index(fields=["employee", "date"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(end_time__gt=F("start_time")), name="erp_hr_time_entry_ordered"
            )
        ]

    def __str__(self) -> str:
        return f"{self.employee} {self.date} {self.start_time}-{self.end_time}"


def _document_path(instance, filename: str) -> str:
    return f"employees/{instance.employee_id}/{filename}"


class EmployeeDocument(models.Model):
    employee = models.ForeignKey(Employee, on_delete=models.PROTECT, related_name="documents")
    title = models.CharField(max_length=200)
    kind = models.CharField(max_length=12, choices=DocumentKind.choices, default=DocumentKind.OTHER)
    file = models.FileField(upload_to=_document_path, storage=document_storage, max_length=300)
    original_name = models.CharField(max_length=200)
    content_type = models.CharField(max_length=100)
    size = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    visible_to_employee = models.BooleanField(
        default=True, help_text="Listed and downloadable at /hr/me/documents."
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    uploaded_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-uploaded_at", "-id"]

    def __str__(self) -> str:
        return self.title


# --- Labor registry -----------------------------------------------------------------------------


class LaborRegistrySettings(models.Model):
    """The registry the submissions go to and the employer they are filed as: one row (pk 1)."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    provider = models.CharField(
        max_length=10, choices=RegistryProvider.choices, default=RegistryProvider.SANDBOX
    )
    ergani_environment = models.CharField(
        max_length=10, choices=ErganiEnvironment.choices, default=ErganiEnvironment.TRIAL
    )
    credentials = models.BinaryField(blank=True, default=b"", editable=False)
    employer_name = models.CharField(max_length=200, blank=True)
    employer_tax_id = models.CharField(max_length=12, blank=True)
    employer_registry_number = models.CharField(
        max_length=20, blank=True, help_text="The employer's registry number (AME)."
    )
    branch_code = models.CharField(max_length=10, blank=True, default="0")
    auto_submit = models.BooleanField(
        default=True, help_text="Hirings, terminations and working-time changes are filed."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "labor registry settings"
        verbose_name_plural = "labor registry settings"

    def __str__(self) -> str:
        return "Labor registry settings"


class LaborSubmission(models.Model):
    """One filing at the labor registry, built from an HR event (unique by `event_key`: a
    redelivered event files nothing twice)."""

    employee = models.ForeignKey(Employee, on_delete=models.PROTECT, related_name="submissions")
    kind = models.CharField(max_length=14, choices=SubmissionKind.choices)
    event_key = models.CharField(max_length=100, unique=True)
    payload = models.JSONField(default=dict, help_text="What is filed, as of the event.")
    provider = models.CharField(max_length=10, choices=RegistryProvider.choices)
    status = models.CharField(
        max_length=10, choices=SubmissionStatus.choices, default=SubmissionStatus.PENDING
    )
    protocol_number = models.CharField(max_length=64, blank=True)
    registry_id = models.CharField(max_length=64, blank=True)
    registered_at = models.DateTimeField(null=True, blank=True)
    errors = models.JSONField(default=list, blank=True, help_text="[{code, message}]")
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.employee_id}: {self.status}"
