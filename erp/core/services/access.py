"""The ERP's roles and who holds them: every write goes through store.access.services (one
RBAC: its rules hold here too). Nobody moves a capability they do not hold (403
`capability_not_held`); built-in roles are read-only (409 `built_in_role`); nobody removes
the last administrator (409 `last_administrator`). Here, on top: an ERP role holds ERP
capabilities only, at least one; /erp/users moves ERP roles only, never the store's."""

from __future__ import annotations

from django.db import transaction

from erp.core.capabilities import BUILT_IN_ROLES, ERP_CODENAMES
from erp.core.selectors import access as selectors
from store.access import selectors as access_selectors
from store.access import services as access_services
from store.common.errors import invalid_params, not_found


def erp_roles_ensure() -> list:
    """The ERP's seeded roles (Accountant, Warehouse, Purchaser, Sales, HR officer), read-only
    like the store's; made when the ERP is turned on (and by seed_demo). Idempotent."""
    return access_services.roles_ensure_built_in(BUILT_IN_ROLES)


def _check_capabilities(capabilities, *, required: bool) -> None:
    if capabilities is None:
        if required:
            raise invalid_params({"capabilities": ["An ERP role needs an ERP capability."]})
        return
    other = sorted({c for c in capabilities if c not in ERP_CODENAMES})
    if other:
        raise invalid_params(
            {
                "capabilities": [
                    f"Not ERP capabilities: {', '.join(other)} (GET /erp/roles lists them; the "
                    "store's roles are managed under /managers/roles)."
                ]
            }
        )
    if not capabilities:
        raise invalid_params({"capabilities": ["An ERP role needs an ERP capability."]})


@transaction.atomic
def erp_role_create(*, actor, fields: dict):
    """A custom ERP role: a store role whose capabilities are ERP capabilities."""
    _check_capabilities(fields.get("capabilities"), required=True)
    return access_services.role_create(actor=actor, fields=fields)


@transaction.atomic
def erp_role_update(*, actor, slug: str, fields: dict):
    selectors.erp_role_get(slug)
    _check_capabilities(fields.get("capabilities"), required=False)
    return access_services.role_update(actor=actor, slug=slug, fields=fields)


@transaction.atomic
def erp_role_delete(*, actor, slug: str) -> None:
    selectors.erp_role_get(slug)
    access_services.role_delete(actor=actor, slug=slug)


def _check_erp_roles(roles) -> list[str]:
    slugs = list(dict.fromkeys(roles))
    other = [slug for slug in slugs if slug not in selectors.erp_role_slugs()]
    if other:
        raise invalid_params(
            {"roles": [f"Not ERP roles: {', '.join(map(repr, other))} (GET /erp/roles)."]}
        )
    return slugs


@transaction.atomic
def erp_user_assign(*, actor, user_id: int, roles: list[str]) -> bool:
    """Give an account ERP roles (added to those it holds). Answers whether the account held
    no ERP capability before. 404 `user_not_found` for no account."""
    slugs = _check_erp_roles(roles)
    if not slugs:
        raise invalid_params({"roles": ["Name at least one ERP role."]})
    if not selectors.account_exists(user_id):
        raise not_found("user", user_id)
    was = selectors.erp_user_list(administrators=True).filter(pk=user_id).exists()
    access_services.manager_assign(actor=actor, user_id=user_id, roles=slugs, is_staff=False)
    return not was


def _store_state(user_id: int) -> dict:
    return access_selectors.manager_state(selectors.erp_user_get(user_id))


@transaction.atomic
def erp_user_update(*, actor, user_id: int, roles: list[str]) -> None:
    """Replace the account's ERP roles (its store roles stay)."""
    slugs = _check_erp_roles(roles)
    state = _store_state(user_id)
    erp = selectors.erp_role_slugs()
    kept = [slug for slug in state["roles"] if slug not in erp]
    access_services.manager_update(actor=actor, user_id=user_id, fields={"roles": kept + slugs})


@transaction.atomic
def erp_user_remove(*, actor, user_id: int) -> None:
    """Take the account's ERP roles and its own ERP capabilities away (its store roles stay;
    an administrator keeps holding everything through manage_options)."""
    state = _store_state(user_id)
    erp = selectors.erp_role_slugs()
    access_services.manager_update(
        actor=actor,
        user_id=user_id,
        fields={
            "roles": [slug for slug in state["roles"] if slug not in erp],
            "capabilities": [c for c in state["capabilities"] if c not in ERP_CODENAMES],
        },
    )
