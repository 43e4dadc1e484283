"""/hr/me, /hr/me/leave, /hr/me/time-entries, /hr/me/documents: the caller's own record only."""

from __future__ import annotations

from datetime import date, time, timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from erp.hr import services
from erp.hr.models import LeaveRequest, TimeEntry
from tests.accounts.factories import UserFactory
from tests.erp.hr.conftest import AFMS, BASE, employee_with_account, make_employee, make_leave_type
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db

MON = date(2030, 12, 2)
PDF = b"%PDF-1.4\n%%EOF\n"


@pytest.fixture
def me(store_client, erp_on):
    employee, account = employee_with_account(
        "me@example.com", first_name="Eleni", tax_id=AFMS[0], salary="1800"
    )
    return employee, store_client(account)


def _doc(employee, name="payslip.pdf", **extra):
    return services.document_upload(
        employee_id=employee.pk, file=SimpleUploadedFile(name, PDF), **extra
    )


def test_without_an_employee_record_every_me_route_is_404(store_client, erp_on):
    client = store_client(UserFactory())
    for path in (
        "hr/me",
        "hr/me/leave",
        "hr/me/time-entries",
        "hr/me/documents",
        "hr/me/documents/1/download",
    ):
        error(client.get(f"{BASE}/{path}"), 404, "employee_not_found")
    error(client.post(f"{BASE}/hr/me/leave", {}, format="json"), 404, "employee_not_found")
    error(client.post(f"{BASE}/hr/me/time-entries", {}, format="json"), 404)


def test_anonymous_is_401(anon, erp_on):
    error(anon.get(f"{BASE}/hr/me"), 401, "not_logged_in")


def test_my_profile_has_my_personal_fields(me):
    employee, client = me
    body = client.get(f"{BASE}/hr/me").json()
    assert (body["id"], body["first_name"], body["tax_id"], body["salary"], body["personal"]) == (
        employee.pk,
        "Eleni",
        AFMS[0],
        "1800.00",
        True,
    )


def test_my_leave_balances_requests_and_asking(me, hr_user):
    employee, client = me
    annual = make_leave_type(allowance=10)
    other = make_employee("Other")
    services.leave_request_create(
        employee_id=other.pk,
        fields={"leave_type_id": annual.pk, "start_date": MON, "end_date": MON},
    )
    response = client.post(
        f"{BASE}/hr/me/leave",
        {
            "leave_type_id": annual.pk,
            "start_date": MON.isoformat(),
            "end_date": (MON + timedelta(days=1)).isoformat(),
            "reason": "Family",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["employee"]["id"] == employee.pk
    # always my own record: an employee_id in the body is refused, not taken
    week_later = {
        "leave_type_id": annual.pk,
        "start_date": (MON + timedelta(days=7)).isoformat(),
        "end_date": (MON + timedelta(days=7)).isoformat(),
    }
    refused = error(
        client.post(f"{BASE}/hr/me/leave", {**week_later, "employee_id": other.pk}, format="json"),
        400,
        "invalid_param",
    )
    assert set(refused["data"]["params"]) == {"employee_id"}
    client.post(f"{BASE}/hr/me/leave", week_later, format="json")
    assert LeaveRequest.objects.filter(employee=other).count() == 1
    error(
        client.post(
            f"{BASE}/hr/me/leave",
            {
                "leave_type_id": annual.pk,
                "start_date": MON.isoformat(),
                "end_date": MON.isoformat(),
            },
            format="json",
        ),
        409,
        "leave_overlap",
    )
    body = client.get(f"{BASE}/hr/me/leave", {"year": 2030}).json()
    assert [row["employee"]["id"] for row in body["leave_requests"]] == [employee.pk, employee.pk]
    assert body["balances"][0]["pending"] == 3
    assert body["balances"][0]["remaining"] == 10
    assert body["total"] == 2


def test_my_time_entries(me):
    employee, client = me
    other = make_employee("Other")
    services.time_entry_create(
        employee_id=other.pk,
        fields={"date": date(2025, 6, 2), "start_time": time(9), "end_time": time(10)},
    )
    response = client.post(
        f"{BASE}/hr/me/time-entries",
        {"date": "2025-06-02", "start_time": "09:00", "end_time": "17:00"},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = client.get(f"{BASE}/hr/me/time-entries").json()
    assert [row["employee"]["id"] for row in body["time_entries"]] == [employee.pk]
    assert TimeEntry.objects.filter(employee=employee).count() == 1


def test_another_employees_documents_are_unreachable(me):
    employee, client = me
    mine = _doc(employee)
    hidden = _doc(employee, name="review.pdf", visible_to_employee=False)
    theirs = _doc(make_employee("Other"))
    body = client.get(f"{BASE}/hr/me/documents").json()
    assert [row["id"] for row in body["documents"]] == [mine.pk]
    assert body["documents"][0]["download_path"] == f"/hr/me/documents/{mine.pk}/download"
    download = client.get(f"{BASE}/hr/me/documents/{mine.pk}/download")
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == PDF
    for other in (theirs, hidden):
        error(
            client.get(f"{BASE}/hr/me/documents/{other.pk}/download"),
            404,
            "employee_document_not_found",
        )
    # and the HR routes stay closed to the employee
    error(client.get(f"{BASE}/employee-documents/{theirs.pk}/download"), 403)


def test_me_never_shows_another_employees_data(me):
    employee, client = me
    other = make_employee("Other", tax_id=AFMS[1], salary="9999")
    for path in ("hr/me", "hr/me/leave", "hr/me/time-entries", "hr/me/documents"):
        text = client.get(f"{BASE}/{path}", {"employee_id": other.pk}).content.decode()
        assert AFMS[1] not in text, path
        assert "9999" not in text, path
    assert client.get(f"{BASE}/hr/me", {"employee_id": other.pk}).json()["id"] == employee.pk
