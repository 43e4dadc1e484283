"""Shared bits of the ERP kernel's tests."""

from __future__ import annotations

from tests.fixtures.store import API

ERP = f"{API}/erp"
USERS = f"{ERP}/users"
ROLES = f"{ERP}/roles"
MIGRATE = f"{ERP}/migrate-data"
BACKFILL = f"{ERP}/inventory/backfill"
CHECKLIST = f"{ERP}/onboarding/checklist"
PORTAL = f"{ERP}/portal-settings"


def user_url(user_id) -> str:
    return f"{USERS}/{user_id}"


def role_url(slug) -> str:
    return f"{ROLES}/{slug}"
