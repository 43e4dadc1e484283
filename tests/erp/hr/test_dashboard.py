"""/hr/dashboard and /hr/who-is-out."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.utils import timezone

from erp.hr import services
from tests.accounts.factories import UserFactory
from tests.erp.hr.conftest import BASE, make_department, make_employee, make_leave_type
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db


def _leave(employee, leave_type, start, end, *, approve=True):
    leave = services.leave_request_create(
        employee_id=employee.pk,
        fields={"leave_type_id": leave_type.pk, "start_date": start, "end_date": end},
    )
    if approve:
        services.leave_request_approve(request_id=leave.pk, user=_hr())
    return leave


def _hr():
    from accounts.models import User

    return User.objects.get(email="hr@example.com")


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def test_dashboard(hr, django_assert_max_num_queries):
    today = timezone.localdate()
    sales, ops = make_department("Sales"), make_department("Ops")
    a = make_employee("A", department_id=sales.pk)
    make_employee("B", department_id=sales.pk, employment_type="part_time")
    make_employee("C", department_id=ops.pk)
    make_employee("D")
    make_employee("Gone", termination_date=today - timedelta(days=1))
    annual = make_leave_type(allowance=None)
    start = _monday(today)
    _leave(a, annual, start, start + timedelta(days=6))
    _leave(
        make_employee("E", department_id=ops.pk),
        annual,
        date(2030, 12, 2),
        date(2030, 12, 3),
        approve=False,
    )
    with django_assert_max_num_queries(12):
        body = hr.get(f"{BASE}/hr/dashboard").json()
    assert body["date"] == today.isoformat()
    assert body["headcount"] == 5
    assert body["by_employment_type"] == {"full_time": 4, "part_time": 1}
    assert body["by_department"] == [
        {"department_id": ops.pk, "department": "Ops", "headcount": 2},
        {"department_id": sales.pk, "department": "Sales", "headcount": 2},
        {"department_id": None, "department": "", "headcount": 1},
    ]
    assert body["on_leave_today"] == 1
    assert (body["pending_leave_requests"], body["pending_leave_days"]) == (1, 2)


def test_who_is_out(hr, django_assert_max_num_queries):
    annual = make_leave_type(allowance=None)
    sales = make_department("Sales")
    first = make_employee("First", department_id=sales.pk)
    second = make_employee("Second")
    mon = date(2030, 12, 2)
    a = _leave(first, annual, mon, mon + timedelta(days=2))
    b = _leave(second, annual, mon + timedelta(days=2), mon + timedelta(days=4))
    _leave(make_employee("Pending"), annual, mon, mon, approve=False)
    body = hr.get(
        f"{BASE}/hr/who-is-out",
        {"date_from": mon.isoformat(), "date_to": (mon + timedelta(days=1)).isoformat()},
    ).json()
    assert [row["id"] for row in body["absences"]] == [a.pk]
    wide = hr.get(
        f"{BASE}/hr/who-is-out",
        {"date_from": mon.isoformat(), "date_to": (mon + timedelta(days=6)).isoformat()},
    ).json()
    assert [row["id"] for row in wide["absences"]] == [a.pk, b.pk]
    assert (
        hr.get(
            f"{BASE}/hr/who-is-out",
            {
                "date_from": mon.isoformat(),
                "date_to": (mon + timedelta(days=6)).isoformat(),
                "department_id": sales.pk,
            },
        ).json()["total"]
        == 1
    )
    error(
        hr.get(f"{BASE}/hr/who-is-out", {"date_from": "2030-12-05", "date_to": "2030-12-01"}), 400
    )
    error(
        hr.get(f"{BASE}/hr/who-is-out", {"date_from": "2030-01-01", "date_to": "2032-01-01"}), 400
    )
    for n in range(10):
        _leave(make_employee(f"X{n}"), annual, mon, mon)
    with django_assert_max_num_queries(10):
        assert (
            hr.get(f"{BASE}/hr/who-is-out", {"date_from": mon.isoformat(), "per_page": 100}).json()[
                "total"
            ]
            == 11
        )


def test_only_hr(store_client, erp_on):
    client = store_client(UserFactory())
    error(client.get(f"{BASE}/hr/dashboard"), 403, "insufficient_capability")
    error(client.get(f"{BASE}/hr/who-is-out"), 403, "insufficient_capability")
