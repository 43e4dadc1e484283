"""Who may see and do what in HR: the HR capability (ec_manage_hr, or manage_options), and the
employee record linked to the caller's account."""

from __future__ import annotations

from erp.hr.models import Employee
from store.common.accounts import logged_in
from store.common.capabilities import has_capability, manage

HR = manage("hr")


def is_hr(user) -> bool:
    return has_capability(logged_in(user), HR)


def employee_of(user) -> Employee | None:
    """The caller's own employee record, or None."""
    user = logged_in(user)
    if user is None:
        return None
    return Employee.objects.filter(user=user).first()
