"""The HR demo seed: idempotent, through the services, linked to the demo admin's login."""

from __future__ import annotations

import pytest

from erp.hr import demo
from erp.hr.models import Department, Employee, LaborSubmission, LeaveRequest, LeaveType
from tests.accounts.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_seed_is_idempotent_and_files_the_hirings(django_capture_on_commit_callbacks):
    admin = UserFactory(email="admin@example.com")
    with django_capture_on_commit_callbacks(execute=True):
        lines = demo.seed()
    with django_capture_on_commit_callbacks(execute=True):
        demo.seed()
    assert lines[0].startswith("ERP HR: 3 departments, 4 employees")
    assert (Department.objects.count(), LeaveType.objects.count(), Employee.objects.count()) == (
        3,
        3,
        4,
    )
    assert Employee.objects.get(user=admin).first_name == "Ada"
    assert sorted(LeaveRequest.objects.values_list("status", flat=True)) in (
        ["approved", "pending"],
        ["approved"],  # the pending one would cross into next year
    )
    assert set(LaborSubmission.objects.values_list("kind", "status")) == {("hiring", "sent")}
    assert LaborSubmission.objects.count() == 4
