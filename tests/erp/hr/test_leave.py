"""/leave-types and /leave-requests with approve, reject and cancel: working days, overlaps,
balances, and who may decide."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from erp.hr import services
from erp.hr.models import LeaveRequest, LeaveType
from tests.accounts.factories import UserFactory
from tests.erp.hr.conftest import (
    BASE,
    employee_with_account,
    make_department,
    make_employee,
    make_leave_type,
)
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db

# A Monday in the future (cancelling before the leave starts).
MON = date(2030, 12, 2)


def ask(client, employee, leave_type, start, end, **extra):
    return client.post(
        f"{BASE}/leave-requests",
        {
            "employee_id": employee.pk,
            "leave_type_id": leave_type.pk,
            "start_date": start.isoformat(),
            "end_date": end.isoformat(),
            **extra,
        },
        format="json",
    )


# --- Leave types --------------------------------------------------------------------------------


def test_leave_type_crud_and_in_use(hr):
    response = hr.post(
        f"{BASE}/leave-types",
        {"name": "Annual leave", "yearly_allowance_days": 22, "paid": True},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["code"], body["yearly_allowance_days"], body["paid"], body["active"]) == (
        "annual-leave",
        22,
        True,
        True,
    )
    pk = body["id"]
    assert (
        hr.patch(f"{BASE}/leave-types/{pk}", {"active": False}, format="json").json()["active"]
        is False
    )
    assert hr.get(f"{BASE}/leave-types", {"active": "false"}).json()["total"] == 1
    error(hr.post(f"{BASE}/leave-types", {"name": "annual leave"}, format="json"), 400)
    error(
        hr.post(f"{BASE}/leave-types", {"name": "X", "yearly_allowance_days": -1}, format="json"),
        400,
    )
    used = make_leave_type("Sick", 10)
    services.leave_request_create(
        employee_id=make_employee().pk,
        fields={"leave_type_id": used.pk, "start_date": MON, "end_date": MON},
    )
    error(hr.delete(f"{BASE}/leave-types/{used.pk}"), 409, "in_use")
    assert hr.delete(f"{BASE}/leave-types/{pk}").status_code == 204
    assert list(LeaveType.objects.values_list("name", flat=True)) == ["Sick"]


# --- Requests -----------------------------------------------------------------------------------


def test_a_request_counts_working_days_only(hr):
    employee = make_employee()
    annual = make_leave_type()
    # Friday to the next Tuesday: Fri, Mon, Tue
    response = ask(hr, employee, annual, MON + timedelta(days=4), MON + timedelta(days=8))
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["days"], body["status"], body["employee"]["id"]) == (3, "pending", employee.pk)
    assert body["leave_type"] == {"id": annual.pk, "name": "Annual leave"}


def test_request_refusals(hr):
    employee = make_employee()
    annual = make_leave_type(allowance=5)
    sat, sun = MON + timedelta(days=5), MON + timedelta(days=6)
    error(ask(hr, employee, annual, sat, sun), 400, "invalid_param")  # no working day
    error(ask(hr, employee, annual, MON, MON - timedelta(days=1)), 400)
    error(ask(hr, employee, annual, date(2030, 12, 30), date(2031, 1, 2)), 400)  # two years
    error(ask(hr, employee, annual, date(2019, 1, 7), date(2019, 1, 7)), 409, "not_employed")
    inactive = make_leave_type("Old", 5, is_active=False)
    error(ask(hr, employee, inactive, MON, MON), 400)
    error(ask(hr, employee, annual, MON, MON + timedelta(days=7)), 409, "leave_balance_exceeded")
    error(
        hr.post(
            f"{BASE}/leave-requests",
            {
                "employee_id": 999999,
                "leave_type_id": annual.pk,
                "start_date": "2030-12-02",
                "end_date": "2030-12-02",
            },
            format="json",
        ),
        404,
        "employee_not_found",
    )
    assert LeaveRequest.objects.count() == 0


def test_overlapping_requests_of_one_employee_are_refused(hr):
    employee, other = make_employee(), make_employee()
    annual = make_leave_type()
    assert ask(hr, employee, annual, MON, MON + timedelta(days=2)).status_code == 201
    error(
        ask(hr, employee, annual, MON + timedelta(days=2), MON + timedelta(days=3)),
        409,
        "leave_overlap",
    )
    # someone else on the same days, or the same employee after the first ends: fine
    assert ask(hr, other, annual, MON, MON).status_code == 201
    assert (
        ask(hr, employee, annual, MON + timedelta(days=3), MON + timedelta(days=3)).status_code
        == 201
    )
    # a rejected request frees its days
    first = LeaveRequest.objects.filter(employee=employee).order_by("id").first()
    assert (
        hr.post(
            f"{BASE}/leave-requests/{first.pk}/reject", {"note": "busy"}, format="json"
        ).status_code
        == 200
    )
    assert ask(hr, employee, annual, MON, MON).status_code == 201


def test_the_balance_counts_pending_at_request_and_approved_at_approval(hr):
    employee = make_employee()
    annual = make_leave_type(allowance=5)
    first = ask(hr, employee, annual, MON, MON + timedelta(days=2)).json()  # 3 days
    error(
        ask(hr, employee, annual, MON + timedelta(days=7), MON + timedelta(days=9)),
        409,
        "leave_balance_exceeded",
    )  # 3 + 3 pending > 5
    assert (
        ask(hr, employee, annual, MON + timedelta(days=7), MON + timedelta(days=8)).status_code
        == 201
    )
    assert (
        hr.post(f"{BASE}/leave-requests/{first['id']}/approve", {}, format="json").status_code
        == 200
    )
    balances = hr.get(f"{BASE}/employees/{employee.pk}/leave-balances", {"year": 2030}).json()
    assert balances["balances"][0] | {} == {
        "leave_type_id": annual.pk,
        "leave_type": "Annual leave",
        "paid": True,
        "year": 2030,
        "allowance": 5,
        "approved": 3,
        "pending": 2,
        "remaining": 2,
    }


def test_approval_rechecks_the_balance(hr, hr_user):
    employee = make_employee()
    annual = make_leave_type(allowance=5)
    one = services.leave_request_create(
        employee_id=employee.pk,
        fields={"leave_type_id": annual.pk, "start_date": MON, "end_date": MON + timedelta(days=2)},
    )
    annual.yearly_allowance_days = 2  # HR lowered the allowance since
    annual.save()
    error(
        hr.post(f"{BASE}/leave-requests/{one.pk}/approve", {}, format="json"),
        409,
        "leave_balance_exceeded",
    )
    one.refresh_from_db()
    assert one.status == "pending"


def test_the_manager_approves_and_others_cannot(store_client, erp_on):
    boss, boss_account = employee_with_account("boss@example.com")
    worker, worker_account = employee_with_account("worker@example.com", manager_id=boss.pk)
    _stranger, stranger_account = employee_with_account("stranger@example.com")
    annual = make_leave_type()
    leave = services.leave_request_create(
        employee_id=worker.pk,
        fields={"leave_type_id": annual.pk, "start_date": MON, "end_date": MON},
    )
    url = f"{BASE}/leave-requests/{leave.pk}"
    # the employee sees it, and cannot approve their own
    worker_client = store_client(worker_account)
    assert worker_client.get(url).status_code == 200
    error(worker_client.post(f"{url}/approve", {}, format="json"), 403, "not_leave_approver")
    # another employee does not even see it
    stranger_client = store_client(stranger_account)
    error(stranger_client.get(url), 404, "leave_request_not_found")
    error(stranger_client.post(f"{url}/approve", {}, format="json"), 404, "leave_request_not_found")
    assert stranger_client.get(f"{BASE}/leave-requests").json()["total"] == 0
    # a plain account neither
    error(store_client(UserFactory()).post(f"{url}/approve", {}, format="json"), 404)
    leave.refresh_from_db()
    assert leave.status == "pending"
    # the manager lists their report's request and approves it
    boss_client = store_client(boss_account)
    assert [
        r["id"] for r in boss_client.get(f"{BASE}/leave-requests").json()["leave_requests"]
    ] == [leave.pk]
    response = boss_client.post(f"{url}/approve", {"note": "Enjoy"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["decision_note"]) == ("approved", "Enjoy")
    assert body["decided_at"]
    error(boss_client.post(f"{url}/approve", {}, format="json"), 409, "leave_not_pending")
    error(boss_client.post(f"{url}/reject", {}, format="json"), 409, "leave_not_pending")


def test_a_manager_of_someone_else_cannot_decide(store_client, erp_on):
    boss, boss_account = employee_with_account("boss@example.com")
    make_employee("Report", manager_id=boss.pk)
    other = make_employee("Other")
    annual = make_leave_type()
    leave = services.leave_request_create(
        employee_id=other.pk,
        fields={"leave_type_id": annual.pk, "start_date": MON, "end_date": MON},
    )
    error(
        store_client(boss_account).post(
            f"{BASE}/leave-requests/{leave.pk}/reject", {}, format="json"
        ),
        404,
    )
    leave.refresh_from_db()
    assert leave.status == "pending"


def test_cancel(store_client, hr, erp_on):
    worker, account = employee_with_account("worker@example.com")
    annual = make_leave_type()
    mine = store_client(account)
    future = services.leave_request_create(
        employee_id=worker.pk,
        fields={"leave_type_id": annual.pk, "start_date": MON, "end_date": MON},
    )
    assert (
        hr.post(f"{BASE}/leave-requests/{future.pk}/approve", {}, format="json").status_code == 200
    )
    response = mine.post(f"{BASE}/leave-requests/{future.pk}/cancel", {}, format="json")
    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    error(
        mine.post(f"{BASE}/leave-requests/{future.pk}/cancel", {}, format="json"),
        409,
        "leave_not_cancellable",
    )
    # approved leave that has started: only HR cancels it
    started = services.leave_request_create(
        employee_id=worker.pk,
        fields={
            "leave_type_id": annual.pk,
            "start_date": date(2025, 3, 3),
            "end_date": date(2025, 3, 3),
        },
    )
    hr.post(f"{BASE}/leave-requests/{started.pk}/approve", {}, format="json")
    error(
        mine.post(f"{BASE}/leave-requests/{started.pk}/cancel", {}, format="json"),
        409,
        "leave_not_cancellable",
    )
    assert (
        hr.post(f"{BASE}/leave-requests/{started.pk}/cancel", {}, format="json").json()["status"]
        == "cancelled"
    )


def test_the_manager_cannot_cancel_a_reports_request(store_client, erp_on):
    boss, boss_account = employee_with_account("boss@example.com")
    worker = make_employee("Worker", manager_id=boss.pk)
    leave = services.leave_request_create(
        employee_id=worker.pk,
        fields={"leave_type_id": make_leave_type().pk, "start_date": MON, "end_date": MON},
    )
    error(
        store_client(boss_account).post(
            f"{BASE}/leave-requests/{leave.pk}/cancel", {}, format="json"
        ),
        403,
        "not_leave_owner",
    )


def test_list_filters(hr):
    sales = make_department("Sales")
    one, two = make_employee(department_id=sales.pk), make_employee()
    annual, sick = make_leave_type(), make_leave_type("Sick", 10)
    a = services.leave_request_create(
        employee_id=one.pk, fields={"leave_type_id": annual.pk, "start_date": MON, "end_date": MON}
    )
    b = services.leave_request_create(
        employee_id=two.pk,
        fields={
            "leave_type_id": sick.pk,
            "start_date": MON + timedelta(days=14),
            "end_date": MON + timedelta(days=14),
        },
    )

    def ids(**query):
        body = hr.get(f"{BASE}/leave-requests", query).json()
        return [row["id"] for row in body["leave_requests"]]

    assert ids() == [b.pk, a.pk]
    assert ids(employee_id=one.pk) == [a.pk]
    assert ids(leave_type_id=sick.pk) == [b.pk]
    assert ids(department_id=sales.pk) == [a.pk]
    assert ids(status="pending") == [b.pk, a.pk]
    assert ids(status="approved,rejected") == []
    assert ids(date_from=(MON + timedelta(days=1)).isoformat()) == [b.pk]
    assert ids(date_to=MON.isoformat()) == [a.pk]
    error(hr.get(f"{BASE}/leave-requests", {"status": "maybe"}), 400)


def test_only_hr_requests_leave_for_someone(store_client, erp_on):
    worker, account = employee_with_account("worker@example.com")
    response = ask(store_client(account), worker, make_leave_type(), MON, MON)
    error(response, 403, "insufficient_capability")
    assert LeaveRequest.objects.count() == 0


def test_the_list_query_count_does_not_grow(hr, django_assert_max_num_queries):
    annual = make_leave_type(allowance=None)
    for n in range(15):
        services.leave_request_create(
            employee_id=make_employee().pk,
            fields={
                "leave_type_id": annual.pk,
                "start_date": MON + timedelta(days=n * 7),
                "end_date": MON + timedelta(days=n * 7),
            }
            if n < 4
            else {"leave_type_id": annual.pk, "start_date": MON, "end_date": MON},
        )
    with django_assert_max_num_queries(10):
        body = hr.get(f"{BASE}/leave-requests", {"per_page": 100}).json()
    assert body["total"] == 15
