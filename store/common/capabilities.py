"""The store's capabilities: Django permissions of the `store_access` app, held through roles.

`manage_options` is the administrator's capability and a superset of every other one (spec:
"every admin route also accepts manage_options"); `{prefix}_manage_<group>` covers one group of
admin routes. A role is a Django group holding some of these permissions; superusers hold all.
The list is the single source: `store.access.models.Capability` declares exactly these
permissions, and GET /managers/capabilities (a later issue) will answer it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q

from common.compiled import CompiledQuery

APP_LABEL = "store_access"
PREFIX = settings.STORE_PREFIX

MANAGE_OPTIONS = "manage_options"


def manage(group: str) -> str:
    """The capability that manages one group of routes: manage("products") is ec_manage_products."""
    return f"{PREFIX}_manage_{group}"


MANAGE_PRODUCTS = manage("products")
MANAGE_ORDERS = manage("orders")
MANAGE_CUSTOMERS = manage("customers")
MANAGE_SETTINGS = manage("settings")
MANAGE_MANAGERS = manage("managers")
MANAGE_REVIEWS = manage("reviews")
# Store webhooks: they send order, product and customer data to outside URLs, so
# administrators only (manage_options) unless a role is given it; not the shop manager's.
MANAGE_WEBHOOKS = manage("webhooks")
# The theme's page builder (spec: "Builder endpoints require edit_posts or
# edit_post"), named as the spec names them (no prefix). edit_post: build page layouts (save
# new ones and one's own, preview, render, read templates); edit_posts: every layout, whoever
# first saved it, and the saved templates. Holding edit_posts satisfies edit_post (the
# builder's views check it; docs/decisions/theme.md, Page builder).
EDIT_POSTS = "edit_posts"
EDIT_POST = "edit_post"


@dataclass(frozen=True)
class Capability:
    codename: str
    description: str


CAPABILITIES: tuple[Capability, ...] = (
    Capability(MANAGE_OPTIONS, "Administrator: every store route, settings, the API description"),
    Capability(MANAGE_PRODUCTS, "Products, variants, categories, attributes, brands and media"),
    Capability(MANAGE_REVIEWS, "Moderate product reviews"),
    Capability(MANAGE_ORDERS, "Read and edit orders, payments and shipments"),
    Capability(MANAGE_CUSTOMERS, "Customers and their addresses"),
    Capability(MANAGE_SETTINGS, "Store settings"),
    Capability(MANAGE_MANAGERS, "Managers and roles"),
    Capability(manage("coupons"), "Coupons"),
    Capability(manage("inventory"), "Warehouses and stock"),
    Capability(manage("shipping"), "Shipping zones, methods and couriers"),
    Capability(manage("tax"), "Tax classes and rates"),
    Capability(manage("payments"), "Payment gateways and refunds"),
    Capability(manage("emails"), "E-mail templates and settings"),
    Capability(manage("marketplace"), "Marketplace sync and feeds"),
    Capability(manage("reports"), "Dashboard and reports"),
    Capability(manage("invoicing"), "ERP: invoicing"),
    Capability(manage("purchasing"), "ERP: suppliers and purchasing"),
    Capability(manage("accounting"), "ERP: accounting"),
    Capability(manage("crm"), "ERP: CRM"),
    Capability(manage("hr"), "ERP: HR"),
    Capability(MANAGE_WEBHOOKS, "Store webhooks: register receivers of store events"),
    Capability(EDIT_POSTS, "Page builder: every page layout and the saved templates"),
    Capability(EDIT_POST, "Page builder: new page layouts and one's own, preview and render"),
)
CODENAMES = frozenset(c.codename for c in CAPABILITIES)

# The seeded "Shop manager" role: runs the shop day to day, but not its settings, its
# managers or anything administrator-only.
SHOP_MANAGER_ROLE = "Shop manager"
SHOP_MANAGER_CAPABILITIES = (
    MANAGE_PRODUCTS,
    MANAGE_REVIEWS,
    MANAGE_ORDERS,
    MANAGE_CUSTOMERS,
    manage("coupons"),
    manage("inventory"),
    manage("shipping"),
    manage("reports"),
    EDIT_POSTS,  # the storefront's pages
    EDIT_POST,
)
# Shop managers also get the Django admin's model permissions of these apps.
# (Tax stays with administrators.)
SHOP_MANAGER_ADMIN_APPS = (
    "store_catalog",
    "store_media",
    "store_reviews",
    "store_orders",
    "store_customers",
    "store_inventory",
    "store_cart",
    "store_shipping",
    "store_coupons",
    "store_checkout",  # Checkouts (the sandbox's charges stay with administrators)
)
# The seeded "Store administrator" role: manage_options, for administrators who are not
# Django superusers.
ADMINISTRATOR_ROLE = "Store administrator"
ADMINISTRATOR_CAPABILITIES = (MANAGE_OPTIONS,)


def has_capability(user, capability: str) -> bool:
    """The one check every store view uses: `capability` or manage_options, active users only."""
    if capability not in CODENAMES:
        raise ValueError(f"Unknown store capability {capability!r}")
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    held = capabilities_of(user)
    return capability in held or MANAGE_OPTIONS in held


def capabilities_of(user) -> frozenset[str]:
    """The store capabilities an active account holds, directly or through its roles: what
    Django's ModelBackend.has_perm answers (superusers hold every one), in one query instead
    of its two, remembered on the user object for the request (as the backend's own cache)."""
    held = getattr(user, "_store_capabilities", None)
    if held is None:
        if user.is_superuser:
            held = CODENAMES
        else:
            held = frozenset(row[0] for row in _held_query().rows(user.pk))
        user._store_capabilities = held
    return held


_HELD: list[CompiledQuery] = []


def _held_query() -> CompiledQuery:
    """The codenames an account holds, directly or through its roles: asked on every staff
    request, so compiled once per connection (common.compiled)."""
    if not _HELD:
        from django.contrib.auth.models import Permission  # not at import: app loading

        _HELD.append(
            CompiledQuery(
                lambda user_id: (
                    Permission.objects.filter(content_type__app_label=APP_LABEL)
                    .filter(Q(user=user_id) | Q(group__user=user_id))
                    .values_list("codename")
                    .distinct()
                ),
                (-1,),
                (-2,),
            )
        )
    return _HELD[0]
