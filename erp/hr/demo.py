"""Demo data of the ERP's HR for `manage.py seed_demo` (idempotent by department code, leave
type code and employee e-mail), through the services: departments, employees (the first linked
to the demo admin's account, so /hr/me answers for it), leave types and leave requests (one
approved, one pending). Hirings are filed at the sandbox labor registry as any hiring is."""

from __future__ import annotations

from datetime import date, timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from erp.hr import services
from erp.hr.models import Department, Employee, LeaveRequest, LeaveType

DEPARTMENTS = [("Sales", "sales"), ("Warehouse", "warehouse"), ("Accounting", "accounting")]
LEAVE_TYPES = [
    {"name": "Annual leave", "code": "annual", "yearly_allowance_days": 20, "paid": True},
    {"name": "Sick leave", "code": "sick", "yearly_allowance_days": 10, "paid": True},
    {"name": "Unpaid leave", "code": "unpaid", "yearly_allowance_days": None, "paid": False},
]
# (first, last, e-mail, job title, department, manager's e-mail, AFM, AMKA, hours, salary)
EMPLOYEES = [
    (
        "Ada",
        "Admin",
        "ada.admin@emporion.example",
        "General manager",
        "sales",
        None,
        "094259216",
        "01013099997",
        "40",
        "3200.00",
    ),
    (
        "Nikos",
        "Papadopoulos",
        "nikos@emporion.example",
        "Sales lead",
        "sales",
        "ada.admin@emporion.example",
        "100000003",
        "02028500011",
        "40",
        "2100.00",
    ),
    (
        "Eleni",
        "Georgiou",
        "eleni@emporion.example",
        "Warehouse clerk",
        "warehouse",
        "ada.admin@emporion.example",
        "100000015",
        "15057700013",
        "30",
        "1250.00",
    ),
    (
        "Kostas",
        "Dimitriou",
        "kostas@emporion.example",
        "Accountant",
        "accounting",
        "ada.admin@emporion.example",
        "100000027",
        "28119000017",
        "40",
        "1900.00",
    ),
]
ADMIN_LOGIN = "admin@example.com"


def _next_monday(days_ahead: int) -> date:
    day = timezone.localdate() + timedelta(days=days_ahead)
    return day + timedelta(days=(7 - day.weekday()) % 7)


def seed() -> list[str]:
    departments = {}
    for name, code in DEPARTMENTS:
        department = Department.objects.filter(code=code).first()
        if department is None:
            department = services.department_create(fields={"name": name, "code": code})
        departments[code] = department
    leave_types = {}
    for fields in LEAVE_TYPES:
        leave_type = LeaveType.objects.filter(code=fields["code"]).first()
        if leave_type is None:
            leave_type = services.leave_type_create(fields=dict(fields))
        leave_types[fields["code"]] = leave_type
    admin = get_user_model().objects.filter(email=ADMIN_LOGIN).first()
    employees = {}
    for first, last, email, title, department, manager, afm, amka, hours, salary in EMPLOYEES:
        employee = Employee.objects.filter(email=email).first()
        if employee is None:
            linked = admin if manager is None and admin is not None else None
            employee = services.employee_create(
                fields={
                    "first_name": first,
                    "last_name": last,
                    "email": email,
                    "job_title": title,
                    "department_id": departments[department].pk,
                    "manager_id": employees[manager].pk if manager else None,
                    "user_id": linked.pk
                    if linked and not Employee.objects.filter(user=linked).exists()
                    else None,
                    "hire_date": date(2022, 3, 1),
                    "weekly_hours": hours,
                    "tax_id": afm,
                    "social_security_number": amka,
                    "salary": salary,
                    "employment_type": "part_time" if hours != "40" else "full_time",
                }
            )
        employees[email] = employee
    nikos = employees["nikos@emporion.example"]
    eleni = employees["eleni@emporion.example"]
    if not LeaveRequest.objects.filter(employee__in=[nikos, eleni]).exists():
        start = _next_monday(14)
        approved = services.leave_request_create(
            employee_id=nikos.pk,
            fields={
                "leave_type_id": leave_types["annual"].pk,
                "start_date": start,
                "end_date": start + timedelta(days=4),
                "reason": "Summer holiday",
            },
        )
        if admin is not None:
            services.leave_request_approve(request_id=approved.pk, user=admin, note="Enjoy!")
        later = _next_monday(28)
        if later.year == start.year:
            services.leave_request_create(
                employee_id=eleni.pk,
                fields={
                    "leave_type_id": leave_types["annual"].pk,
                    "start_date": later,
                    "end_date": later + timedelta(days=1),
                    "reason": "Family visit",
                },
            )
    return [
        f"ERP HR: {len(departments)} departments, {len(employees)} employees "
        f"({ADMIN_LOGIN} is {EMPLOYEES[0][0]} {EMPLOYEES[0][1]}: GET /hr/me), "
        f"{len(leave_types)} leave types, leave requests (approved and pending); hirings "
        "filed at the sandbox labor registry (GET /labor-registry/submissions)"
    ]
