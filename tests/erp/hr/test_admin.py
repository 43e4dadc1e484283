"""The HR admin: pages render; departments, employees and leave types are written through the
services; leave is decided by actions; submissions are sent again by an action; documents show
no file link."""

from __future__ import annotations

from datetime import date, time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from erp.hr import labor, services
from erp.hr.models import Department, Employee, LaborSubmission, LeaveRequest
from tests.erp.hr.conftest import AFMS, make_department, make_employee, make_leave_type

pytestmark = pytest.mark.django_db


def test_every_page_renders(admin_client, django_capture_on_commit_callbacks):
    department = make_department()
    with django_capture_on_commit_callbacks(execute=True):
        employee = make_employee(department_id=department.pk, tax_id=AFMS[1])
    leave_type = make_leave_type()
    leave = services.leave_request_create(
        employee_id=employee.pk,
        fields={
            "leave_type_id": leave_type.pk,
            "start_date": date(2030, 12, 2),
            "end_date": date(2030, 12, 2),
        },
    )
    entry = services.time_entry_create(
        employee_id=employee.pk,
        fields={"date": date(2025, 6, 2), "start_time": time(9), "end_time": time(10)},
    )
    document = services.document_upload(
        employee_id=employee.pk, file=SimpleUploadedFile("a.pdf", b"%PDF-1.4\n%%EOF\n")
    )
    labor.settings_update(fields={"employer_name": "Demo"})
    submission = LaborSubmission.objects.get()
    for name, obj in (
        ("department", department),
        ("employee", employee),
        ("leavetype", leave_type),
        ("leaverequest", leave),
        ("timeentry", entry),
        ("employeedocument", document),
        ("laborregistrysettings", labor.settings_row()),
        ("laborsubmission", submission),
    ):
        assert admin_client.get(reverse(f"admin:erp_hr_{name}_changelist")).status_code == 200, name
        change = admin_client.get(reverse(f"admin:erp_hr_{name}_change", args=[obj.pk]))
        assert change.status_code == 200, name
    page = admin_client.get(reverse("admin:erp_hr_employeedocument_change", args=[document.pk]))
    assert b"/media/" not in page.content
    for name in ("leaverequest", "timeentry", "employeedocument", "laborsubmission"):
        assert admin_client.get(reverse(f"admin:erp_hr_{name}_add")).status_code == 403


def test_departments_and_employees_go_through_the_services(admin_client):
    add = reverse("admin:erp_hr_employee_add")
    form = {
        "first_name": "Anna",
        "last_name": "K",
        "hire_date": "2024-01-08",
        "employment_type": "full_time",
        "weekly_hours": "40",
        "tax_id": "123456789",
    }
    response = admin_client.post(add, form)
    assert response.status_code == 200  # the form again, with the AFM's error
    assert "tax_id" in response.context["adminform"].form.errors
    assert not Employee.objects.exists()
    form["tax_id"] = AFMS[1]
    assert admin_client.post(add, form).status_code == 302
    anna = Employee.objects.get()
    assert anna.tax_id == AFMS[1]
    assert (
        admin_client.post(
            reverse("admin:erp_hr_department_add"), {"name": "Ops", "code": ""}
        ).status_code
        == 302
    )
    ops = Department.objects.get()
    assert ops.code == "ops"
    services.employee_update(employee_id=anna.pk, fields={"department_id": ops.pk})
    admin_client.post(
        reverse("admin:erp_hr_department_delete", args=[ops.pk]), {"post": "yes"}, follow=True
    )
    assert Department.objects.filter(pk=ops.pk).exists()  # refused: in use


def test_leave_actions_call_the_services(admin_client):
    employee = make_employee()
    leave_type = make_leave_type(allowance=1)
    one = services.leave_request_create(
        employee_id=employee.pk,
        fields={
            "leave_type_id": leave_type.pk,
            "start_date": date(2030, 12, 2),
            "end_date": date(2030, 12, 2),
        },
    )
    changelist = reverse("admin:erp_hr_leaverequest_changelist")
    admin_client.post(changelist, {"action": "approve", "_selected_action": [one.pk]})
    assert LeaveRequest.objects.get(pk=one.pk).status == "approved"
    admin_client.post(changelist, {"action": "cancel", "_selected_action": [one.pk]})
    assert LeaveRequest.objects.get(pk=one.pk).status == "cancelled"


def test_submissions_are_sent_again_by_an_action(admin_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        employee = make_employee()  # no AFM: the sandbox rejects it
    submission = LaborSubmission.objects.get()
    assert submission.status == "rejected"
    services.employee_update(
        employee_id=employee.pk, fields={"tax_id": AFMS[1], "social_security_number": "01013099997"}
    )
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(
            reverse("admin:erp_hr_laborsubmission_changelist"),
            {"action": "retry", "_selected_action": [submission.pk]},
        )
    submission.refresh_from_db()
    assert submission.status == "sent"
