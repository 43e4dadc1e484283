"""Reads of the ERP's roles and users: store roles and accounts (store.access.selectors) seen
through the ERP's capabilities."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from erp.core.capabilities import ERP_CODENAMES, erp_only
from store.access import selectors as access
from store.common.capabilities import APP_LABEL, MANAGE_OPTIONS
from store.common.errors import not_found

User = get_user_model()


# --- Roles ---------------------------------------------------------------------------------------


def _role_permissions(**filters):
    return Group.permissions.through.objects.filter(
        group_id=OuterRef("pk"), permission__content_type__app_label=APP_LABEL, **filters
    )


def erp_roles() -> QuerySet:
    """Store roles holding at least one ERP capability and no other store capability."""
    return (
        access.roles()
        .filter(Exists(_role_permissions(permission__codename__in=ERP_CODENAMES)))
        .exclude(Exists(_role_permissions().exclude(permission__codename__in=ERP_CODENAMES)))
    )


def erp_role_list(*, search: str | None = None, built_in: bool | None = None) -> QuerySet:
    queryset = erp_roles().annotate(user_count=Count("user", distinct=True))
    if search:
        queryset = queryset.filter(
            Q(name__icontains=search)
            | Q(store_role__slug__icontains=search)
            | Q(store_role__description__icontains=search)
        )
    if built_in is not None:
        queryset = queryset.filter(store_role__built_in=built_in)
    return queryset.order_by("-store_role__built_in", "name", "id")


def erp_role_get(slug: str) -> Group:
    """The ERP role with `slug`: 404 `role_not_found` for no role or a role that is not the
    ERP's (the store's roles are managed under /managers/roles)."""
    if not isinstance(slug, str) or not access.SLUG.match(slug):
        raise not_found("role", slug)
    group = erp_role_list().filter(store_role__slug=slug).first()
    if group is None:
        raise not_found("role", slug)
    return group


def erp_role_slugs() -> set[str]:
    return set(erp_roles().values_list("store_role__slug", flat=True))


def is_erp_role(group: Group) -> bool:
    """For a role read through `store.access.selectors.roles()` (its capabilities loaded)."""
    held = access.role_capabilities(group)
    return bool(held) and set(held) <= ERP_CODENAMES


def role_erp_capabilities(group: Group) -> list[str]:
    return erp_only(access.role_capabilities(group))


# --- Users ---------------------------------------------------------------------------------------


def _erp_holders(*, administrators: bool) -> Q:
    """Accounts holding an ERP capability of their own or through a role; with
    `administrators`, also manage_options holders and superusers (who hold every one)."""
    held = Q(
        pk__in=User.user_permissions.through.objects.filter(
            permission__content_type__app_label=APP_LABEL,
            permission__codename__in=ERP_CODENAMES,
        ).values("user_id")
    ) | Q(
        pk__in=User.groups.through.objects.filter(
            group__permissions__content_type__app_label=APP_LABEL,
            group__permissions__codename__in=ERP_CODENAMES,
        ).values("user_id")
    )
    return held | access.holders_of(MANAGE_OPTIONS) if administrators else held


def erp_user_list(
    *,
    search: str | None = None,
    role: str | None = None,
    capability: str | None = None,
    administrators: bool = False,
) -> QuerySet:
    queryset = access.accounts().filter(_erp_holders(administrators=administrators))
    if search:
        queryset = queryset.filter(Q(email__icontains=search) | Q(name__icontains=search))
    if role:
        queryset = queryset.filter(
            pk__in=User.groups.through.objects.filter(group__store_role__slug=role).values(
                "user_id"
            )
        )
    if capability:
        queryset = queryset.filter(access.holders_of(capability))
    return queryset.order_by("id")


def erp_user_get(user_id: int):
    """An account holding an ERP capability (administrators too): 404 `erp_user_not_found`."""
    user = erp_user_list(administrators=True).filter(pk=user_id).first()
    if user is None:
        raise not_found("erp_user", user_id)
    return user


def account_exists(user_id: int) -> bool:
    return User.objects.filter(pk=user_id).exists()


def user_erp_roles(user) -> list[Group]:
    """The ERP roles of an account read through `erp_user_list` (prefetched)."""
    return [group for group in access.manager_roles(user) if is_erp_role(group)]


def user_erp_capabilities(user) -> list[str]:
    return erp_only(access.manager_effective_capabilities(user))


def user_is_administrator(user) -> bool:
    return user.is_active and MANAGE_OPTIONS in access.manager_effective_capabilities(user)
