"""Real concurrent requests (PostgreSQL): every leave decision and request of one employee
takes that employee's row lock first, so two approvals cannot overspend a balance, one
request is decided once, and overlapping requests cannot both be made."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from rest_framework.test import APIClient

from erp.hr import services
from erp.hr.models import LeaveRequest
from tests.accounts.factories import UserFactory
from tests.concurrency import race
from tests.erp.hr.conftest import BASE, HR, make_employee, make_leave_type
from tests.fixtures.store import basic_auth, grant

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]

MON = date(2030, 12, 2)


def _client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(user))
    return client


def _officers(n: int) -> list:
    """Distinct HR accounts: requests of one account would queue on its own credentials."""
    return [grant(UserFactory(), HR) for _ in range(n)]


def _post(user, path: str, body: dict):
    return lambda: _client(user).post(f"{BASE}/{path}", body, format="json").status_code


def _leave(employee, leave_type, start, days=3):
    return services.leave_request_create(
        employee_id=employee.pk,
        fields={
            "leave_type_id": leave_type.pk,
            "start_date": start,
            "end_date": start + timedelta(days=days - 1),
        },
    )


def test_two_approvals_cannot_overspend_a_balance(erp_on):
    employee = make_employee()
    annual = make_leave_type(allowance=10)
    first, second = _leave(employee, annual, MON), _leave(employee, annual, MON + timedelta(days=7))
    annual.yearly_allowance_days = 4  # each fits alone (3), not both (6)
    annual.save()
    one, two = _officers(2)
    results = race(
        _post(one, f"leave-requests/{first.pk}/approve", {}),
        _post(two, f"leave-requests/{second.pk}/approve", {}),
    )
    assert sorted(results) == [200, 409], results
    assert LeaveRequest.objects.filter(status="approved").count() == 1
    assert LeaveRequest.objects.filter(status="pending").count() == 1


def test_one_request_approved_and_rejected_at_once_is_decided_once(erp_on):
    leave = _leave(make_employee(), make_leave_type(), MON)
    one, two, three = _officers(3)
    results = race(
        _post(one, f"leave-requests/{leave.pk}/approve", {}),
        _post(two, f"leave-requests/{leave.pk}/reject", {}),
        _post(three, f"leave-requests/{leave.pk}/approve", {}),
    )
    assert sorted(results) == [200, 409, 409], results
    leave.refresh_from_db()
    assert leave.status in ("approved", "rejected")


def test_overlapping_requests_made_at_once(erp_on):
    employee = make_employee()
    annual = make_leave_type(allowance=30)
    body = {
        "employee_id": employee.pk,
        "leave_type_id": annual.pk,
        "start_date": MON.isoformat(),
        "end_date": (MON + timedelta(days=2)).isoformat(),
    }
    results = race(*[_post(officer, "leave-requests", body) for officer in _officers(3)])
    assert sorted(results) == [201, 409, 409], results
    assert LeaveRequest.objects.count() == 1
