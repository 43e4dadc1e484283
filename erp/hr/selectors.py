"""HR's reads: pages of employees, departments, leave types, requests, time entries,
documents and submissions (each in a fixed number of queries whatever its length), single
rows, leave balances, the dashboard and who is out. Every count and sum is an SQL aggregate."""

from __future__ import annotations

from datetime import date

from django.db.models import Count, F, IntegerField, Q, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from erp.hr.access import employee_of, is_hr
from erp.hr.choices import LeaveStatus
from erp.hr.models import (
    Department,
    Employee,
    EmployeeDocument,
    LaborSubmission,
    LeaveRequest,
    LeaveType,
    TimeEntry,
)
from store.common.accounts import logged_in
from store.common.errors import not_found
from store.common.pagination import Page, paginate


def _words(search: str) -> list[str]:
    return [word for word in search.split() if word][:10]


def _page(rows, query: dict) -> Page:
    return paginate(rows, page=query["page"], per_page=query["per_page"])


# --- Departments --------------------------------------------------------------------------------


def _departments():
    active = Q(employees__termination_date__isnull=True) | Q(
        employees__termination_date__gte=timezone.localdate()
    )
    return Department.objects.annotate(
        employee_count=Count("employees", filter=active, distinct=True)
    )


def department_page(query: dict) -> Page:
    rows = _departments()
    for word in _words(query.get("search") or ""):
        rows = rows.filter(Q(name__icontains=word) | Q(code__icontains=word))
    return _page(rows.order_by("name", "id"), query)


def department_get(department_id: int) -> Department:
    department = _departments().filter(pk=department_id).first()
    if department is None:
        raise not_found("department", department_id)
    return department


# --- Employees ----------------------------------------------------------------------------------


def _employees():
    return Employee.objects.select_related("department", "manager", "user")


def employee_scope(user):
    """The employees `user` may read: HR every one; an employee the directory (every one,
    personal fields hidden by the serializer); anyone else nobody."""
    if is_hr(user):
        return _employees()
    if logged_in(user) is not None and Employee.objects.filter(user=user).exists():
        return _employees()
    return _employees().none()


def employee_page(query: dict, user) -> Page:
    rows = employee_scope(user)
    for word in _words(query.get("search") or ""):
        rows = rows.filter(
            Q(first_name__icontains=word)
            | Q(last_name__icontains=word)
            | Q(email__icontains=word)
            | Q(job_title__icontains=word)
        )
    if query.get("department_id"):
        rows = rows.filter(department_id=query["department_id"])
    if query.get("manager_id"):
        rows = rows.filter(manager_id=query["manager_id"])
    if query.get("employment_type"):
        rows = rows.filter(employment_type=query["employment_type"])
    today = timezone.localdate()
    if query.get("active") is True:
        rows = rows.filter(Q(termination_date__isnull=True) | Q(termination_date__gte=today))
    elif query.get("active") is False:
        rows = rows.filter(termination_date__lt=today)
    return _page(rows.order_by("last_name", "first_name", "id"), query)


def employee_get(employee_id: int, user=None, *, scoped: bool = False) -> Employee:
    rows = employee_scope(user) if scoped else _employees()
    employee = rows.filter(pk=employee_id).first()
    if employee is None:
        raise not_found("employee", employee_id)
    return employee


def sees_personal(user, employee: Employee) -> bool:
    """Personal fields: HR, and the employee themself."""
    own = employee.user_id is not None and employee.user_id == getattr(user, "pk", None)
    return own or is_hr(user)


# --- Leave types and balances -------------------------------------------------------------------


def leave_type_page(query: dict) -> Page:
    rows = LeaveType.objects.all()
    if query.get("active") is not None:
        rows = rows.filter(is_active=query["active"])
    return _page(rows.order_by("name", "id"), query)


def leave_type_get(leave_type_id: int) -> LeaveType:
    leave_type = LeaveType.objects.filter(pk=leave_type_id).first()
    if leave_type is None:
        raise not_found("leave_type", leave_type_id)
    return leave_type


def leave_days_used(
    *, employee_id: int, leave_type_id: int, year: int, exclude_id: int | None = None
) -> dict:
    """{"approved": days, "pending": days} of one employee, type and year."""
    rows = LeaveRequest.objects.filter(
        employee_id=employee_id, leave_type_id=leave_type_id, start_date__year=year
    )
    if exclude_id is not None:
        rows = rows.exclude(pk=exclude_id)
    zero = Value(0, output_field=IntegerField())
    totals = rows.aggregate(
        approved=Coalesce(Sum("days", filter=Q(status=LeaveStatus.APPROVED)), zero),
        pending=Coalesce(Sum("days", filter=Q(status=LeaveStatus.PENDING)), zero),
    )
    return {"approved": totals["approved"], "pending": totals["pending"]}


def leave_balances(employee: Employee, year: int) -> list[dict]:
    """Per active leave type (and any type used that year): allowance, approved, pending and
    remaining (allowance minus approved) working days, in two queries."""
    zero = Value(0, output_field=IntegerField())
    used = {
        row["leave_type_id"]: row
        for row in LeaveRequest.objects.filter(employee=employee, start_date__year=year)
        .values("leave_type_id")
        .annotate(
            approved=Coalesce(Sum("days", filter=Q(status=LeaveStatus.APPROVED)), zero),
            pending=Coalesce(Sum("days", filter=Q(status=LeaveStatus.PENDING)), zero),
        )
    }
    types = LeaveType.objects.filter(Q(is_active=True) | Q(pk__in=list(used))).order_by("name")
    balances = []
    for leave_type in types:
        row = used.get(leave_type.pk, {"approved": 0, "pending": 0})
        allowance = leave_type.yearly_allowance_days
        balances.append(
            {
                "leave_type_id": leave_type.pk,
                "leave_type": leave_type.name,
                "paid": leave_type.paid,
                "year": year,
                "allowance": allowance,
                "approved": row["approved"],
                "pending": row["pending"],
                "remaining": None if allowance is None else allowance - row["approved"],
            }
        )
    return balances


# --- Leave requests -----------------------------------------------------------------------------


def _requests():
    return LeaveRequest.objects.select_related(
        "employee", "employee__department", "leave_type", "decided_by"
    )


def leave_scope(user):
    """HR every request; anyone else their own and their direct reports'."""
    if is_hr(user):
        return _requests()
    user = logged_in(user)
    if user is None:
        return _requests().none()
    return _requests().filter(Q(employee__user=user) | Q(employee__manager__user=user))


def leave_visible(leave: LeaveRequest, user) -> bool:
    return leave_scope(user).filter(pk=leave.pk).exists()


def leave_page(query: dict, user, *, employee_id: int | None = None) -> Page:
    rows = leave_scope(user)
    if employee_id is not None:
        rows = rows.filter(employee_id=employee_id)
    elif query.get("employee_id"):
        rows = rows.filter(employee_id=query["employee_id"])
    if query.get("leave_type_id"):
        rows = rows.filter(leave_type_id=query["leave_type_id"])
    if query.get("department_id"):
        rows = rows.filter(employee__department_id=query["department_id"])
    if query.get("status"):
        rows = rows.filter(status__in=query["status"])
    if query.get("date_from"):
        rows = rows.filter(end_date__gte=query["date_from"])
    if query.get("date_to"):
        rows = rows.filter(start_date__lte=query["date_to"])
    return _page(rows.order_by("-start_date", "-id"), query)


def leave_get(request_id: int, user) -> LeaveRequest:
    leave = leave_scope(user).filter(pk=request_id).first()
    if leave is None:
        raise not_found("leave_request", request_id)
    return leave


# --- Time entries -------------------------------------------------------------------------------


def time_page(query: dict, *, employee_id: int | None = None) -> Page:
    rows = TimeEntry.objects.select_related("employee")
    employee_id = employee_id or query.get("employee_id")
    if employee_id:
        rows = rows.filter(employee_id=employee_id)
    if query.get("date_from"):
        rows = rows.filter(date__gte=query["date_from"])
    if query.get("date_to"):
        rows = rows.filter(date__lte=query["date_to"])
    return _page(rows.order_by("-date", "-start_time", "-id"), query)


def time_get(entry_id: int) -> TimeEntry:
    entry = TimeEntry.objects.select_related("employee").filter(pk=entry_id).first()
    if entry is None:
        raise not_found("time_entry", entry_id)
    return entry


def hours_total(*, employee_id: int, date_from: date | None, date_to: date | None):
    rows = TimeEntry.objects.filter(employee_id=employee_id)
    if date_from:
        rows = rows.filter(date__gte=date_from)
    if date_to:
        rows = rows.filter(date__lte=date_to)
    return rows.aggregate(total=Sum("hours"))["total"] or 0


# --- Documents ----------------------------------------------------------------------------------


def document_page(query: dict, *, employee_id: int | None = None, own: bool = False) -> Page:
    rows = EmployeeDocument.objects.select_related("employee")
    employee_id = employee_id or query.get("employee_id")
    if employee_id:
        rows = rows.filter(employee_id=employee_id)
    if own:
        rows = rows.filter(visible_to_employee=True)
    if query.get("kind"):
        rows = rows.filter(kind=query["kind"])
    return _page(rows.order_by("-uploaded_at", "-id"), query)


def document_get(document_id: int, *, employee_id: int | None = None) -> EmployeeDocument:
    rows = EmployeeDocument.objects.select_related("employee")
    if employee_id is not None:
        rows = rows.filter(employee_id=employee_id, visible_to_employee=True)
    document = rows.filter(pk=document_id).first()
    if document is None:
        raise not_found("employee_document", document_id)
    return document


# --- Dashboard and who is out -------------------------------------------------------------------


def _active_on(day: date) -> Q:
    return Q(hire_date__lte=day) & (Q(termination_date__isnull=True) | Q(termination_date__gte=day))


def dashboard(today: date | None = None) -> dict:
    """Headcount, by department, on leave today, pending requests: four aggregate queries."""
    today = today or timezone.localdate()
    active = Employee.objects.filter(_active_on(today))
    by_type = dict(active.values_list("employment_type").annotate(n=Count("id")).order_by())
    by_department = list(
        active.values("department_id", "department__name")
        .annotate(headcount=Count("id"))
        .order_by(F("department__name").asc(nulls_last=True))
    )
    on_leave = LeaveRequest.objects.filter(
        status=LeaveStatus.APPROVED, start_date__lte=today, end_date__gte=today
    ).aggregate(n=Count("employee_id", distinct=True))["n"]
    pending = LeaveRequest.objects.filter(status=LeaveStatus.PENDING).aggregate(
        n=Count("id"), days=Coalesce(Sum("days"), Value(0, output_field=IntegerField()))
    )
    return {
        "date": today,
        "headcount": sum(by_type.values()),
        "by_employment_type": by_type,
        "by_department": [
            {
                "department_id": row["department_id"],
                "department": row["department__name"] or "",
                "headcount": row["headcount"],
            }
            for row in by_department
        ],
        "on_leave_today": on_leave,
        "pending_leave_requests": pending["n"],
        "pending_leave_days": pending["days"],
    }


def who_is_out(query: dict) -> Page:
    """Approved leave overlapping [date_from, date_to], by start date."""
    rows = _requests().filter(
        status=LeaveStatus.APPROVED,
        start_date__lte=query["date_to"],
        end_date__gte=query["date_from"],
    )
    if query.get("department_id"):
        rows = rows.filter(employee__department_id=query["department_id"])
    return _page(rows.order_by("start_date", "employee__last_name", "id"), query)


# --- Labor registry -----------------------------------------------------------------------------


def submission_page(query: dict) -> Page:
    rows = LaborSubmission.objects.select_related("employee")
    if query.get("status"):
        rows = rows.filter(status__in=query["status"])
    if query.get("kind"):
        rows = rows.filter(kind__in=query["kind"])
    if query.get("employee_id"):
        rows = rows.filter(employee_id=query["employee_id"])
    if query.get("date_from"):
        rows = rows.filter(created_at__date__gte=query["date_from"])
    if query.get("date_to"):
        rows = rows.filter(created_at__date__lte=query["date_to"])
    return _page(rows.order_by("-created_at", "-id"), query)


def submission_get(submission_id: int) -> LaborSubmission:
    submission = LaborSubmission.objects.select_related("employee").filter(pk=submission_id).first()
    if submission is None:
        raise not_found("labor_submission", submission_id)
    return submission


def my_employee_id(user) -> int | None:
    employee = employee_of(user)
    return employee.pk if employee else None
