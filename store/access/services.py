"""Roles: Django groups holding store capabilities."""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission
from django.db import transaction

from store.common.capabilities import (
    ADMINISTRATOR_CAPABILITIES,
    ADMINISTRATOR_ROLE,
    APP_LABEL,
    SHOP_MANAGER_ADMIN_APPS,
    SHOP_MANAGER_CAPABILITIES,
    SHOP_MANAGER_ROLE,
)

DEFAULT_ROLES = {
    SHOP_MANAGER_ROLE: SHOP_MANAGER_CAPABILITIES,
    ADMINISTRATOR_ROLE: ADMINISTRATOR_CAPABILITIES,
}


@transaction.atomic
def roles_ensure_defaults() -> list[Group]:
    """Create the seeded roles, or give them back any capability they lost. Idempotent."""
    roles = []
    for name, codenames in DEFAULT_ROLES.items():
        group, _created = Group.objects.get_or_create(name=name)
        permissions = Permission.objects.filter(
            content_type__app_label=APP_LABEL, codename__in=codenames
        )
        group.permissions.add(*permissions)
        if name == SHOP_MANAGER_ROLE:  # the admin screens of the catalog, media and reviews
            group.permissions.add(
                *Permission.objects.filter(content_type__app_label__in=SHOP_MANAGER_ADMIN_APPS)
            )
        roles.append(group)
    return roles


def roles_ensure_on_migrate(sender, using="default", **kwargs) -> None:
    """After the migrations of the apps whose permissions the roles hold (idempotent)."""
    if getattr(sender, "label", None) not in (APP_LABEL, *SHOP_MANAGER_ADMIN_APPS):
        return
    if not Permission.objects.using(using).filter(content_type__app_label=APP_LABEL).exists():
        return  # the permissions are created by the auth app's handler; it may run after us
    roles_ensure_defaults()


def role_assign(*, user, role_name: str) -> None:
    user.groups.add(Group.objects.get(name=role_name))
