"""The store administration's recipes: shop managers and their roles, the settings and the
e-mails, the store's webhooks.
"""

from __future__ import annotations

from common.api.examples.recipes.store_shared import first_list, st
from common.api.examples.recorder import ACTION, Recipe

ADMIN_RECIPES: dict[str, Recipe] = {
    # Shop managers and their roles.
    "role_list_post": Recipe(
        body={
            "name": "Customer support",
            "description": "Answers customers: reads and updates orders.",
            "capabilities": ["ec_manage_orders"],
        }
    ),
    "role_detail_patch": Recipe(body={"description": "Answers customers and handles returns."}),
    "manager_list_post": Recipe(
        body={"email": "accountant@example.com", "roles": ["shop_manager"], "is_staff": True}
    ),
    "manager_detail_get": Recipe(
        params={"user_id": lambda rec, _p: rec.value("store", "manager_list_post", "id")}
    ),
    "manager_detail_put": Recipe(
        params={"user_id": lambda rec, _p: rec.value("store", "manager_list_post", "id")},
        body={"roles": ["shop_manager"], "capabilities": ["ec_manage_orders"]},
    ),
    "manager_detail_patch": Recipe(
        params={"user_id": lambda rec, _p: rec.value("store", "manager_list_post", "id")},
        body={"capabilities": ["ec_manage_orders", "ec_manage_products"]},
    ),
    "manager_detail_delete": Recipe(
        params={"user_id": lambda rec, _p: rec.value("store", "manager_list_post", "id")}
    ),
    # Webhooks (store).
    "webhook_list_post": Recipe(
        body={
            "url": "https://erp.acme-studio.example/hooks/emporion",
            "events": ["order.created", "order.paid", "stock.low"],
            "description": "Order sync to the ERP",
        }
    ),
    "webhook_detail_patch": Recipe(
        body={"events": ["order.created", "order.paid", "order.refunded"]}
    ),
    "webhook_test_post": Recipe(phase=ACTION - 2),
    "webhook_deliveries_get": Recipe(phase=ACTION - 1),
    "webhook_redeliver_post": Recipe(
        phase=ACTION,
        params={
            "delivery_id": lambda rec, p: first_list(
                st(rec, "GET", f"/webhooks/{p['webhook_id']}/deliveries")
            )[0]["id"]
        },
    ),
    # Settings.
    "settings_section_get": Recipe(params={"section": "general"}),
    "settings_section_put": Recipe(
        params={"section": "general"},
        body={"store_name": "Emporion Store", "store_email": "orders@example.com"},
    ),
    "settings_section_patch": Recipe(
        params={"section": "inventory"}, body={"out_of_stock_visibility": True}
    ),
    "settings_reset_post": Recipe(params={"section": "products"}),
    "email_settings_patch": Recipe(body={"sender_name": "Emporion Store"}),
    "email_test_post": Recipe(body={"type": "order_confirmation", "to": "orders@example.com"}),
    "email_preview_post": Recipe(
        body=lambda rec, _p: {
            "order_id": rec.value("store", "order_list_post", "id"),
            "subject": "Thank you for your order {{ order.number }}",
        }
    ),
}
