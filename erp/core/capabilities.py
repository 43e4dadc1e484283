"""The ERP's capabilities (one per domain) and its seeded roles.

ERP capabilities are store capabilities (store.common.capabilities) and ERP roles are store
roles (Django groups with a RoleProfile) that hold ERP capabilities only: one RBAC for the
store and the ERP, written by store.access.services. Inventory's capability is the store's
own (warehouses and stock are one ledger for both).
"""

from __future__ import annotations

from store.access.services import BuiltInRole
from store.common.capabilities import CAPABILITIES, manage

DOMAINS = ("invoicing", "inventory", "purchasing", "accounting", "crm", "hr")
CAPABILITY_OF = {domain: manage(domain) for domain in DOMAINS}
DOMAIN_OF = {codename: domain for domain, codename in CAPABILITY_OF.items()}
ERP_CODENAMES = frozenset(CAPABILITY_OF.values())
DESCRIPTIONS = {c.codename: c.description for c in CAPABILITIES if c.codename in ERP_CODENAMES}


def erp_only(codenames) -> list[str]:
    """The ERP capabilities among `codenames`, in the domains' order."""
    held = set(codenames)
    return [CAPABILITY_OF[domain] for domain in DOMAINS if CAPABILITY_OF[domain] in held]


BUILT_IN_ROLES = (
    BuiltInRole(
        "Accountant",
        "erp_accountant",
        (manage("accounting"), manage("invoicing")),
        "ERP: the books, invoices and their transmission to the tax authority.",
    ),
    BuiltInRole(
        "Warehouse",
        "erp_warehouse",
        (manage("inventory"),),
        "ERP: warehouses, stock adjustments, transfers and stocktakes.",
    ),
    BuiltInRole(
        "Purchaser",
        "erp_purchaser",
        (manage("purchasing"), manage("inventory")),
        "ERP: suppliers, purchase orders and goods received.",
    ),
    BuiltInRole(
        "Sales",
        "erp_sales",
        (manage("crm"), manage("invoicing")),
        "ERP: customers and leads, and invoicing what they buy.",
    ),
    BuiltInRole("HR officer", "erp_hr", (manage("hr"),), "ERP: employees and their records."),
)
BUILT_IN_SLUGS = frozenset(role.slug for role in BUILT_IN_ROLES)
