"""Reads of roles and managers, with their capabilities loaded for a whole page at once.

A manager is an account that is staff, a superuser, or holds a store role or a store
capability of its own. A role is a Django group with a RoleProfile.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet

from store.access.models import RoleProfile
from store.common.capabilities import APP_LABEL, CAPABILITIES, CODENAMES, MANAGE_OPTIONS
from store.common.errors import not_found

User = get_user_model()
_ORDER = {c.codename: index for index, c in enumerate(CAPABILITIES)}
SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}\Z")


def ordered(codenames: Iterable[str]) -> list[str]:
    """Capabilities in the order of the list (store.common.capabilities.CAPABILITIES)."""
    return sorted(set(codenames), key=lambda c: _ORDER.get(c, len(_ORDER)))


def store_permissions() -> QuerySet:
    return Permission.objects.filter(content_type__app_label=APP_LABEL)


# --- Roles --------------------------------------------------------------------------------------


def roles() -> QuerySet:
    return (
        Group.objects.filter(store_role__isnull=False)
        .select_related("store_role")
        .prefetch_related(
            Prefetch("permissions", queryset=store_permissions().only("id", "codename"))
        )
    )


def role_list(*, search: str | None = None, built_in: bool | None = None) -> QuerySet:
    queryset = roles().annotate(manager_count=Count("user", distinct=True))
    if search:
        queryset = queryset.filter(
            Q(name__icontains=search)
            | Q(store_role__slug__icontains=search)
            | Q(store_role__description__icontains=search)
        )
    if built_in is not None:
        queryset = queryset.filter(store_role__built_in=built_in)
    return queryset.order_by("-store_role__built_in", "name", "id")


def _valid_slug(slug) -> bool:
    return isinstance(slug, str) and SLUG.match(slug) is not None


def role_get(slug: str, *, for_update: bool = False) -> Group:
    """The role with `slug` (404 `role_not_found`), with its manager count."""
    if not _valid_slug(slug):
        raise not_found("role", slug)
    queryset = roles().annotate(manager_count=Count("user", distinct=True))
    if for_update:
        queryset = Group.objects.select_for_update().select_related("store_role")
    group = queryset.filter(store_role__slug=slug).first()
    if group is None:
        raise not_found("role", slug)
    return group


def role_capabilities(group: Group) -> list[str]:
    """The store capabilities of a role (prefetched by `roles()` when listed)."""
    return ordered(p.codename for p in group.permissions.all() if p.codename in CODENAMES)


def role_state(group: Group) -> dict:
    """What the audit trail compares: name, slug, description, capabilities."""
    profile = group.store_role
    codenames = store_permissions().filter(group=group).values_list("codename", flat=True)
    return {
        "name": group.name,
        "slug": profile.slug,
        "description": profile.description,
        "capabilities": ordered(codenames),
    }


def roles_by_slugs(slugs: Iterable[str]) -> list[Group]:
    return list(
        Group.objects.filter(store_role__slug__in=[s for s in slugs if _valid_slug(s)])
        .select_related("store_role")
        .order_by("id")
    )


def capabilities_of_roles(slugs: Iterable[str]) -> set[str]:
    slugs = list(slugs)
    if not slugs:
        return set()
    return set(
        store_permissions()
        .filter(group__store_role__slug__in=slugs)
        .values_list("codename", flat=True)
    )


def role_slug_of(name: str) -> str:
    profile = RoleProfile.objects.filter(group__name=name).first()
    if profile is None:
        raise not_found("role", name)
    return profile.slug


# --- Managers -----------------------------------------------------------------------------------


def _has_role():
    return Exists(
        User.groups.through.objects.filter(user_id=OuterRef("pk"), group__store_role__isnull=False)
    )


def _has_capability_of_own():
    return Exists(
        User.user_permissions.through.objects.filter(
            user_id=OuterRef("pk"), permission__content_type__app_label=APP_LABEL
        )
    )


def managers() -> QuerySet:
    """Every manager, each with their store roles and capabilities for a whole page in three
    queries (roles, the roles' capabilities, their own capabilities)."""
    return accounts().filter(
        Q(is_staff=True) | Q(is_superuser=True) | _has_role() | _has_capability_of_own()
    )


def accounts() -> QuerySet:
    """Accounts with their store roles and own capabilities loaded (see `managers`)."""
    return User.objects.only(
        "id",
        "email",
        "name",
        "is_active",
        "is_staff",
        "is_superuser",
        "date_joined",
        "last_login",
    ).prefetch_related(
        Prefetch(
            "groups",
            queryset=roles().order_by("name", "id"),
            to_attr="store_roles",
        ),
        Prefetch(
            "user_permissions",
            queryset=store_permissions().only("id", "codename"),
            to_attr="store_capabilities",
        ),
    )


def holders_of(codename: str) -> Q:
    """Accounts that hold `codename` (directly, through a role, by manage_options, superusers)."""
    codenames = {codename, MANAGE_OPTIONS}
    return (
        Q(is_superuser=True)
        | Q(
            pk__in=User.user_permissions.through.objects.filter(
                permission__content_type__app_label=APP_LABEL,
                permission__codename__in=codenames,
            ).values("user_id")
        )
        | Q(
            pk__in=User.groups.through.objects.filter(
                group__permissions__content_type__app_label=APP_LABEL,
                group__permissions__codename__in=codenames,
            ).values("user_id")
        )
    )


ORDERBY = {"id": "id", "email": "email", "name": "name", "registered": "date_joined"}


def manager_list(
    *,
    search: str | None = None,
    role: str | None = None,
    capability: str | None = None,
    is_active: bool | None = None,
    orderby: str = "id",
    order: str = "ASC",
) -> QuerySet:
    queryset = managers()
    if search:
        queryset = queryset.filter(Q(email__icontains=search) | Q(name__icontains=search))
    if role:
        queryset = queryset.filter(
            pk__in=User.groups.through.objects.filter(group__store_role__slug=role).values(
                "user_id"
            )
        )
    if capability:
        queryset = queryset.filter(holders_of(capability))
    if is_active is not None:
        queryset = queryset.filter(is_active=is_active)
    field = ORDERBY[orderby]
    prefix = "-" if order == "DESC" else ""
    return queryset.order_by(f"{prefix}{field}", f"{prefix}id")


def manager_get(user_id: int, *, managers_only: bool = True):
    """A manager (404 `manager_not_found` for other accounts unless `managers_only` is off:
    the answer to a change that made the account stop being one)."""
    user = (managers() if managers_only else accounts()).filter(pk=user_id).first()
    if user is None:
        raise not_found("manager", user_id)
    return user


def manager_roles(user) -> list[Group]:
    """The store roles of a manager read through `managers()` (prefetched)."""
    return list(user.store_roles)


def manager_own_capabilities(user) -> list[str]:
    return ordered(p.codename for p in user.store_capabilities)


def manager_effective_capabilities(user) -> list[str]:
    """Every capability the manager is granted: manage_options (or superuser) means all."""
    if not user.is_active:
        return []
    if user.is_superuser:
        return ordered(CODENAMES)
    held = set(manager_own_capabilities(user))
    for group in user.store_roles:
        held.update(role_capabilities(group))
    return ordered(CODENAMES) if MANAGE_OPTIONS in held else ordered(held)


def manager_state(user) -> dict:
    """What the services compare and audit: roles (slugs), own capabilities, staff flag."""
    slugs = (
        RoleProfile.objects.filter(group__user=user).order_by("slug").values_list("slug", flat=True)
    )
    codenames = store_permissions().filter(user=user).values_list("codename", flat=True)
    return {
        "roles": list(slugs),
        "capabilities": ordered(codenames),
        "is_staff": user.is_staff,
    }


def is_manager(user) -> bool:
    return managers().filter(pk=user.pk).exists()


def user_id_by_email(email: str) -> int:
    """The account with this e-mail address (compared lower-case), 404 `user_not_found`."""
    user_id = User.objects.filter(email=(email or "").strip().lower()).values_list("pk", flat=True)
    found = user_id.first()
    if found is None:
        raise not_found("user", email)
    return found
