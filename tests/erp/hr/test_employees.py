"""/employees, /employees/{id}, /employees/{id}/leave-balances: personal fields only for HR
and the employee."""

from __future__ import annotations

from datetime import date

import pytest

from erp.hr.models import Employee
from tests.accounts.factories import UserFactory
from tests.erp.hr.conftest import (
    AFMS,
    AMKAS,
    BASE,
    employee_with_account,
    make_department,
    make_employee,
    make_leave_type,
)
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db

PERSONAL = {"birth_date", "home_address", "tax_id", "social_security_number", "salary"}

MARIA = {
    "first_name": "Maria",
    "last_name": "Georgiou",
    "email": "maria@example.com",
    "phone": "+30 210 1234567",
    "job_title": "Accountant",
    "hire_date": "2024-03-01",
    "employment_type": "part_time",
    "weekly_hours": "20.0",
    "birth_date": "1990-05-17",
    "home_address": "Ermou 1, Athens",
    "tax_id": "EL 094 259 216",
    "social_security_number": AMKAS[0],
    "salary": "1450.50",
}


def test_create_read_update_and_list(hr):
    department = make_department("Finance")
    boss = make_employee("Kostas", "Boss")
    account = UserFactory(email="maria@example.com")
    response = hr.post(
        f"{BASE}/employees",
        {**MARIA, "department_id": department.pk, "manager_id": boss.pk, "user_id": account.pk},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["tax_id"] == "094259216"  # compact, without the EL prefix
    assert body["salary"] == "1450.50"
    assert body["weekly_hours"] == "20.0"
    assert body["department"] == {"id": department.pk, "name": "Finance"}
    assert body["manager"] == {"id": boss.pk, "name": "Kostas Boss"}
    assert (body["user_id"], body["personal"], body["active"]) == (account.pk, True, True)
    pk = body["id"]
    response = hr.patch(f"{BASE}/employees/{pk}", {"job_title": "Senior accountant"}, format="json")
    assert response.status_code == 200
    assert response.json()["job_title"] == "Senior accountant"
    listed = hr.get(f"{BASE}/employees", {"department_id": department.pk}).json()
    assert [e["full_name"] for e in listed["employees"]] == ["Maria Georgiou"]
    assert hr.get(f"{BASE}/employees", {"search": "senior"}).json()["total"] == 1
    assert hr.get(f"{BASE}/employees", {"manager_id": boss.pk}).json()["total"] == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("tax_id", "123456789"),
        ("social_security_number", "01013099990"),
        ("hire_date", None),
        ("first_name", ""),
        ("weekly_hours", "81"),
        ("salary", "-1"),
        ("termination_date", "2020-01-01"),
        ("manager_id", 999999),
        ("department_id", 999999),
        ("user_id", 999999),
        ("employment_type", "slave"),
    ],
)
def test_invalid_fields_are_refused(hr, field, value):
    response = hr.post(f"{BASE}/employees", {**MARIA, field: value}, format="json")
    body = error(response, 400)
    assert field in body["data"]["params"], body
    assert Employee.objects.count() == 0


def test_manager_cycles_and_shared_accounts_are_refused(hr):
    top = make_employee("Top")
    middle = make_employee("Middle", manager_id=top.pk)
    error(hr.patch(f"{BASE}/employees/{top.pk}", {"manager_id": middle.pk}, format="json"), 400)
    error(hr.patch(f"{BASE}/employees/{top.pk}", {"manager_id": top.pk}, format="json"), 400)
    _, account = employee_with_account("taken@example.com")
    error(hr.patch(f"{BASE}/employees/{top.pk}", {"user_id": account.pk}, format="json"), 400)
    top.refresh_from_db()
    assert top.manager_id is None
    assert top.user_id is None


def test_an_employee_others_refer_to_is_in_use(hr, django_capture_on_commit_callbacks):
    boss = make_employee("Boss")
    make_employee("Report", manager_id=boss.pk)
    error(hr.delete(f"{BASE}/employees/{boss.pk}"), 409, "in_use")
    with django_capture_on_commit_callbacks(execute=True):
        loner = make_employee("Loner")
    # the hiring filed at the registry refers to the employee too
    error(hr.delete(f"{BASE}/employees/{loner.pk}"), 409, "in_use")
    assert Employee.objects.count() == 3


def test_a_non_hr_employee_sees_the_directory_without_personal_fields(store_client, erp_on):
    colleague = make_employee("Anna", tax_id=AFMS[1], salary="3000", home_address="Secret 1")
    me, account = employee_with_account("me@example.com", tax_id=AFMS[2], salary="1000")
    client = store_client(account)
    listed = client.get(f"{BASE}/employees").json()
    rows = {row["id"]: row for row in listed["employees"]}
    assert rows[colleague.pk]["personal"] is False
    assert not PERSONAL & set(rows[colleague.pk])
    assert rows[me.pk]["personal"] is True
    assert rows[me.pk]["tax_id"] == AFMS[2]
    detail = client.get(f"{BASE}/employees/{colleague.pk}").json()
    assert not PERSONAL & set(detail)
    assert "3000" not in str(detail)
    assert AFMS[1] not in str(detail)
    own = client.get(f"{BASE}/employees/{me.pk}").json()
    assert own["salary"] == "1000.00"
    # a non-HR employee writes nothing
    error(client.patch(f"{BASE}/employees/{me.pk}", {"salary": "9999"}, format="json"), 403)
    error(client.post(f"{BASE}/employees", MARIA, format="json"), 403)
    me.refresh_from_db()
    assert str(me.salary) == "1000.00"


def test_an_account_without_an_employee_record_sees_nobody(store_client, erp_on):
    colleague = make_employee("Anna")
    client = store_client(UserFactory())
    assert client.get(f"{BASE}/employees").json()["total"] == 0
    error(client.get(f"{BASE}/employees/{colleague.pk}"), 404, "employee_not_found")


def test_leave_balances(hr):
    annual = make_leave_type("Annual", 20)
    make_leave_type("Unpaid", None, paid=False)
    employee = make_employee()
    from erp.hr import services

    leave = services.leave_request_create(
        employee_id=employee.pk,
        fields={
            "leave_type_id": annual.pk,
            "start_date": date(2026, 3, 2),
            "end_date": date(2026, 3, 6),
        },
    )
    services.leave_request_approve(request_id=leave.pk, user=hr_user_of(hr))
    services.leave_request_create(
        employee_id=employee.pk,
        fields={
            "leave_type_id": annual.pk,
            "start_date": date(2026, 4, 6),
            "end_date": date(2026, 4, 7),
        },
    )
    body = hr.get(f"{BASE}/employees/{employee.pk}/leave-balances", {"year": 2026}).json()
    assert body["year"] == 2026
    assert body["balances"] == [
        {
            "leave_type_id": annual.pk,
            "leave_type": "Annual",
            "paid": True,
            "year": 2026,
            "allowance": 20,
            "approved": 5,
            "pending": 2,
            "remaining": 15,
        },
        {
            "leave_type_id": annual.pk + 1,
            "leave_type": "Unpaid",
            "paid": False,
            "year": 2026,
            "allowance": None,
            "approved": 0,
            "pending": 0,
            "remaining": None,
        },
    ]
    error(hr.get(f"{BASE}/employees/999999/leave-balances"), 404, "employee_not_found")


def hr_user_of(client):
    from accounts.models import User

    return User.objects.get(email="hr@example.com")


def test_the_list_query_count_does_not_grow(hr, django_assert_max_num_queries):
    department = make_department("Ops")
    boss = make_employee("Boss", department_id=department.pk)
    for _ in range(15):
        make_employee(department_id=department.pk, manager_id=boss.pk)
    with django_assert_max_num_queries(10):
        body = hr.get(f"{BASE}/employees", {"per_page": 100}).json()
    assert body["total"] == 16
