"""/departments and /departments/{id}."""

from __future__ import annotations

import pytest

from erp.hr.models import Department
from tests.accounts.factories import UserFactory
from tests.erp.hr.conftest import BASE, make_department, make_employee
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db


def test_create_read_update_list_and_delete(hr):
    response = hr.post(f"{BASE}/departments", {"name": "Warehouse Team"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["name"], body["code"], body["employee_count"]) == (
        "Warehouse Team",
        "warehouse-team",
        0,
    )
    pk = body["id"]
    response = hr.patch(f"{BASE}/departments/{pk}", {"description": "Stock"}, format="json")
    assert response.status_code == 200
    assert response.json()["description"] == "Stock"
    make_department("Accounts")
    listed = hr.get(f"{BASE}/departments", {"search": "ware"}).json()
    assert [d["name"] for d in listed["departments"]] == ["Warehouse Team"]
    assert listed["total"] == 1
    assert hr.delete(f"{BASE}/departments/{pk}").status_code == 204
    assert not Department.objects.filter(pk=pk).exists()
    error(hr.get(f"{BASE}/departments/{pk}"), 404, "department_not_found")


def test_refusals(hr):
    make_department("Sales")
    error(hr.post(f"{BASE}/departments", {"name": "sales"}, format="json"), 400, "invalid_param")
    error(hr.post(f"{BASE}/departments", {"name": " "}, format="json"), 400, "invalid_param")
    error(hr.post(f"{BASE}/departments", {"name": "X", "code": "sales"}, format="json"), 400)
    assert Department.objects.count() == 1


def test_a_department_with_employees_is_in_use(hr):
    department = make_department("Sales")
    make_employee(department_id=department.pk)
    error(hr.delete(f"{BASE}/departments/{department.pk}"), 409, "in_use")
    assert Department.objects.filter(pk=department.pk).exists()
    assert hr.get(f"{BASE}/departments/{department.pk}").json()["employee_count"] == 1


def test_only_hr(store_client, erp_on):
    plain = store_client(UserFactory())
    error(plain.get(f"{BASE}/departments"), 403, "insufficient_capability")
    error(plain.post(f"{BASE}/departments", {"name": "X"}, format="json"), 403)
    assert Department.objects.count() == 0


def test_the_list_query_count_does_not_grow(hr, django_assert_max_num_queries):
    for n in range(12):
        department = make_department(f"Dept {n}")
        make_employee(department_id=department.pk)
    with django_assert_max_num_queries(12):
        body = hr.get(f"{BASE}/departments", {"per_page": 100}).json()
    assert body["total"] == 12
    assert {d["employee_count"] for d in body["departments"]} == {1}
