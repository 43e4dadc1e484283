"""Departments: list, create, read, change, delete."""

from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response

from erp.hr import selectors, services
from erp.hr.api.views._shared import HRResourceView, HRView
from store.common.params import validate_body, validate_query
from store.common.schema import store_schema

from .. import serializers as s


class DepartmentListView(HRView):
    @store_schema(
        summary="List departments",
        parameters=[s.DepartmentListQuerySerializer],
        responses={200: s.DepartmentPageSerializer},
        description="`{departments, total, page, per_page, total_pages}` by name, each with "
        "its count of employees not terminated. `search`: words in the name or code.",
    )
    def get(self, request):
        query = validate_query(s.DepartmentListQuerySerializer, request.query_params)
        page = selectors.department_page(query)
        return Response(s.named_page("departments", page, s.department_data))

    @store_schema(
        summary="Create a department",
        request=s.DepartmentWriteSerializer,
        responses={201: s.DepartmentSerializer},
        description="`name` unique (400); `code` from the name when empty. Send an "
        "Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.DepartmentWriteSerializer, request.data)
        department = services.department_create(fields=dict(fields))
        return Response(
            s.department_data(selectors.department_get(department.pk)),
            status=status.HTTP_201_CREATED,
        )


class DepartmentDetailView(HRResourceView):
    resource = "department"
    id_kwarg = "department_id"
    output_serializer = s.DepartmentSerializer
    write_serializer = s.DepartmentWriteSerializer
    descriptions = {
        "patch": "Only the fields sent change.",
        "put": "Same as PATCH.",
        "delete": "A department with employees answers 409 `in_use` (move them first).",
    }

    def read(self, request, pk):
        return s.department_data(selectors.department_get(pk))

    def update(self, request, pk, fields):
        services.department_update(department_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.department_delete(department_id=pk)
