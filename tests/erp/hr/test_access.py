"""Every HR and labor-registry route is behind the ERP's licence gate; the remaining
reads and refusals not covered elsewhere."""

from __future__ import annotations

import re
from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from erp.hr import services
from erp.hr.api.urls import urlpatterns
from erp.hr.models import LeaveRequest
from tests.accounts.factories import UserFactory
from tests.erp.hr.conftest import BASE, HR, employee_with_account, make_employee, make_leave_type
from tests.fixtures.store import error, grant

pytestmark = pytest.mark.django_db

ROUTES = [re.sub(r"<id:\w+>", "1", str(pattern.pattern)) for pattern in urlpatterns]


def test_every_route_is_behind_the_gate(admin_client_api):
    assert len(ROUTES) == 29
    for route in ROUTES:
        view = next(p for p in urlpatterns if re.sub(r"<id:\w+>", "1", str(p.pattern)) == route)
        methods = [
            m
            for m in ("get", "post", "put", "patch", "delete")
            if m in view.callback.view_class.http_method_names
            and hasattr(view.callback.view_class, m)
        ]
        for method in methods:
            response = getattr(admin_client_api, method)(f"{BASE}/{route}", {}, format="json")
            error(response, 403, "erp_not_active")


def test_the_document_and_submission_reads(hr):
    employee = make_employee()
    document = services.document_upload(
        employee_id=employee.pk,
        file=SimpleUploadedFile("id.png", b"\x89PNG\r\n\x1a\n" + b"1" * 8),
        title="ID card",
        kind="identity",
    )
    body = hr.get(f"{BASE}/employee-documents/{document.pk}").json()
    assert (body["title"], body["kind"], body["content_type"], body["file_name"]) == (
        "ID card",
        "identity",
        "image/png",
        "id.png",
    )
    error(hr.get(f"{BASE}/employee-documents/999999"), 404, "employee_document_not_found")
    error(hr.get(f"{BASE}/employee-documents/999999/download"), 404)
    error(hr.get(f"{BASE}/labor-registry/submissions/999999"), 404, "labor_submission_not_found")
    error(hr.get(f"{BASE}/leave-requests/999999"), 404, "leave_request_not_found")
    error(hr.get(f"{BASE}/leave-types/999999"), 404, "leave_type_not_found")
    error(hr.get(f"{BASE}/employees/999999"), 404, "employee_not_found")


def test_put_is_a_partial_update(hr):
    employee = make_employee("Anna", job_title="Clerk")
    response = hr.put(f"{BASE}/employees/{employee.pk}", {"phone": "+30 1"}, format="json")
    assert response.status_code == 200
    assert (response.json()["phone"], response.json()["job_title"]) == ("+30 1", "Clerk")


def test_an_hr_officer_does_not_approve_their_own_leave(store_client, erp_on):
    officer, account = employee_with_account("officer@example.com")
    grant(account, HR)
    leave = services.leave_request_create(
        employee_id=officer.pk,
        fields={
            "leave_type_id": make_leave_type().pk,
            "start_date": date(2030, 12, 2),
            "end_date": date(2030, 12, 2),
        },
    )
    client = store_client(account)
    error(
        client.post(f"{BASE}/leave-requests/{leave.pk}/approve", {}, format="json"),
        403,
        "not_leave_approver",
    )
    assert LeaveRequest.objects.get(pk=leave.pk).status == "pending"
    # another HR officer may
    other = store_client(grant(UserFactory(), HR))
    assert (
        other.post(f"{BASE}/leave-requests/{leave.pk}/approve", {}, format="json").status_code
        == 200
    )


def test_non_hr_accounts_reach_none_of_the_hr_only_routes(store_client, erp_on):
    _, account = employee_with_account("worker@example.com")
    client = store_client(account)
    for path in (
        "departments",
        "leave-types",
        "time-entries",
        "employee-documents",
        "hr/dashboard",
        "hr/who-is-out",
        "labor-registry/settings",
        "labor-registry/submissions",
        "employees/1/leave-balances",
    ):
        error(client.get(f"{BASE}/{path}"), 403, "insufficient_capability")
    for path in ("departments", "leave-types", "time-entries", "labor-registry/test-connection"):
        error(client.post(f"{BASE}/{path}", {}, format="json"), 403, "insufficient_capability")
