"""The store's (ec/v1) recipes, one module per area of the store:

- `store_catalog`: products, variants, reviews, search, categories, brands, attributes, media
- `store_cart`: the cart, the checkout, coupons
- `store_orders`: orders, their items, payments, shipments, couriers and refunds
- `store_customers`: customers, and the demo customer's own account
- `store_shipping`: shipping zones and methods, tax, couriers
- `store_admin`: shop managers and roles, settings and e-mails, the store's webhooks
- `store_marketplaces`: marketplaces and product feeds
- `store_payments`: payment gateways (the sandbox provider)
- `store_erp`: the ERP's licence, jobs, roles and users, stock, invoicing, accounting, CRM,
  purchasing
- `store_hr`: HR
- `store_shared`: what the recipes of several areas use (calls to the store, the demo's
  products and customer, a new order)

STORE_RECIPES gathers them (an operationId is in one area only); the helpers are re-exported
here too (`common.api.examples.recipes.store.product`), as the theme's recipes use them.
"""

from __future__ import annotations

from common.api.examples.recipes.store_admin import ADMIN_RECIPES
from common.api.examples.recipes.store_cart import (
    CART_RECIPES,
    buyer_checkout,
    cart_method,
    fill_cart,
    shopper_cart_line,
)
from common.api.examples.recipes.store_catalog import (
    APRON_EAN,
    CATALOG_RECIPES,
    ean13,
    png_image,
    scarf,
)
from common.api.examples.recipes.store_customers import (
    CUSTOMER_RECIPES,
    password_changer,
    store_session,
)
from common.api.examples.recipes.store_erp import (
    ERP_RECIPES,
    erp_licence,
    held_job,
    journal_entry_body,
)
from common.api.examples.recipes.store_hr import (
    HR_RECIPES,
    employee,
    leave_body,
    my_document,
    pdf_document,
    time_body,
    unfiled_employee,
    working_days,
)
from common.api.examples.recipes.store_marketplaces import (
    MARKETPLACE_RECIPES,
    MARKETPLACE_SECRET,
    failed_marketplace_order,
    feed_token,
    marketplace_event,
    marketplace_order,
    marketplace_ready,
    marketplace_signature,
    product_sku,
)
from common.api.examples.recipes.store_orders import ORDER_RECIPES, order_item, paid_order
from common.api.examples.recipes.store_payments import (
    PAYMENT_RECIPES,
    SANDBOX_WEBHOOK_SECRET,
    sandbox_event,
    sandbox_signature,
    wallet_order,
)
from common.api.examples.recipes.store_shared import (
    ADDRESS,
    CAP,
    HOODIE,
    MUG,
    TEE,
    TOTE,
    cached,
    category,
    customer,
    first_list,
    new_order,
    order_body,
    product,
    recorded_id,
    signed,
    st,
    store_prefix,
    tee_variant,
    warehouse,
)
from common.api.examples.recipes.store_shipping import SHIPPING_RECIPES, voucher_number
from common.api.examples.recorder import Recipe

STORE_RECIPES: dict[str, Recipe] = {
    **CATALOG_RECIPES,
    **CART_RECIPES,
    **ORDER_RECIPES,
    **CUSTOMER_RECIPES,
    **SHIPPING_RECIPES,
    **ADMIN_RECIPES,
    **MARKETPLACE_RECIPES,
    **PAYMENT_RECIPES,
    **ERP_RECIPES,
    **HR_RECIPES,
}

__all__ = [
    "ADDRESS",
    "APRON_EAN",
    "CAP",
    "HOODIE",
    "MARKETPLACE_SECRET",
    "MUG",
    "SANDBOX_WEBHOOK_SECRET",
    "STORE_RECIPES",
    "TEE",
    "TOTE",
    "buyer_checkout",
    "cached",
    "cart_method",
    "category",
    "customer",
    "ean13",
    "employee",
    "erp_licence",
    "failed_marketplace_order",
    "feed_token",
    "fill_cart",
    "first_list",
    "held_job",
    "journal_entry_body",
    "leave_body",
    "marketplace_event",
    "marketplace_order",
    "marketplace_ready",
    "marketplace_signature",
    "my_document",
    "new_order",
    "order_body",
    "order_item",
    "paid_order",
    "password_changer",
    "pdf_document",
    "png_image",
    "product",
    "product_sku",
    "recorded_id",
    "sandbox_event",
    "sandbox_signature",
    "scarf",
    "shopper_cart_line",
    "signed",
    "st",
    "store_prefix",
    "store_session",
    "tee_variant",
    "time_body",
    "unfiled_employee",
    "voucher_number",
    "wallet_order",
    "warehouse",
    "working_days",
]
