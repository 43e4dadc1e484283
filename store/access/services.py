"""Roles and managers: every write of store roles and capabilities (the API and the admin call
these; nothing else writes them).

Roles are Django groups with a RoleProfile (slug, description, built_in); capabilities are the
`store_access` permissions (store.common.capabilities). The rules, checked before anything is
kept (a refusal changes nothing):

- The built-in roles (Shop manager, Store administrator) are read-only: 409 `built_in_role`.
- Nobody moves a capability they do not hold: granting it (to a role or an account), taking it
  away, assigning or removing a role that carries it, deleting such a role: 403
  `capability_not_held`. manage_options holders (and superusers) hold every capability;
  `actor=None` is the system (migrations, seeding, management commands).
- Nobody removes the last active holder of manage_options (superusers count): 409
  `last_administrator`.
- Every write takes the same lock first (the manage_options permission row, FOR UPDATE), so
  two administrators demoting each other at once cannot both succeed.
- The per-request capability caches of the accounts involved are forgotten after a change.
- Each change is written to the audit trail (common.audit) on the role's group or the account.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import IntegrityError, transaction
from django.db.models import Q

from common import audit
from common.errors import Conflict, Forbidden
from store.access import selectors
from store.access.models import RoleProfile
from store.common.capabilities import (
    ADMINISTRATOR_CAPABILITIES,
    ADMINISTRATOR_ROLE,
    APP_LABEL,
    CODENAMES,
    MANAGE_OPTIONS,
    SHOP_MANAGER_ADMIN_APPS,
    SHOP_MANAGER_CAPABILITIES,
    SHOP_MANAGER_ROLE,
    capabilities_of,
    has_capability,
)
from store.common.errors import not_found
from store.common.problems import Problems

User = get_user_model()

DEFAULT_ROLES = {
    SHOP_MANAGER_ROLE: SHOP_MANAGER_CAPABILITIES,
    ADMINISTRATOR_ROLE: ADMINISTRATOR_CAPABILITIES,
}
# The seeded roles' slugs (also written by migration 0003_role_slugs).
BUILT_IN_SLUGS = {SHOP_MANAGER_ROLE: "shop_manager", ADMINISTRATOR_ROLE: "store_administrator"}
SLUG = selectors.SLUG
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
NAME_MAX = 150  # Group.name


# --- The seeded roles ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BuiltInRole:
    """A seeded, read-only role: the store's own, or another app's (the ERP's)."""

    name: str
    slug: str
    capabilities: tuple[str, ...]
    description: str = ""


def _seed(group: Group, role: BuiltInRole) -> Group:
    defaults = {"slug": role.slug, "built_in": True}
    if role.description:
        defaults["description"] = role.description
    RoleProfile.objects.update_or_create(group=group, defaults=defaults)
    group.permissions.add(*_permissions(role.capabilities))
    return group


@transaction.atomic
def roles_ensure_built_in(roles: Iterable[BuiltInRole]) -> list[Group]:
    """Create another app's seeded roles (erp.core's), or give them back any capability they
    lost; read-only like the store's (409 `built_in_role`). A role is found by its slug; a new
    one takes its name, or "<name> (<slug>)" when a role already has the name (a custom role
    is never taken over). Idempotent."""
    roles = list(roles)
    found = {
        profile.slug: profile
        for profile in RoleProfile.objects.select_related("group").filter(
            slug__in=[role.slug for role in roles]
        )
    }
    _create_unnamed([role for role in roles if role.slug not in found], found)
    groups = []
    for role in roles:
        profile = found.get(role.slug)
        if profile is None:  # a group has its name already: one by one, as the rules say
            group = Group.objects.filter(name__iexact=role.name, store_role__isnull=True).first()
            if group is None:
                taken = Group.objects.filter(name__iexact=role.name).exists()
                name = f"{role.name} ({role.slug})"[:NAME_MAX] if taken else role.name
                group = Group.objects.get_or_create(name=name)[0]
            groups.append(_seed(group, role))
            continue
        if not profile.built_in or (role.description and profile.description != role.description):
            profile.built_in = True
            profile.description = role.description or profile.description
            profile.save(update_fields=["built_in", "description", "updated_at"])
        groups.append(profile.group)
    _give_back_capabilities(zip(groups, roles, strict=True))
    return groups


def _create_unnamed(roles: list[BuiltInRole], found: dict[str, RoleProfile]) -> None:
    """Make, in three statements, the new roles whose name no group has yet (in any case):
    what happens the first time; they join `found`."""
    if not roles:
        return
    named = Q()
    for role in roles:
        named |= Q(name__iexact=role.name)
    existing = {
        name.casefold() for name in Group.objects.filter(named).values_list("name", flat=True)
    }
    fresh = [role for role in roles if role.name.casefold() not in existing]
    if not fresh:
        return
    groups = Group.objects.bulk_create([Group(name=role.name) for role in fresh])
    profiles = RoleProfile.objects.bulk_create(
        [
            RoleProfile(group=group, slug=role.slug, built_in=True, description=role.description)
            for group, role in zip(groups, fresh, strict=True)
        ]
    )
    for profile in profiles:
        found[profile.slug] = profile


def _give_back_capabilities(seeded: Iterable[tuple[Group, BuiltInRole]]) -> None:
    """Give each seeded role any capability it lost: one read of what they hold, one insert of
    what they miss (already-existing roles cost two queries in all)."""
    seeded = list(seeded)
    ids = {p.codename: p.pk for p in _permissions(c for _g, r in seeded for c in r.capabilities)}
    through = Group.permissions.through
    held = set(
        through.objects.filter(group__in=[group.pk for group, _role in seeded]).values_list(
            "group_id", "permission_id"
        )
    )
    missing = {
        (group.pk, ids[codename])
        for group, role in seeded
        for codename in role.capabilities
        if codename in ids and (group.pk, ids[codename]) not in held
    }
    through.objects.bulk_create(
        [through(group_id=group, permission_id=permission) for group, permission in missing],
        ignore_conflicts=True,
    )


@transaction.atomic
def roles_ensure_defaults() -> list[Group]:
    """Create the store's seeded roles (by name), or give them back any capability they lost.
    Idempotent."""
    roles = []
    for name, codenames in DEFAULT_ROLES.items():
        group, _created = Group.objects.get_or_create(name=name)
        _seed(group, BuiltInRole(name, BUILT_IN_SLUGS[name], tuple(codenames)))
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
    """Give `user` a role by name, as the system (seeding, commands): no rule applies."""
    manager_assign(
        actor=None, user_id=user.pk, roles=[selectors.role_slug_of(role_name)], is_staff=False
    )


# --- Shared checks ------------------------------------------------------------------------------


def _lock() -> None:
    """The one lock every write of roles and capabilities takes first."""
    list(
        Permission.objects.select_for_update()
        .filter(content_type__app_label=APP_LABEL, codename=MANAGE_OPTIONS)
        .values_list("pk", flat=True)
    )


def _admins_exist() -> bool:
    """Whether an active account holds manage_options (superusers do)."""
    held = Q(content_type__app_label=APP_LABEL, codename=MANAGE_OPTIONS)
    ids = Permission.objects.filter(held).values_list("pk", flat=True)
    return (
        User.objects.filter(is_active=True)
        .filter(Q(is_superuser=True) | Q(user_permissions__in=ids) | Q(groups__permissions__in=ids))
        .exists()
    )


class _AdministratorsKept:
    """`with _AdministratorsKept(): change` refuses a change that leaves no administrator."""

    def __enter__(self):
        self.before = _admins_exist()
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and self.before and not _admins_exist():
            raise Conflict(
                "This would leave the store without an administrator: nobody active would "
                "hold manage_options. Give it to someone else first.",
                code="last_administrator",
            )
        return False


def _check_held(actor, codenames: Iterable[str], what: str) -> None:
    """403 unless `actor` holds every capability in `codenames` (None: the system)."""
    if actor is None:
        return
    capabilities_forget(actor)  # read under the lock: a racing change may have just landed
    lacking = sorted(c for c in set(codenames) if not has_capability(actor, c))
    if lacking:
        raise Forbidden(
            f"You cannot {what}: it moves capabilities you do not hold ({', '.join(lacking)}).",
            code="capability_not_held",
        )


def capabilities_forget(*users) -> None:
    """Drop the per-request capability caches of `users` (ours and Django's ModelBackend's)."""
    for user in users:
        if user is None:
            continue
        for name in ("_store_capabilities", "_perm_cache", "_user_perm_cache", "_group_perm_cache"):
            if hasattr(user, name):
                delattr(user, name)


def _permissions(codenames: Iterable[str]) -> list[Permission]:
    return list(
        Permission.objects.filter(content_type__app_label=APP_LABEL, codename__in=set(codenames))
    )


def _check_capability_names(problems: Problems, name: str, codenames) -> list[str]:
    codenames = list(dict.fromkeys(codenames))
    unknown = [c for c in codenames if c not in CODENAMES]
    if unknown:
        problems.add(
            name,
            f"Unknown capabilities: {', '.join(unknown)} (GET /managers/capabilities lists them).",
        )
    return codenames


# --- Roles --------------------------------------------------------------------------------------


def _clean_name(problems: Problems, value, exclude_pk: int | None) -> str | None:
    name = (value or "").strip() if isinstance(value, str) else ""
    if not name:
        problems.add("name", "A role needs a name.")
        return None
    if len(name) > NAME_MAX or _CONTROL.search(name):
        problems.add("name", f"A name has at most {NAME_MAX} characters and no control characters.")
        return None
    taken = Group.objects.filter(name__iexact=name)
    if exclude_pk:
        taken = taken.exclude(pk=exclude_pk)
    if taken.exists():
        problems.add("name", f"A role named {name!r} exists.", code="duplicate_role")
        return None
    return name


def _slug_from(name: str) -> str:
    base = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:56] or "role"
    taken = set(
        RoleProfile.objects.filter(slug__startswith=base).values_list("slug", flat=True)
    ) | set(BUILT_IN_SLUGS.values())
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}_{n}", n + 1
    return slug


def _role_changes(group: Group, before: dict) -> dict:
    after = selectors.role_state(group)
    return {key: [before.get(key), after[key]] for key in after if before.get(key) != after[key]}


def role_check(*, actor, fields: dict, slug: str | None = None) -> None:
    """The refusals of creating a role (or changing the one with `slug`), without making it
    (the admin's form shows them)."""
    if slug is None:
        _role_create_checked(actor, fields)
    else:
        _role_update_checked(actor, _custom_role(slug, for_update=False), fields)


def _role_create_checked(actor, fields: dict) -> tuple[str, str | None, list[str]]:
    problems = Problems()
    name = _clean_name(problems, fields.get("name"), None)
    slug = fields.get("slug")
    if slug is not None:
        if not isinstance(slug, str) or not SLUG.match(slug):
            problems.add("slug", "1 to 64 lower-case letters, digits, _ or -, from a letter/digit.")
        elif RoleProfile.objects.filter(slug=slug).exists() or slug in BUILT_IN_SLUGS.values():
            problems.add("slug", f"The slug {slug!r} is taken.", code="duplicate_role")
    codenames = _check_capability_names(problems, "capabilities", fields.get("capabilities", []))
    problems.raise_if_any()
    _check_held(actor, codenames, "create this role")
    return name, slug, codenames


@transaction.atomic
def role_create(*, actor, fields: dict) -> Group:
    """A custom role: `name` (unique without regard to case), `slug` (made from the name when
    absent; lower-case letters, digits, _ and -), `description`, `capabilities`."""
    _lock()
    name, slug, codenames = _role_create_checked(actor, fields)
    try:
        with transaction.atomic():
            group = Group.objects.create(name=name)
            RoleProfile.objects.create(
                group=group,
                slug=slug or _slug_from(name),
                description=fields.get("description", "") or "",
            )
    except IntegrityError:  # a racing request took the name or the slug
        raise Conflict("A role with this name or slug exists.", code="duplicate_role") from None
    group.permissions.set(_permissions(codenames))
    audit.record(group, action="created", changes=_role_changes(group, {}))
    capabilities_forget(actor)  # the actor may hold the changed role
    return group


def _custom_role(slug: str, *, for_update: bool = True) -> Group:
    group = selectors.role_get(slug, for_update=for_update)
    if group.store_role.built_in:
        raise Conflict(
            f"{group.name!r} is a built-in role: it cannot be changed or deleted. Create a "
            "custom role with the capabilities you want instead.",
            code="built_in_role",
        )
    return group


def _role_update_checked(actor, group: Group, fields: dict):
    before = selectors.role_state(group)
    problems = Problems()
    name = _clean_name(problems, fields["name"], group.pk) if "name" in fields else None
    codenames = None
    if "capabilities" in fields:
        codenames = _check_capability_names(problems, "capabilities", fields["capabilities"])
    problems.raise_if_any()
    if codenames is not None:
        moved = set(codenames) ^ set(before["capabilities"])
        _check_held(actor, moved, "change this role's capabilities")
    return before, name, codenames


@transaction.atomic
def role_update(*, actor, slug: str, fields: dict) -> Group:
    """Rename, describe or give a custom role another set of capabilities (`capabilities`
    replaces the set). The slug stays."""
    _lock()
    group = _custom_role(slug)
    profile = group.store_role
    before, name, codenames = _role_update_checked(actor, group, fields)
    with _AdministratorsKept():
        if name is not None:
            group.name = name
            try:
                with transaction.atomic():
                    group.save(update_fields=["name"])
            except IntegrityError:
                raise Conflict("A role with this name exists.", code="duplicate_role") from None
        if "description" in fields:
            profile.description = fields["description"] or ""
        profile.save()
        if codenames is not None:
            others = group.permissions.exclude(content_type__app_label=APP_LABEL)
            group.permissions.set([*others, *_permissions(codenames)])
    audit.record(group, action="changed", changes=_role_changes(group, before))
    capabilities_forget(actor)  # the actor may hold the changed role
    return group


@transaction.atomic
def role_delete(*, actor, slug: str) -> None:
    """Delete a custom role; its managers lose it (their accounts stay)."""
    _lock()
    group = _custom_role(slug)
    before = selectors.role_state(group)
    _check_held(actor, before["capabilities"], "delete this role")
    with _AdministratorsKept():
        audit.record(
            group,
            action="deleted",
            changes={key: [value, None] for key, value in before.items() if value},
        )
        group.delete()
    capabilities_forget(actor)  # the actor may hold the changed role


# --- Managers -----------------------------------------------------------------------------------


def _user_for_update(user_id: int):
    user = User.objects.select_for_update().filter(pk=user_id).first()
    if user is None:
        raise not_found("user", user_id)
    return user


def _roles_by_slug(problems: Problems, slugs) -> list[Group]:
    slugs = list(dict.fromkeys(slugs))
    found = {g.store_role.slug: g for g in selectors.roles_by_slugs(slugs)}
    missing = [s for s in slugs if s not in found]
    if missing:
        problems.add("roles", f"No roles {', '.join(map(repr, missing))} (GET /managers/roles).")
    return [found[s] for s in slugs if s in found]


def _plan(actor, user, *, roles=None, capabilities=None, is_staff=None, what: str):
    """Check a change of the account's store roles, own capabilities and staff flag (nothing
    written): the roles' groups and the capabilities to set (None: unchanged). Opening or
    closing an account's admin access needs every capability the account holds (nobody
    locks out someone above them)."""
    before = selectors.manager_state(user)
    role_groups = None
    codenames = None
    problems = Problems()
    if roles is not None:
        role_groups = _roles_by_slug(problems, roles)
    if capabilities is not None:
        codenames = _check_capability_names(problems, "capabilities", capabilities)
    problems.raise_if_any()
    moved: set[str] = set()
    if role_groups is not None:
        changed = {g.store_role.slug for g in role_groups} ^ set(before["roles"])
        moved |= selectors.capabilities_of_roles(changed)
    if codenames is not None:
        moved |= set(codenames) ^ set(before["capabilities"])
    if is_staff is not None and is_staff != user.is_staff:
        moved |= capabilities_of(user)
    _check_held(actor, moved, what)
    return before, role_groups, codenames


def manager_check(*, actor, user_id: int, roles=None, capabilities=None, is_staff=None) -> None:
    """The refusals of a manager change, without making it (the admin's form shows them)."""
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        raise not_found("user", user_id)
    _plan(
        actor,
        user,
        roles=roles,
        capabilities=capabilities,
        is_staff=is_staff,
        what="make this change",
    )


def _apply(actor, user, *, roles=None, capabilities=None, is_staff=None, what: str) -> dict:
    """Set the account's store roles / own capabilities / staff flag after the checks."""
    before, role_groups, codenames = _plan(
        actor, user, roles=roles, capabilities=capabilities, is_staff=is_staff, what=what
    )
    with _AdministratorsKept():
        if role_groups is not None:
            other_groups = user.groups.filter(store_role__isnull=True)
            user.groups.set([*other_groups, *role_groups])
        if codenames is not None:
            others = user.user_permissions.exclude(content_type__app_label=APP_LABEL)
            user.user_permissions.set([*others, *_permissions(codenames)])
        if is_staff is not None and user.is_staff != is_staff:
            user.is_staff = is_staff
            user.save(update_fields=["is_staff"])
    capabilities_forget(user)
    after = selectors.manager_state(user)
    changes = {k: [before[k], after[k]] for k in after if before[k] != after[k]}
    audit.record(user, action="changed", changes=changes, note="store roles")
    capabilities_forget(actor)  # the same account, maybe, as another object
    return changes


@transaction.atomic
def manager_assign(
    *,
    actor,
    user_id: int,
    roles: list[str] | None = None,
    capabilities: list[str] | None = None,
    is_staff: bool = True,
):
    """Make an existing account a manager, or give a manager more: the roles and capabilities
    sent are added to those held. Answers (user, whether the account was a manager before)."""
    _lock()
    user = _user_for_update(user_id)
    was_manager = selectors.is_manager(user)
    state = selectors.manager_state(user)
    _apply(
        actor,
        user,
        roles=[*state["roles"], *(roles or [])] if roles else None,
        capabilities=[*state["capabilities"], *(capabilities or [])] if capabilities else None,
        is_staff=True if is_staff else None,
        what="assign these roles or capabilities",
    )
    return user, was_manager


@transaction.atomic
def manager_update(*, actor, user_id: int, fields: dict):
    """Replace a manager's store roles (`roles`), direct capabilities (`capabilities`) or
    staff flag (`is_staff`); the fields not sent stay."""
    _lock()
    user = _user_for_update(user_id)
    if not selectors.is_manager(user):
        raise not_found("manager", user_id)
    _apply(
        actor,
        user,
        roles=fields.get("roles"),
        capabilities=fields.get("capabilities"),
        is_staff=fields.get("is_staff"),
        what="change this manager",
    )
    return user


@transaction.atomic
def manager_remove(*, actor, user_id: int) -> None:
    """No longer a manager: every store role and direct capability taken away, no staff access.
    The account itself stays. A superuser holds everything by that flag: 409."""
    _lock()
    user = _user_for_update(user_id)
    if not selectors.is_manager(user):
        raise not_found("manager", user_id)
    if user.is_superuser:
        raise Conflict(
            "A superuser holds every capability whatever their roles; take the superuser "
            "status away in the admin (Users) first.",
            code="manager_is_superuser",
        )
    _apply(actor, user, roles=[], capabilities=[], is_staff=False, what="remove this manager")
