"""Fixtures of the HR tests: an HR officer (ec_manage_hr), employees linked to accounts, and
helpers that make rows through the services."""

from __future__ import annotations

import itertools
from datetime import date

import pytest

from erp.hr import services
from store.common.capabilities import manage
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, grant

BASE = API
HR = manage("hr")
# Valid Greek AFMs and AMKAs (check digits right), for the employees made here.
AFMS = ["094259216", "100000003", "100000015", "100000027", "100000039", "100000040"]
AMKAS = ["01013099997", "02028500011", "15057700013", "28119000017"]

_names = itertools.count(1)


@pytest.fixture(autouse=True)
def _documents_root(settings, tmp_path):
    """Employee documents go to a temporary private directory."""
    settings.HR_DOCUMENTS_ROOT = tmp_path / "private-docs"
    return settings.HR_DOCUMENTS_ROOT


@pytest.fixture
def hr_user(db):
    return grant(UserFactory(email="hr@example.com", name="Helen HR"), HR)


@pytest.fixture
def hr(store_client, hr_user, erp_on):
    """A client with ec_manage_hr, the ERP on."""
    return store_client(hr_user)


def make_department(name="Sales", **fields):
    return services.department_create(fields={"name": name, **fields})


def make_employee(first_name=None, last_name="Papadopoulos", **fields):
    fields.setdefault("hire_date", date(2020, 1, 6))
    return services.employee_create(
        fields={
            "first_name": first_name or f"Nikos{next(_names)}",
            "last_name": last_name,
            **fields,
        }
    )


def make_leave_type(name="Annual leave", allowance=20, **fields):
    return services.leave_type_create(
        fields={"name": name, "yearly_allowance_days": allowance, **fields}
    )


def employee_with_account(email: str, **fields):
    user = UserFactory(email=email)
    return make_employee(user_id=user.pk, **fields), user


__all__ = ["AFMS", "AMKAS", "BASE", "HR"]
