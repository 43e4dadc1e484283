"""HR's writes: departments, employees, leave types, leave requests and their decisions,
time entries and employee documents.

Each public function is one transaction that validates first and changes nothing when it
refuses. Everything about one employee's leave or time is decided under that employee's row
lock (select_for_update), taken first: two approvals, two requests or two time entries of one
employee run one after the other, so a balance cannot be overspent and dates cannot overlap.

Hirings, terminations and working-time changes are recorded for the labor registry through
the outbox in the same transaction (erp.hr.labor.event_recorded): filed after the commit.
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from erp.hr import labor, selectors
from erp.hr.access import employee_of, is_hr
from erp.hr.choices import HOLDING, LeaveStatus
from erp.hr.models import (
    Department,
    Employee,
    EmployeeDocument,
    LeaveRequest,
    LeaveType,
    TimeEntry,
)
from erp.hr.rules import amka_clean, tax_id_clean
from store.catalog.rules import base_slug, unique_value
from store.common.accounts import logged_in
from store.common.errors import locked_or_404, not_found, rule_broken
from store.common.problems import Problems


def _conflict(message: str, code: str):
    return rule_broken(message, code=code, status=409)


def _forbidden(message: str, code: str):
    return rule_broken(message, code=code, status=403)


# --- Departments --------------------------------------------------------------------------------

DEPARTMENT_FIELDS = ("name", "code", "description")


def _department_check(fields: dict, department: Department | None) -> dict:
    problems = Problems()
    cleaned = {name: fields[name] for name in DEPARTMENT_FIELDS if name in fields}
    if "name" in cleaned or department is None:
        cleaned["name"] = (cleaned.get("name") or "").strip()
        if not cleaned["name"]:
            problems.add("name", "A department needs a name.")
    others = Department.objects.exclude(pk=department.pk) if department else Department.objects
    if cleaned.get("name") and others.filter(name__iexact=cleaned["name"]).exists():
        problems.add("name", f"Department {cleaned['name']!r} exists.")
    if cleaned.get("code") and others.filter(code=cleaned["code"]).exists():
        problems.add("code", f"Code {cleaned['code']!r} is already used.")
    problems.raise_if_any()
    if cleaned.get("code") == "":
        cleaned.pop("code")
    return cleaned


def department_check(*, fields: dict, department_id: int | None = None) -> None:
    """What department_create/update would refuse (the admin form's check)."""
    _department_check(fields, Department.objects.filter(pk=department_id).first())


@transaction.atomic
def department_create(*, fields: dict) -> Department:
    cleaned = _department_check(fields, None)
    department = Department(**cleaned)
    if not department.code:
        department.code = unique_value(
            base_slug(department.name, "department")[:36],
            lambda v: Department.objects.filter(code=v).exists(),
            limit=40,
        )
    department.save()
    return department


def _delete(row) -> None:
    """Delete `row`, or refuse (409 `in_use`, naming what refers to it) and change nothing."""
    try:
        with transaction.atomic():
            row.delete()
    except ProtectedError as exc:
        held_by = sorted({obj._meta.verbose_name for obj in exc.protected_objects})
        raise _conflict(
            f"{row} cannot be deleted: other records refer to it ({', '.join(held_by)}).",
            "in_use",
        ) from None


@transaction.atomic
def department_update(*, department_id: int, fields: dict) -> Department:
    department = locked_or_404(Department, department_id, "department")
    for name, value in _department_check(fields, department).items():
        setattr(department, name, value)
    department.save()
    return department


@transaction.atomic
def department_delete(*, department_id: int) -> None:
    """A department with employees is refused (409 `in_use`, by its protected key)."""
    _delete(locked_or_404(Department, department_id, "department"))


# --- Employees ----------------------------------------------------------------------------------

EMPLOYEE_FIELDS = (
    "first_name",
    "last_name",
    "email",
    "phone",
    "job_title",
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
)
PERSONAL_FIELDS = ("birth_date", "home_address", "tax_id", "social_security_number", "salary")


def _manager_loops(employee: Employee | None, manager: Employee) -> bool:
    """Whether `manager` reports (directly or not) to `employee`: a cycle."""
    if employee is None:
        return False
    seen = set()
    current = manager
    while current is not None and current.pk not in seen:
        if current.pk == employee.pk:
            return True
        seen.add(current.pk)
        current = (
            Employee.objects.filter(pk=current.manager_id).first() if current.manager_id else None
        )
    return False


def _employee_check(fields: dict, employee: Employee | None) -> dict:
    problems = Problems()
    cleaned = {name: fields[name] for name in EMPLOYEE_FIELDS if name in fields}
    for name in ("first_name", "last_name"):
        if name in cleaned or employee is None:
            cleaned[name] = (cleaned.get(name) or "").strip()
            if not cleaned[name]:
                problems.add(name, "Required.")
    if employee is None and not cleaned.get("hire_date"):
        problems.add("hire_date", "Required.")
    if "hire_date" in cleaned and cleaned["hire_date"] is None:
        problems.add("hire_date", "Required.")
    for name, clean in (("tax_id", tax_id_clean), ("social_security_number", amka_clean)):
        if cleaned.get(name):
            try:
                cleaned[name] = clean(cleaned[name])
            except ValueError as exc:
                problems.add(name, str(exc))
    if "termination_reason" in cleaned and cleaned["termination_reason"] is None:
        cleaned["termination_reason"] = ""
    for name in ("email", "phone", "job_title", "home_address", "tax_id", "social_security_number"):
        if name in cleaned and cleaned[name] is None:
            cleaned[name] = ""
    hire = cleaned.get("hire_date", employee.hire_date if employee else None)
    ended = cleaned.get("termination_date", employee.termination_date if employee else None)
    if hire and ended and ended < hire:
        problems.add("termination_date", "The termination date is before the hire date.")
    if "department_id" in fields:
        department_id = fields["department_id"]
        cleaned["department"] = None
        if department_id is not None:
            cleaned["department"] = Department.objects.filter(pk=department_id).first()
            if cleaned["department"] is None:
                problems.add("department_id", f"No department with id {department_id}.")
    if "manager_id" in fields:
        manager_id = fields["manager_id"]
        cleaned["manager"] = None
        if manager_id is not None:
            manager = Employee.objects.filter(pk=manager_id).first()
            if manager is None:
                problems.add("manager_id", f"No employee with id {manager_id}.")
            elif employee is not None and manager.pk == employee.pk:
                problems.add("manager_id", "An employee cannot manage themself.")
            elif _manager_loops(employee, manager):
                problems.add("manager_id", "That manager reports to this employee (a cycle).")
            else:
                cleaned["manager"] = manager
    if "user_id" in fields:
        user_id = fields["user_id"]
        cleaned["user"] = None
        if user_id is not None:
            user = get_user_model().objects.filter(pk=user_id).first()
            taken = Employee.objects.filter(user_id=user_id)
            if employee is not None:
                taken = taken.exclude(pk=employee.pk)
            if user is None:
                problems.add("user_id", f"No account with id {user_id}.")
            elif taken.exists():
                problems.add("user_id", "That account is linked to another employee.")
            else:
                cleaned["user"] = user
    problems.raise_if_any()
    return cleaned


def _snapshot_hours(employee: Employee) -> Decimal:
    return Decimal(employee.weekly_hours)


def employee_check(*, fields: dict, employee_id: int | None = None) -> None:
    _employee_check(fields, Employee.objects.filter(pk=employee_id).first())


@transaction.atomic
def employee_create(*, fields: dict) -> Employee:
    cleaned = _employee_check(fields, None)
    employee = Employee(**cleaned)
    employee.save()
    labor.event_recorded(kind="hiring", employee=employee)
    if employee.termination_date:
        labor.event_recorded(kind="termination", employee=employee)
    return employee


@transaction.atomic
def employee_update(*, employee_id: int, fields: dict) -> Employee:
    employee = locked_or_404(Employee, employee_id, "employee")
    cleaned = _employee_check(fields, employee)
    before_end, before_hours = employee.termination_date, _snapshot_hours(employee)
    for name, value in cleaned.items():
        setattr(employee, name, value)
    employee.save()
    if employee.termination_date and employee.termination_date != before_end:
        labor.event_recorded(kind="termination", employee=employee)
    elif Decimal(employee.weekly_hours) != before_hours and employee.termination_date is None:
        labor.event_recorded(
            kind="working_time",
            employee=employee,
            extra={
                "previous_weekly_hours": str(before_hours),
                "effective_date": timezone.localdate().isoformat(),
            },
        )
    return employee


@transaction.atomic
def employee_delete(*, employee_id: int) -> None:
    """An employee others refer to (reports, leave, time, documents, filings) is refused
    (409 `in_use`): set a termination date instead."""
    _delete(locked_or_404(Employee, employee_id, "employee"))


# --- Leave types --------------------------------------------------------------------------------

LEAVE_TYPE_FIELDS = ("name", "code", "yearly_allowance_days", "paid", "is_active")


def _leave_type_check(fields: dict, leave_type: LeaveType | None) -> dict:
    problems = Problems()
    cleaned = {name: fields[name] for name in LEAVE_TYPE_FIELDS if name in fields}
    if "name" in cleaned or leave_type is None:
        cleaned["name"] = (cleaned.get("name") or "").strip()
        if not cleaned["name"]:
            problems.add("name", "A leave type needs a name.")
    others = LeaveType.objects.exclude(pk=leave_type.pk) if leave_type else LeaveType.objects
    if cleaned.get("name") and others.filter(name__iexact=cleaned["name"]).exists():
        problems.add("name", f"Leave type {cleaned['name']!r} exists.")
    if cleaned.get("code") and others.filter(code=cleaned["code"]).exists():
        problems.add("code", f"Code {cleaned['code']!r} is already used.")
    problems.raise_if_any()
    if cleaned.get("code") == "":
        cleaned.pop("code")
    return cleaned


def leave_type_check(*, fields: dict, leave_type_id: int | None = None) -> None:
    _leave_type_check(fields, LeaveType.objects.filter(pk=leave_type_id).first())


@transaction.atomic
def leave_type_create(*, fields: dict) -> LeaveType:
    leave_type = LeaveType(**_leave_type_check(fields, None))
    if not leave_type.code:
        leave_type.code = unique_value(
            base_slug(leave_type.name, "leave")[:36],
            lambda v: LeaveType.objects.filter(code=v).exists(),
            limit=40,
        )
    leave_type.save()
    return leave_type


@transaction.atomic
def leave_type_update(*, leave_type_id: int, fields: dict) -> LeaveType:
    leave_type = locked_or_404(LeaveType, leave_type_id, "leave_type")
    for name, value in _leave_type_check(fields, leave_type).items():
        setattr(leave_type, name, value)
    leave_type.save()
    return leave_type


@transaction.atomic
def leave_type_delete(*, leave_type_id: int) -> None:
    """A type with requests is refused (409 `in_use`): deactivate it instead."""
    _delete(locked_or_404(LeaveType, leave_type_id, "leave_type"))


# --- Leave requests -----------------------------------------------------------------------------


def working_days(start: date, end: date) -> int:
    """Monday to Friday from `start` to `end`, both included."""
    if end < start:
        return 0
    total = (end - start).days + 1
    weeks, rest = divmod(total, 7)
    days = weeks * 5
    for offset in range(rest):
        if (start + timedelta(days=offset)).weekday() < 5:
            days += 1
    return days


def _check_balance(
    employee: Employee,
    leave_type: LeaveType,
    year: int,
    days: int,
    *,
    count_pending: bool,
    exclude_id: int | None = None,
) -> None:
    if leave_type.yearly_allowance_days is None:
        return
    used = selectors.leave_days_used(
        employee_id=employee.pk, leave_type_id=leave_type.pk, year=year, exclude_id=exclude_id
    )
    taken = used["approved"] + (used["pending"] if count_pending else 0)
    available = leave_type.yearly_allowance_days - taken
    if days > available:
        raise _conflict(
            f"{employee} has {max(available, 0)} day(s) of {leave_type.name} left in {year}"
            f"{' (pending requests counted)' if count_pending else ''}; this asks for {days}.",
            "leave_balance_exceeded",
        )


@transaction.atomic
def leave_request_create(*, employee_id: int, fields: dict, user=None) -> LeaveRequest:
    """A pending request of `employee_id`: working days from start to end (both included),
    within one calendar year, not overlapping their pending or approved requests (409
    `leave_overlap`), within the balance (allowance minus approved and pending days: 409
    `leave_balance_exceeded`), of an active type, while employed."""
    employee = locked_or_404(Employee, employee_id, "employee")
    problems = Problems()
    leave_type = LeaveType.objects.filter(pk=fields["leave_type_id"]).first()
    if leave_type is None:
        problems.add("leave_type_id", f"No leave type with id {fields['leave_type_id']}.")
    elif not leave_type.is_active:
        problems.add("leave_type_id", f"Leave type {leave_type.name!r} is inactive.")
    start, end = fields["start_date"], fields["end_date"]
    days = working_days(start, end)
    if end < start:
        problems.add("end_date", "The end is before the start.")
    elif start.year != end.year:
        problems.add("end_date", "A request stays within one calendar year: split it.")
    elif days == 0:
        problems.add("end_date", "The dates hold no working day (Monday to Friday).")
    problems.raise_if_any()
    if start < employee.hire_date or (
        employee.termination_date and end > employee.termination_date
    ):
        raise _conflict(f"{employee} is not employed on every one of those days.", "not_employed")
    clash = (
        LeaveRequest.objects.filter(
            employee=employee, status__in=HOLDING, start_date__lte=end, end_date__gte=start
        )
        .order_by("start_date")
        .first()
    )
    if clash is not None:
        raise _conflict(
            f"{employee} already has a {clash.status} request from {clash.start_date} to "
            f"{clash.end_date} (id {clash.pk}).",
            "leave_overlap",
        )
    _check_balance(employee, leave_type, start.year, days, count_pending=True)
    return LeaveRequest.objects.create(
        employee=employee,
        leave_type=leave_type,
        start_date=start,
        end_date=end,
        days=days,
        reason=fields.get("reason", "") or "",
        requested_by=logged_in(user),
    )


def _requestlocked_or_404(request_id: int) -> tuple[LeaveRequest, Employee]:
    """The request and its employee, locked employee first (the order every leave write
    takes)."""
    employee_id = (
        LeaveRequest.objects.filter(pk=request_id).values_list("employee_id", flat=True).first()
    )
    if employee_id is None:
        raise not_found("leave_request", request_id)
    employee = locked_or_404(Employee, employee_id, "employee")
    leave = (
        LeaveRequest.objects.select_for_update(of=("self",))
        .select_related("leave_type")
        .get(pk=request_id)
    )
    return leave, employee


def can_decide(user, employee: Employee) -> bool:
    """HR, or the employee's manager (the account linked to the manager's record)."""
    if is_hr(user):
        return True
    user = logged_in(user)
    return (
        user is not None
        and employee.manager_id is not None
        and Employee.objects.filter(pk=employee.manager_id, user=user).exists()
    )


def _decide(request_id: int, user, note: str, status: str) -> LeaveRequest:
    leave, employee = _requestlocked_or_404(request_id)
    if not selectors.leave_visible(leave, user):
        raise not_found("leave_request", request_id)
    if not can_decide(user, employee):
        raise _forbidden(
            "Only the employee's manager or HR decides on a leave request.", "not_leave_approver"
        )
    if employee.user_id is not None and employee.user_id == getattr(user, "pk", None):
        raise _forbidden("Nobody decides on their own leave request.", "not_leave_approver")
    if leave.status != LeaveStatus.PENDING:
        raise _conflict(f"The request is {leave.status}, not pending.", "leave_not_pending")
    if status == LeaveStatus.APPROVED:
        _check_balance(
            employee,
            leave.leave_type,
            leave.start_date.year,
            leave.days,
            count_pending=False,
            exclude_id=leave.pk,
        )
    leave.status = status
    leave.decided_by = logged_in(user)
    leave.decided_at = timezone.now()
    leave.decision_note = note or ""
    leave.save()
    return leave


@transaction.atomic
def leave_request_approve(*, request_id: int, user, note: str = "") -> LeaveRequest:
    """Approve a pending request: by the employee's manager or HR, never by the employee (403
    `not_leave_approver`); 409 `leave_not_pending`, `leave_balance_exceeded` (allowance minus
    the approved days, checked under the employee's lock)."""
    return _decide(request_id, user, note, LeaveStatus.APPROVED)


@transaction.atomic
def leave_request_reject(*, request_id: int, user, note: str = "") -> LeaveRequest:
    return _decide(request_id, user, note, LeaveStatus.REJECTED)


@transaction.atomic
def leave_request_cancel(*, request_id: int, user, note: str = "") -> LeaveRequest:
    """Cancel a pending or approved request: HR any; the employee their own before it starts
    (409 `leave_not_cancellable` otherwise)."""
    leave, employee = _requestlocked_or_404(request_id)
    if not selectors.leave_visible(leave, user):
        raise not_found("leave_request", request_id)
    hr = is_hr(user)
    own = employee.user_id is not None and employee.user_id == getattr(user, "pk", None)
    if not (hr or own):
        raise _forbidden("Only the employee or HR cancels a leave request.", "not_leave_owner")
    if leave.status not in HOLDING:
        raise _conflict(f"The request is {leave.status}.", "leave_not_cancellable")
    if not hr and leave.status == LeaveStatus.APPROVED and leave.start_date <= timezone.localdate():
        raise _conflict(
            "Approved leave that has started is cancelled by HR.", "leave_not_cancellable"
        )
    leave.status = LeaveStatus.CANCELLED
    leave.cancelled_at = timezone.now()
    if note:
        leave.decision_note = note
    leave.save()
    return leave


# --- Time entries -------------------------------------------------------------------------------


def _hours(start, end) -> Decimal:
    seconds = (datetime.combine(date.min, end) - datetime.combine(date.min, start)).total_seconds()
    return (Decimal(int(seconds)) / Decimal(3600)).quantize(Decimal("0.01"))


def _time_check(employee: Employee, values: dict, entry: TimeEntry | None) -> Decimal:
    day, start, end = values["date"], values["start_time"], values["end_time"]
    problems = Problems()
    if end <= start:
        problems.add("end_time", "The end is not after the start.")
    if day > timezone.localdate():
        problems.add("date", "Time is recorded for today or earlier.")
    problems.raise_if_any()
    if not employee.is_active_on(day):
        raise _conflict(f"{employee} is not employed on {day}.", "not_employed")
    others = TimeEntry.objects.filter(employee=employee, date=day)
    if entry is not None:
        others = others.exclude(pk=entry.pk)
    clash = others.filter(start_time__lt=end, end_time__gt=start).first()
    if clash is not None:
        raise _conflict(
            f"It overlaps the entry {clash.start_time:%H:%M}-{clash.end_time:%H:%M} "
            f"(id {clash.pk}).",
            "time_entry_overlap",
        )
    hours = _hours(start, end)
    limit = Decimal(settings.HR_MAX_HOURS_PER_DAY)
    recorded = sum((e.hours for e in others), Decimal(0))
    if recorded + hours > limit:
        raise _conflict(
            f"{day} would hold {recorded + hours} hours; a day holds at most {limit}.",
            "daily_hours_exceeded",
        )
    return hours


@transaction.atomic
def time_entry_create(*, employee_id: int, fields: dict) -> TimeEntry:
    """Hours worked on a day (today or before, while employed): 409 `time_entry_overlap`
    with another entry of the day, `daily_hours_exceeded` past HR_MAX_HOURS_PER_DAY."""
    employee = locked_or_404(Employee, employee_id, "employee")
    hours = _time_check(employee, fields, None)
    return TimeEntry.objects.create(
        employee=employee,
        date=fields["date"],
        start_time=fields["start_time"],
        end_time=fields["end_time"],
        hours=hours,
        note=fields.get("note", "") or "",
    )


@transaction.atomic
def time_entry_update(*, entry_id: int, fields: dict) -> TimeEntry:
    employee_id = (
        TimeEntry.objects.filter(pk=entry_id).values_list("employee_id", flat=True).first()
    )
    if employee_id is None:
        raise not_found("time_entry", entry_id)
    employee = locked_or_404(Employee, employee_id, "employee")
    entry = TimeEntry.objects.select_for_update().get(pk=entry_id)
    values = {
        name: fields.get(name, getattr(entry, name)) for name in ("date", "start_time", "end_time")
    }
    entry.hours = _time_check(employee, values, entry)
    for name, value in values.items():
        setattr(entry, name, value)
    if "note" in fields:
        entry.note = fields["note"] or ""
    entry.save()
    return entry


@transaction.atomic
def time_entry_delete(*, entry_id: int) -> None:
    locked_or_404(TimeEntry, entry_id, "time_entry").delete()


# --- Employee documents -------------------------------------------------------------------------

# Detected from the first bytes, never from the name or the declared type.
SIGNATURES = (
    (b"%PDF-", "application/pdf", ("pdf",)),
    (b"\x89PNG\r\n\x1a\n", "image/png", ("png",)),
    (b"\xff\xd8\xff", "image/jpeg", ("jpg", "jpeg")),
)


def max_document_bytes() -> int:
    return settings.HR_DOCUMENT_MAX_MB * 1024 * 1024


def document_too_large(size: int | None = None):
    limit = settings.HR_DOCUMENT_MAX_MB
    what = f" ({size} bytes)" if size else ""
    return rule_broken(
        f"The file is too large{what}: at most {limit} MB.", code="document_too_large", status=413
    )


def sniff(head: bytes) -> tuple[str, tuple[str, ...]] | None:
    for magic, content_type, extensions in SIGNATURES:
        if head.startswith(magic):
            return content_type, extensions
    return None


def _safe_name(name: str) -> str:
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in base)[:120]
    return cleaned.strip("._") or "document"


@transaction.atomic
def document_upload(
    *,
    employee_id: int,
    file,
    title: str = "",
    kind: str = "other",
    visible_to_employee: bool = True,
    user=None,
) -> EmployeeDocument:
    """Store a PDF, PNG or JPEG (detected from its content; its extension must agree) of at
    most HR_DOCUMENT_MAX_MB in the private storage (413 `document_too_large`; 400
    `unsupported_document_type`, `document_type_mismatch`, `empty_document`)."""
    employee = locked_or_404(Employee, employee_id, "employee")
    size = file.size or 0
    if size > max_document_bytes():
        raise document_too_large(size)
    if size == 0:
        raise rule_broken("The file is empty.", code="empty_document")
    file.seek(0)
    head = file.read(16)
    detected = sniff(head)
    if detected is None:
        raise rule_broken(
            "Only PDF, PNG and JPEG documents are accepted (detected from the content).",
            code="unsupported_document_type",
        )
    content_type, extensions = detected
    name = _safe_name(file.name)
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if extension not in extensions:
        raise rule_broken(
            f"The content is {content_type} but the name ends in {extension or 'nothing'!r}.",
            code="document_type_mismatch",
        )
    digest = hashlib.sha256()
    file.seek(0)
    for chunk in file.chunks():
        digest.update(chunk)
    file.seek(0)
    document = EmployeeDocument(
        employee=employee,
        title=(title or name)[:200],
        kind=kind,
        original_name=name,
        content_type=content_type,
        size=size,
        sha256=digest.hexdigest(),
        visible_to_employee=visible_to_employee,
        uploaded_by=logged_in(user),
    )
    stored_as = f"{digest.hexdigest()[:16]}-{name}"
    document.file.save(stored_as, file, save=False)
    try:
        document.save()
    except Exception:
        document.file.storage.delete(document.file.name)
        raise
    return document


@transaction.atomic
def document_update(*, document_id: int, fields: dict) -> EmployeeDocument:
    document = locked_or_404(EmployeeDocument, document_id, "employee_document")
    for name in ("title", "kind", "visible_to_employee"):
        if name in fields:
            setattr(document, name, fields[name])
    if not document.title.strip():
        raise rule_broken("title: A document needs a title.", code="invalid_param")
    document.save()
    return document


@transaction.atomic
def document_delete(*, document_id: int) -> None:
    """Delete the record now and its file once the deletion commits."""
    document = locked_or_404(EmployeeDocument, document_id, "employee_document")
    name, storage = document.file.name, document.file.storage
    document.delete()
    transaction.on_commit(lambda: storage.delete(name))


# --- My own record (/hr/me) ---------------------------------------------------------------------


def my_employee(user) -> Employee:
    """The caller's employee record; 404 `employee_not_found` when the account has none."""
    employee = employee_of(user)
    if employee is None:
        raise not_found("employee")
    return employee
