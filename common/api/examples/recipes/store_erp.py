"""The ERP's recipes: its licence, its jobs (backfill, data migration), roles and users, stock
and warehouses, invoicing, accounting, CRM and purchasing.
"""

from __future__ import annotations

import datetime

from common.api.examples.recipes.shared import PORTAL
from common.api.examples.recipes.store_shared import (
    CAP,
    MUG,
    TOTE,
    first_list,
    product,
    recorded_id,
    st,
    warehouse,
)
from common.api.examples.recorder import ACTION, LAST, Recipe, Recorder, today


def held_job(rec: Recorder, path: str, body: dict) -> None:
    """Start a background job whose tasks wait in the queue (not run at once), so that it
    is still running when the recorded call cancels it."""
    from celery import current_app

    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = False
    try:
        st(rec, "POST", path, body)
    finally:
        current_app.conf.task_always_eager = eager


def erp_licence(rec: Recorder) -> str:
    licences = rec.call_json("reseller", "GET", f"{PORTAL}/licenses")
    return next(lic["license_key"] for lic in licences if lic["product"]["slug"] == "emporion-erp")


def journal_entry_body(rec: Recorder) -> dict:
    accounts = first_list(st(rec, "GET", "/accounts?per_page=100"))
    expense = next(a["id"] for a in accounts if a["type"] == "expense" and a["active"])
    bank = next(a["id"] for a in accounts if a.get("role") == "bank")
    return {
        "date": today().isoformat(),
        "reference": "SUP-2026-0457",
        "memo": "Office supplies",
        "lines": [
            {"account_id": expense, "debit": "45.00", "description": "Printer paper and toner"},
            {"account_id": bank, "credit": "45.00", "description": "Paid by card"},
        ],
    }


ERP_RECIPES: dict[str, Recipe] = {
    # Stock (ERP inventory).
    "stock_adjust_post": Recipe(
        body=lambda rec, _p: {
            "product_id": product(rec, TOTE),
            "warehouse_id": warehouse(rec, "Main warehouse"),
            "quantity": 5,
            "reason": "found",
            "note": "Found in the returns area.",
        }
    ),
    "stock_transfer_post": Recipe(
        body=lambda rec, _p: {
            "from_warehouse_id": warehouse(rec, "Main warehouse"),
            "to_warehouse_id": warehouse(rec, "Athens depot"),
            "lines": [{"product_id": product(rec, TOTE), "quantity": 2}],
            "note": "Restock the Athens shop.",
        }
    ),
    "stock_stocktake_post": Recipe(
        body=lambda rec, _p: {
            "warehouse_id": warehouse(rec, "Athens depot"),
            "counts": [{"product_id": product(rec, CAP), "quantity": 4}],
            "note": "Monthly count.",
        }
    ),
    "warehouse_list_post": Recipe(
        body={
            "name": "Thessaloniki store",
            "code": "thessaloniki",
            "priority": 20,
            "city": "Thessaloniki",
            "postcode": "54624",
            "country": "GR",
        }
    ),
    "warehouse_activate_post": Recipe(params={"warehouse_id": recorded_id("warehouse_list_post")}),
    "warehouse_deactivate_post": Recipe(
        phase=ACTION + 1, params={"warehouse_id": recorded_id("warehouse_list_post")}
    ),
    "warehouse_set_default_post": Recipe(
        phase=LAST - 1, params={"warehouse_id": lambda rec, _p: warehouse(rec, "Athens depot")}
    ),
    # The ERP: its licence, its jobs, its roles and users.
    "erp_backfill_start_post": Recipe(
        body={"cost_ratio": "0.60", "reorder_point": 5, "reorder_quantity": 20}
    ),
    "erp_backfill_cancel_post": Recipe(
        phase=ACTION,
        before=lambda rec: held_job(rec, "/erp/inventory/backfill/start", {"cost_ratio": "0.55"}),
    ),
    "erp_migrate_data_start_post": Recipe(body={"include": ["customers", "orders"]}),
    "erp_migrate_data_cancel_post": Recipe(
        phase=ACTION,
        before=lambda rec: held_job(rec, "/erp/migrate-data/start", {"include": ["stock"]}),
    ),
    "erp_migrate_data_job_get": Recipe(
        params={"job_id": recorded_id("erp_migrate_data_start_post")}
    ),
    "erp_activate_post": Recipe(body=lambda rec, _p: {"license_key": erp_licence(rec)}),
    "erp_role_list_post": Recipe(
        body={
            "name": "Stock clerk",
            "description": "Counts and moves stock; orders from suppliers.",
            "capabilities": ["ec_manage_inventory", "ec_manage_purchasing"],
        }
    ),
    "erp_role_detail_get": Recipe(
        params={"slug": lambda rec, _p: rec.value("store", "erp_role_list_post", "slug")}
    ),
    "erp_role_detail_patch": Recipe(
        params={"slug": lambda rec, _p: rec.value("store", "erp_role_list_post", "slug")},
        body={"capabilities": ["ec_manage_inventory"]},
    ),
    "erp_role_detail_delete": Recipe(
        params={"slug": lambda rec, _p: rec.value("store", "erp_role_list_post", "slug")}
    ),
    "erp_user_list_post": Recipe(
        body=lambda rec, _p: {
            "email": "nikos.konstantinou@example.com",
            "roles": [rec.value("store", "erp_role_list_post", "slug")],
        }
    ),
    "erp_user_detail_put": Recipe(
        params={"user_id": lambda rec, _p: rec.value("store", "erp_user_list_post", "id")},
        body={"roles": ["erp_accountant"]},
    ),
    "erp_user_detail_patch": Recipe(
        params={"user_id": lambda rec, _p: rec.value("store", "erp_user_list_post", "id")},
        body=lambda rec, _p: {
            "roles": ["erp_accountant", rec.value("store", "erp_role_list_post", "slug")]
        },
    ),
    "erp_user_detail_get": Recipe(
        params={"user_id": lambda rec, _p: rec.value("store", "erp_user_list_post", "id")}
    ),
    "erp_user_detail_delete": Recipe(
        params={"user_id": lambda rec, _p: rec.value("store", "erp_user_list_post", "id")}
    ),
    # Invoicing.
    "invoice_issue_post": Recipe(params={"invoice_id": recorded_id("invoice_list_post")}),
    "invoice_pdf_get": Recipe(
        phase=ACTION + 1, params={"invoice_id": recorded_id("invoice_list_post")}
    ),
    "invoice_transmit_post": Recipe(
        phase=ACTION + 1, params={"invoice_id": recorded_id("invoice_list_post")}
    ),
    "invoice_cancel_transmission_post": Recipe(
        phase=ACTION + 2, params={"invoice_id": recorded_id("invoice_list_post")}
    ),
    "invoice_cancel_post": Recipe(
        phase=ACTION + 3,
        params={"invoice_id": recorded_id("invoice_list_post")},
        body={"reason": "Issued to the wrong customer."},
    ),
    "invoice_detail_delete": Recipe(
        params={"invoice_id": lambda rec, _p: rec.create("store", "POST /invoices")["id"]}
    ),
    "series_list_post": Recipe(
        body={
            "code": "B",
            "name": "Wholesale invoices",
            "document_type": "1.1",
            "prefix": "B-",
            "next_number": 1,
        }
    ),
    # Accounting.
    "account_list_post": Recipe(
        body={
            "code": "1150",
            "name": "PayPal balance",
            "type": "asset",
            "description": "Money held at PayPal.",
        }
    ),
    "journal_entry_list_post": Recipe(body=lambda rec, _p: journal_entry_body(rec)),
    "journal_entry_post_post": Recipe(params={"entry_id": recorded_id("journal_entry_list_post")}),
    "journal_entry_reverse_post": Recipe(
        phase=ACTION + 1,
        params={"entry_id": recorded_id("journal_entry_list_post")},
        body={"memo": "Entered twice by mistake."},
    ),
    "journal_entry_detail_patch": Recipe(body={"memo": "Office supplies, November"}),
    "journal_entry_detail_delete": Recipe(
        params={"entry_id": lambda rec, _p: rec.create("store", "POST /journal-entries")["id"]}
    ),
    "fiscal_year_list_post": Recipe(
        body={"name": "2027", "start_date": "2027-01-01", "end_date": "2027-12-31"}
    ),
    "fiscal_year_close_post": Recipe(
        params={"year_id": lambda rec, _p: rec.value("store", "fiscal_year_list_post", "id")}
    ),
    "fiscal_year_detail_delete": Recipe(
        params={
            "year_id": lambda rec, _p: st(
                rec,
                "POST",
                "/fiscal-years",
                {"name": "2028", "start_date": "2028-01-01", "end_date": "2028-12-31"},
            )["id"]
        }
    ),
    # CRM.
    "contact_list_post": Recipe(
        body={
            "name": "Eleni Markou",
            "email": "eleni.markou@example.com",
            "phone": "+30 2310 555 123",
            "company": "Thessaloniki Crafts",
            "job_title": "Buyer",
            "city": "Thessaloniki",
            "country": "GR",
            "notes": "Met at the Athens trade fair.",
        }
    ),
    "lead_list_post": Recipe(
        body={
            "title": "Branded tote bags for a conference",
            "contact_name": "Eleni Markou",
            "email": "eleni.markou@example.com",
            "company": "Thessaloniki Crafts",
            "value": "1800.00",
            "currency": "EUR",
            "probability": 30,
            "source": "event",
            "stage": "new",
        }
    ),
    "lead_move_stage_post": Recipe(
        body={"stage": "qualified", "note": "Budget confirmed by phone."}
    ),
    "lead_convert_post": Recipe(
        phase=ACTION + 1,
        params={"lead_id": lambda rec, _p: rec.create("store", "POST /leads")["id"]},
        body={"create_customer": True},
    ),
    # Purchasing.
    "purchase_order_list_post": Recipe(
        body=lambda rec, _p: {
            "supplier_id": first_list(st(rec, "GET", "/suppliers"))[0]["id"],
            "currency": "EUR",
            "warehouse_id": warehouse(rec, "Main warehouse"),
            "expected_date": (today() + datetime.timedelta(days=7)).isoformat(),
            "notes": "Autumn restock.",
            "lines": [
                {"product_id": product(rec, TOTE), "quantity": 40, "unit_cost": "6.20"},
                {"product_id": product(rec, CAP), "quantity": 25, "unit_cost": "4.10"},
            ],
        }
    ),
    "purchase_order_send_post": Recipe(
        body={"email": True, "message": "Please confirm the delivery date."}
    ),
    "purchase_order_receive_post": Recipe(
        phase=ACTION + 1,
        body=lambda rec, p: {
            "lines": [
                {
                    "line_id": st(rec, "GET", f"/purchase-orders/{p['order_id']}")["lines"][0][
                        "id"
                    ],
                    "quantity": 40,
                }
            ],
            "note": "Delivered complete.",
        },
    ),
    "purchase_order_cancel_post": Recipe(
        params={"order_id": lambda rec, _p: rec.create("store", "POST /purchase-orders")["id"]}
    ),
    "purchase_order_detail_delete": Recipe(
        params={"order_id": lambda rec, _p: rec.create("store", "POST /purchase-orders")["id"]}
    ),
    "goods_received_list_get": Recipe(phase=ACTION + 2),
    "goods_received_detail_get": Recipe(
        phase=ACTION + 2, params={"note_id": recorded_id("purchase_order_receive_post")}
    ),
    "supplier_list_post": Recipe(
        body={
            "name": "Hellas Ceramics Ltd",
            "code": "hellas-ceramics",
            "email": "sales@hellas-ceramics.example",
            "phone": "+30 2310 444 555",
            "contact_name": "Petros Ioannou",
            "city": "Thessaloniki",
            "country": "GR",
            "currency": "EUR",
            "payment_terms_days": 30,
            "lead_time_days": 10,
        }
    ),
    "supplier_prices_post": Recipe(
        body=lambda rec, _p: {
            "product_id": product(rec, MUG),
            "unit_price": "3.40",
            "supplier_sku": "HC-MUG-350",
            "min_quantity": 24,
        }
    ),
    "supplier_prices_get": Recipe(phase=ACTION + 1),
    # The ERP's deactivation (last).
    "erp_deactivate_post": Recipe(phase=LAST),
}
