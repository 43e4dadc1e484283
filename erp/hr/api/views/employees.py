"""Employees: the directory (HR sees the personal fields, an employee their own), hiring,
changes, deletion, and an employee's leave balances.
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from erp.hr import selectors, services
from erp.hr.access import HR
from erp.hr.api.views._shared import HRResourceView, HRView
from store.common.params import validate_body, validate_query
from store.common.permissions import LOGGED_IN
from store.common.schema import store_schema

from .. import serializers as s

EMPLOYEE_ID = OpenApiParameter("employee_id", int, OpenApiParameter.PATH)


def _employee_body(request, employee) -> dict:
    return s.employee_data(employee, personal=selectors.sees_personal(request.user, employee))


class EmployeeListView(HRView):
    access = {"GET": LOGGED_IN, "*": HR}

    @store_schema(
        summary="List employees",
        parameters=[s.EmployeeListQuerySerializer],
        responses={200: s.EmployeePageSerializer},
        description="`{employees, total, page, per_page, total_pages}` by last name. HR sees "
        "everyone with the personal fields (birth date, home address, AFM, AMKA, salary); an "
        "employee (an account linked to an employee record) sees the directory without them "
        "(`personal: false`), except on their own row; other accounts see nobody. Filters: "
        "`search`, `department_id`, `manager_id`, `employment_type`, `active`.",
    )
    def get(self, request):
        query = validate_query(s.EmployeeListQuerySerializer, request.query_params)
        page = selectors.employee_page(query, request.user)
        return Response(s.named_page("employees", page, lambda e: _employee_body(request, e)))

    @store_schema(
        summary="Create an employee (hire)",
        request=s.EmployeeWriteSerializer,
        responses={201: s.EmployeeSerializer},
        description="`first_name`, `last_name` and `hire_date` are required. `tax_id` is a "
        "Greek AFM and `social_security_number` an AMKA, both checked with python-stdnum "
        "(400 naming them). `manager_id` is another employee (no cycles); `user_id` an "
        "account not linked to another employee. The hiring is filed at the labor registry "
        "after the commit (GET /labor-registry/submissions). Send an Idempotency-Key to retry "
        "safely.",
    )
    def post(self, request):
        fields = validate_body(s.EmployeeWriteSerializer, request.data)
        employee = services.employee_create(fields=dict(fields))
        return Response(
            _employee_body(request, selectors.employee_get(employee.pk)),
            status=status.HTTP_201_CREATED,
        )


class EmployeeDetailView(HRResourceView):
    access = {"GET": LOGGED_IN, "*": HR}
    resource = "employee"
    id_kwarg = "employee_id"
    output_serializer = s.EmployeeSerializer
    write_serializer = s.EmployeeWriteSerializer
    descriptions = {
        "get": "HR and the employee themself see the personal fields; other employees the "
        "directory fields; other accounts 404.",
        "patch": "Only the fields sent change. Setting `termination_date` files a termination "
        "at the labor registry, changing `weekly_hours` a working-time change (after the "
        "commit).",
        "put": "Same as PATCH.",
        "delete": "An employee with leave, time entries, documents, filings or reports "
        "answers 409 `in_use`: set a termination date instead.",
    }

    def read(self, request, pk):
        return _employee_body(request, selectors.employee_get(pk, request.user, scoped=True))

    def update(self, request, pk, fields):
        services.employee_update(employee_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.employee_delete(employee_id=pk)


class EmployeeLeaveBalancesView(HRView):
    @store_schema(
        summary="An employee's leave balances",
        parameters=[EMPLOYEE_ID, s.LeaveBalanceQuerySerializer],
        responses={200: s.LeaveBalancesSerializer},
        description="Per leave type for `year` (default this year): the allowance, the "
        "working days approved and pending, and what remains (allowance - approved).",
    )
    def get(self, request, employee_id):
        query = validate_query(s.LeaveBalanceQuerySerializer, request.query_params)
        employee = selectors.employee_get(employee_id)
        year = query.get("year") or timezone.localdate().year
        return Response(
            {
                "employee_id": employee.pk,
                "year": year,
                "balances": selectors.leave_balances(employee, year),
            }
        )
