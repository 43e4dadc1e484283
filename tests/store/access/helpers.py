"""Accounts with store roles and capabilities, for the managers tests."""

from __future__ import annotations

from django.contrib.auth.models import Group

from store.access import selectors
from store.common.capabilities import ADMINISTRATOR_ROLE, MANAGE_MANAGERS
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, grant

MANAGERS = f"{API}/managers"
ROLES = f"{MANAGERS}/roles"
CAPABILITIES = f"{MANAGERS}/capabilities"


def manager_url(user_id) -> str:
    return f"{MANAGERS}/{user_id}"


def role_url(slug) -> str:
    return f"{ROLES}/{slug}"


def with_role(user, name: str):
    user.groups.add(Group.objects.get(name=name))
    return user


def store_administrator(**fields):
    """An account holding manage_options through the built-in role (not a superuser)."""
    return with_role(UserFactory(**fields), ADMINISTRATOR_ROLE)


def people_manager(*codenames: str, **fields):
    """An account holding ec_manage_managers and `codenames` of its own."""
    return grant(UserFactory(**fields), MANAGE_MANAGERS, *codenames)


def state(user) -> dict:
    user.refresh_from_db()
    return selectors.manager_state(user)
