"""The store's (ec/v1) recipes."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import io
import json
import time

from django.core.management import call_command

from common.api.examples.recipes.shared import PORTAL, demo_password
from common.api.examples.recorder import (
    ACTION,
    CREATE,
    DELETE,
    FIRST,
    LAST,
    MULTIPART,
    UNSET,
    UPDATE,
    Call,
    Recipe,
    Recorder,
    RecordingError,
    iso_now,
    today,
)


def store_prefix(rec: Recorder) -> str:
    return rec.documents["store"]["servers"][0]["url"]


def st(rec: Recorder, method: str, path: str, body=UNSET, actor: str = "admin"):
    """A call to the store outside the recording (preparing what a recorded one needs)."""
    return rec.call_json(actor, method, store_prefix(rec) + path, body)


def cached(rec: Recorder, key: str, make):
    if key not in rec.values:
        rec.values[key] = make()
    return rec.values[key]


def product(rec: Recorder, title: str) -> int:
    def find():
        listed = st(rec, "GET", "/products?per_page=100")
        return {item["title"]: item["id"] for item in listed["data"]}

    return cached(rec, "products", find)[title]


TEE, TOTE, CAP, HOODIE = "Classic Cotton T-shirt", "Canvas Tote Bag", "Baseball Cap", "Zip Hoodie"
MUG = "Ceramic Mug"


def ean13(first12: str) -> str:
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first12))
    return first12 + str((10 - total % 10) % 10)


APRON_EAN = ean13("590123412345")


def scarf(rec: Recorder) -> int:
    """A variable product of the run's own (its variants come and go)."""
    return cached(
        rec,
        "scarf",
        lambda: st(
            rec,
            "POST",
            "/products",
            {"title": "Merino Scarf", "type": "variable", "status": "active", "price": "39.00"},
        )["id"],
    )


def unfiled_employee(rec: Recorder) -> int:
    """An employee with no record that refers to them: hired while the labor registry does not
    file hirings on its own."""
    st(rec, "PUT", "/labor-registry/settings", {"auto_submit": False})
    try:
        made = st(
            rec,
            "POST",
            "/employees",
            {"first_name": "Alexis", "last_name": "Pappas", "hire_date": today().isoformat()},
        )
    finally:
        st(rec, "PUT", "/labor-registry/settings", {"auto_submit": True})
    return made["id"]


def tee_variant(rec: Recorder, index: int = 0) -> int:
    """A T-shirt variant in stock (the index-th)."""

    def find():
        variants = st(rec, "GET", f"/products/{product(rec, TEE)}/variants")
        rows = variants if isinstance(variants, list) else first_list(variants)
        return [v["id"] for v in rows if v.get("stock_quantity", 0) > 5 and v.get("enabled", True)]

    return cached(rec, "tee_variants", find)[index]


def first_list(value):
    if isinstance(value, dict):
        for item in value.values():
            if isinstance(item, list):
                return item
    return value


ADDRESS = {
    "first_name": "Maria",
    "last_name": "Papadopoulou",
    "company": "",
    "address_1": "Ermou 12",
    "address_2": "",
    "city": "Athens",
    "region": "I",
    "postcode": "10563",
    "country": "GR",
    "email": "maria.papadopoulou@example.com",
    "phone": "+30 210 123 4567",
}


def customer(rec: Recorder, email: str = "developer@example.com") -> int:
    def find():
        listed = st(rec, "GET", "/customers?per_page=100")
        return {row["email"]: row["id"] for row in first_list(listed)}

    return cached(rec, "customers", find)[email]


def new_order(rec: Recorder, **changes) -> dict:
    """A processing order of the demo customer: a linen apron (a product of the run's own,
    so that the demo's stock lasts)."""
    body = {
        **order_body(rec),
        "items": [{"product_id": rec.value("store", "product_list_post", "id"), "quantity": 1}],
        **changes,
    }
    return st(rec, "POST", "/orders", body)


def order_body(rec: Recorder) -> dict:
    return {
        "customer_id": customer(rec),
        "status": "processing",
        "currency": "EUR",
        "payment_method": "bank_transfer",
        "shipping_method": "courier",
        "shipping_total": "3.50",
        "billing_address": ADDRESS,
        "shipping_address": ADDRESS,
        "customer_note": "Please ring the bell twice.",
        "items": [
            {"product_id": product(rec, TOTE), "quantity": 2},
            {"product_id": product(rec, TEE), "variant_id": tee_variant(rec), "quantity": 1},
        ],
    }


def order_item(rec: Recorder, order_id: int, index: int = 0) -> int:
    return st(rec, "GET", f"/orders/{order_id}/items")["items"][index]["id"]


def voucher_number(rec: Recorder, _params) -> str:
    return rec.value("store", "courier_voucher_create_post", "number")


def category(rec: Recorder, name: str) -> int:
    listed = first_list(st(rec, "GET", "/categories?per_page=100"))
    return next(row["id"] for row in listed if row["name"] == name)


def recorded_id(operation_id: str, *keys: str):
    """A path parameter: the id in a recorded answer of this run."""
    return lambda rec, _p: rec.value("store", operation_id, *(keys or ("id",)))


def shopper_cart_line(rec: Recorder, title: str) -> str:
    cart = st(rec, "GET", "/cart", actor="shopper")["cart"]
    return next(item["id"] for item in cart["items"] if item["title"].startswith(title))


def fill_cart(actor: str):
    def prepare(rec: Recorder) -> None:
        st(rec, "POST", "/cart/items", {"product_id": product(rec, CAP), "quantity": 1}, actor)
        st(
            rec,
            "POST",
            "/cart/shipping-address",
            {"country": "GR", "region": "I", "postcode": "10563"},
            actor,
        )

    return prepare


def cart_method(rec: Recorder, actor: str) -> int:
    methods = st(rec, "GET", "/cart/shipping-methods", actor=actor)
    return first_list(methods)[0]["id"]


def buyer_checkout(rec: Recorder, *_args) -> int:
    return st(rec, "GET", "/checkout", actor="buyer")["id"]


def paid_order(rec: Recorder) -> dict:
    """A new order, paid in full by bank transfer."""
    order = new_order(rec)
    st(
        rec,
        "POST",
        f"/orders/{order['id']}/payments",
        {"amount": order["total"], "method": "bank_transfer", "status": "completed"},
    )
    return order


def store_session(rec: Recorder) -> None:
    """A browser session of the demo customer, logged in at the checkout."""
    if "session" in rec.clients:
        return
    client = rec.client("anonymous")
    response = client.post(
        store_prefix(rec) + "/checkout/login",
        data=json.dumps({"email": "developer@example.com", "password": demo_password()}),
        content_type="application/json",
    )
    if response.status_code != 200:
        raise RecordingError(f"the checkout log-in answered {response.status_code}")
    rec.add_client("session", client)


def password_changer(rec: Recorder) -> None:
    """An account of its own for the password changes (no demo login's password changes)."""
    if "nikos" in rec.clients:
        return
    call_command(
        "createaccount",
        "sofia.antoniou@example.com",
        password="Blue-Harbour-77",  # noqa: S106 - an account of the throwaway database
        name="Sofia Antoniou",
        stdout=io.StringIO(),
    )
    rec.app_password("nikos", "sofia.antoniou@example.com")


def png_image() -> bytes:
    from PIL import Image

    picture = Image.new("RGB", (64, 64), (202, 178, 140))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


def pdf_document() -> bytes:
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out)
    page.drawString(72, 720, "Employment contract")
    page.save()
    return out.getvalue()


def warehouse(rec: Recorder, name: str) -> int:
    listed = first_list(st(rec, "GET", "/warehouses"))
    return next(row["id"] for row in listed if row["name"] == name)


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


def working_days(n: int) -> tuple[str, str]:
    """A Monday and Tuesday, the n-th pair from two weeks ahead."""
    start = today() + datetime.timedelta(days=14 + 7 * n)
    start -= datetime.timedelta(days=start.weekday())
    return start.isoformat(), (start + datetime.timedelta(days=1)).isoformat()


def leave_body(rec: Recorder, *, employee: bool = False) -> dict:
    rec.values["leave"] = rec.values.get("leave", -1) + 1
    start, end = working_days(rec.values["leave"])
    leave_type = first_list(st(rec, "GET", "/leave-types"))[0]["id"]
    body = {
        "leave_type_id": leave_type,
        "start_date": start,
        "end_date": end,
        "reason": "Family visit",
    }
    if employee:
        body["employee_id"] = rec.value("store", "employee_list_post", "id")
    return body


def time_body(offset: int = 1) -> dict:
    day = today() - datetime.timedelta(days=offset)
    return {
        "date": day.isoformat(),
        "start_time": "09:00:00",
        "end_time": "17:00:00",
        "note": "Packing orders.",
    }


def employee(rec: Recorder) -> int:
    return rec.value("store", "employee_list_post", "id")


def my_document(rec: Recorder) -> None:
    me = st(rec, "GET", "/hr/me")
    answer = rec.send(
        Call(
            "admin",
            store_prefix(rec) + "/employee-documents",
            "POST",
            None,
            {
                "employee_id": me["id"],
                "title": "Payslip, October",
                "kind": "payslip",
                "visible_to_employee": True,
            },
            MULTIPART,
            {"file": ("payslip-october.pdf", pdf_document(), "application/pdf")},
        )
    )
    if not answer.ok:
        raise RecordingError(f"uploading a document of mine: {answer.status} {answer.value}")
    rec.values["my_document"] = answer.value["id"]


# The signing secrets the run gives the marketplace and the sandbox gateways (a throwaway
# database's; the recorded bodies carry no signature).
MARKETPLACE_SECRET = "mk-examples-secret"  # noqa: S105 - the recording's own, never deployed
SANDBOX_WEBHOOK_SECRET = "whsec_examples_sandbox"  # noqa: S105 - the recording's own


def signed(secret: str, body) -> str:
    stamp = str(int(time.time()))
    payload = stamp.encode() + b"." + json.dumps(body).encode()
    return f"t={stamp},v1={hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()}"


def marketplace_ready(rec: Recorder) -> None:
    if rec.values.get("marketplace_ready"):
        return
    st(
        rec,
        "PATCH",
        "/marketplace/settings",
        {
            "generic": {
                "enabled": True,
                "webhook_secret": MARKETPLACE_SECRET,
                "credentials": {
                    "api_url": "https://marketplace.example.com/api",
                    "api_token": "mk_live_examples",
                },
            }
        },
    )
    rec.values["marketplace_ready"] = True


def product_sku(rec: Recorder, title: str) -> str:
    return st(rec, "GET", f"/products/{product(rec, title)}")["sku"]


def marketplace_event(rec: Recorder, code: str, sku: str) -> dict:
    if sku == "TOTE-NAT":
        sku = product_sku(rec, TOTE)
    return {
        "id": f"evt_{code}",
        "type": "order.created",
        "created_at": iso_now(),
        "order": {
            "code": code,
            "state": "open",
            "currency": "EUR",
            "billing_address": {
                "first_name": "Katerina",
                "last_name": "Vlachou",
                "address_1": "Tsimiski 45",
                "city": "Thessaloniki",
                "postcode": "54623",
                "country": "GR",
                "email": "k.vlachou@example.com",
                "phone": "+30 2310 222 333",
            },
            "shipping_total": "3.50",
            "note": "",
            "items": [{"sku": sku, "quantity": 1, "unit_price": "14.90", "title": "Tote bag"}],
        },
    }


def marketplace_signature(rec: Recorder, _params, body) -> dict:
    return {"X-Marketplace-Signature": signed(MARKETPLACE_SECRET, body)}


def marketplace_order(rec: Recorder, code: str, sku: str = "TOTE-NAT") -> int:
    def listed():
        orders = first_list(st(rec, "GET", "/marketplace/orders?per_page=100"))
        return next((row["id"] for row in orders if row.get("code") == code), None)

    found = listed()
    if found is None:
        marketplace_ready(rec)
        if sku == "CAP-1":
            sku = product_sku(rec, CAP)
        body = marketplace_event(rec, code, sku)
        rec.send(
            Call(
                "anonymous",
                store_prefix(rec) + "/marketplace/webhook/generic",
                "POST",
                None,
                body,
                headers=marketplace_signature(rec, {}, body),
            )
        )
        found = listed()
    if found is None:
        raise RecordingError(f"no marketplace order {code}")
    return found


def failed_marketplace_order(rec: Recorder) -> int:
    """An order whose import failed (an unknown SKU), the SKU then added to the catalog."""
    order = marketplace_order(rec, "G-1003", "SCARF-BLUE")
    st(
        rec,
        "POST",
        "/products",
        {
            "title": "Merino Scarf, blue",
            "sku": "SCARF-BLUE",
            "status": "active",
            "price": "39.00",
            "stock_quantity": 8,
        },
    )
    return order


def feed_token(rec: Recorder, marketplace: str) -> str:
    feeds = first_list(st(rec, "GET", "/marketplace/feeds"))
    url = next(feed["url"] for feed in feeds if feed["marketplace"] == marketplace)
    return url.split("token=", 1)[1]


def wallet_order(rec: Recorder, gateway: str) -> dict:
    """An order placed with an online gateway (served by the sandbox), and its key."""
    keys = rec.values.setdefault("wallet_keys", {})
    configs = first_list(st(rec, "GET", "/payment/gateway-config"))
    if not any(row["gateway"] == gateway for row in configs):
        st(
            rec,
            "POST",
            "/payment/gateway-config",
            {
                "gateway": gateway,
                "provider": "sandbox",
                "mode": "test",
                "active": True,
                "credentials": {"webhook_secret": SANDBOX_WEBHOOK_SECRET},
            },
        )
    st(rec, "PATCH", f"/payment/gateways/{gateway}", {"enabled": True})
    order = new_order(rec, payment_method=gateway, status="pending")
    keys[gateway] = st(rec, "GET", f"/orders/{order['id']}")["order_key"]
    return {"order_id": order["id"], "order_key": keys[gateway]}


def sandbox_event(rec: Recorder, external_id: str, gateway: str = "stripe") -> dict:
    answer = rec.value(
        "store", "stripe_intent_post" if gateway == "stripe" else "bank_redirect_post"
    )
    return {
        "id": "evt_" + hashlib.sha256(external_id.encode()).hexdigest()[:24],
        "type": "payment.succeeded",
        "data": {
            "external_id": external_id,
            "transaction_id": external_id.replace("_pi_", "_ch_", 1),
            "amount": answer.get("amount"),
            "currency": answer.get("currency", "EUR"),
        },
    }


def sandbox_signature(rec: Recorder, _params, body) -> dict:
    return {"Sandbox-Signature": signed(SANDBOX_WEBHOOK_SECRET, body)}


STORE_RECIPES: dict[str, Recipe] = {
    # The catalog.
    "product_list_post": Recipe(
        body=lambda rec, _p: {
            "title": "Linen Apron",
            "type": "simple",
            "status": "active",
            "sku": "APRON-NAT",
            "price": "24.90",
            "stock_quantity": 30,
            "short_description": "Stonewashed linen apron with two front pockets.",
            "ean": APRON_EAN,
            "category_ids": [category(rec, "Accessories")],
            "weight": "0.300",
        }
    ),
    "product_detail_put": Recipe(
        body={"title": "Linen Apron", "price": "26.90", "sale_price": "22.90"}
    ),
    "product_detail_patch": Recipe(body={"stock_quantity": 45, "low_stock_threshold": 5}),
    "product_variants_post": Recipe(
        params={"product_id": lambda rec, _p: scarf(rec)},
        body={"sku": "SCARF-GREY", "title": "Grey", "price": "39.00", "stock_quantity": 12},
    ),
    "variant_reorder_post": Recipe(
        params={"product_id": lambda rec, _p: product(rec, TEE)},
        body=lambda rec, p: {
            "order": [
                {"id": v["id"], "sort_order": n}
                for n, v in enumerate(
                    reversed(first_list(st(rec, "GET", f"/products/{p['product_id']}/variants")))
                )
            ][:3]
        },
    ),
    "product_variants_get": Recipe(params={"product_id": lambda rec, _p: product(rec, TEE)}),
    "product_variants_delete": Recipe(params={"product_id": lambda rec, _p: scarf(rec)}),
    "variant_detail_get": Recipe(
        phase=ACTION + 1, params={"variant_id": recorded_id("product_variants_post")}
    ),
    "variant_detail_put": Recipe(
        phase=ACTION + 2,
        params={"variant_id": recorded_id("product_variants_post")},
        body={"price": "42.00", "stock_quantity": 10},
    ),
    "variant_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"variant_id": recorded_id("product_variants_post")},
        body={"sale_price": "35.00"},
    ),
    "variant_detail_delete": Recipe(
        phase=DELETE - 1, params={"variant_id": recorded_id("product_variants_post")}
    ),
    "product_by_slug_get": Recipe(
        params={"slug": lambda rec, _p: st(rec, "GET", f"/products/{product(rec, TOTE)}")["slug"]}
    ),
    "product_reviews_get": Recipe(params={"product_id": lambda rec, _p: product(rec, TEE)}),
    "product_rating_get": Recipe(params={"product_id": lambda rec, _p: product(rec, TEE)}),
    "product_reviews_post": Recipe(
        actor="customer",
        params={"product_id": lambda rec, _p: product(rec, TOTE)},
        body={"rating": 5, "title": "Sturdy and roomy", "content": "Carries a week of groceries."},
    ),
    "review_helpful_post": Recipe(
        actor="customer",
        params={
            "review_id": lambda rec, _p: next(
                r["id"]
                for r in first_list(st(rec, "GET", f"/products/{product(rec, TEE)}/reviews"))
                if r.get("author", {}).get("email", "") != "developer@example.com"
            )
        },
    ),
    "search_get": Recipe(query={"q": "cotton", "per_page": 5}),
    "brand_search_get": Recipe(query={"q": "aeg"}),
    "attribute_terms_get": Recipe(phase=ACTION + 1),
    "zone_methods_get": Recipe(phase=ACTION + 1),
    "supplier_prices_get": Recipe(phase=ACTION + 1),
    "goods_received_list_get": Recipe(phase=ACTION + 2),
    "me_documents_get": Recipe(phase=ACTION + 2),
    "order_payments_get": Recipe(phase=ACTION + 8),
    "order_shipments_get": Recipe(phase=ACTION + 8),
    "customer_orders_get": Recipe(params={"customer_id": lambda rec, _p: customer(rec)}),
    "customer_profile_get": Recipe(params={"customer_id": lambda rec, _p: customer(rec)}),
    "customer_stats_get": Recipe(params={"customer_id": lambda rec, _p: customer(rec)}),
    "customer_top_products_get": Recipe(params={"customer_id": lambda rec, _p: customer(rec)}),
    "customer_spending_history_get": Recipe(params={"customer_id": lambda rec, _p: customer(rec)}),
    "product_list_get": Recipe(query={"per_page": 3}),
    "category_list_post": Recipe(
        body={
            "name": "Home & Kitchen",
            "description": "Aprons, mugs and tea towels.",
            "sort_order": 4,
        }
    ),
    "category_detail_patch": Recipe(body={"description": "Everything for the kitchen table."}),
    "brand_list_post": Recipe(
        body={
            "name": "Olive & Thyme",
            "description": "Handmade in Crete.",
            "website": "https://oliveandthyme.example.com",
        }
    ),
    "brand_detail_patch": Recipe(body={"description": "Handmade in Chania, Crete."}),
    "attribute_list_post": Recipe(body={"name": "Material", "type": "select", "sort_order": 3}),
    "attribute_detail_patch": Recipe(body={"type": "button"}),
    "customer_list_post": Recipe(
        body={
            "email": "katerina.vlachou@example.com",
            "first_name": "Katerina",
            "last_name": "Vlachou",
            "company": "Vlachou Interiors",
            "phone": "+30 2310 222 333",
            "note": "Wholesale enquiries.",
        }
    ),
    "tax_class_list_post": Recipe(body={"name": "Books", "sort_order": 3}),
    "role_list_post": Recipe(
        body={
            "name": "Customer support",
            "description": "Answers customers: reads and updates orders.",
            "capabilities": ["ec_manage_orders"],
        }
    ),
    "role_detail_patch": Recipe(body={"description": "Answers customers and handles returns."}),
    "department_list_post": Recipe(
        body={
            "name": "Customer service",
            "code": "support",
            "description": "E-mail and phone support.",
        }
    ),
    "leave_type_list_post": Recipe(
        body={
            "name": "Training leave",
            "code": "training",
            "yearly_allowance_days": 5,
            "paid": True,
        }
    ),
    "category_bulk_post": Recipe(
        body=lambda rec, _p: {
            "create": [{"name": "Stationery", "description": "Notebooks and pens."}],
            "update": [{"id": category(rec, "Accessories"), "sort_order": 1}],
        }
    ),
    # The cart: a guest with a cart cookie.
    "cart_items_post": Recipe(
        phase=FIRST,
        before=lambda rec: st(
            rec, "POST", "/cart/items", {"product_id": product(rec, TOTE), "quantity": 1}, "shopper"
        ),
        body=lambda rec, _p: {
            "product_id": product(rec, TEE),
            "variant_id": tee_variant(rec),
            "quantity": 2,
        },
    ),
    "cart_shipping_address_post": Recipe(
        phase=FIRST + 1, body={"country": "GR", "region": "I", "postcode": "10563"}
    ),
    "cart_shipping_method_post": Recipe(
        phase=FIRST + 2, body=lambda rec, _p: {"method_id": cart_method(rec, "shopper")}
    ),
    "coupon_apply_post": Recipe(phase=FIRST + 3, body={"code": "WELCOME10"}),
    "coupon_validate_post": Recipe(body={"code": "SAVE5"}),
    "coupon_remove_post": Recipe(phase=ACTION, body={"code": "WELCOME10"}),
    "cart_item_put": Recipe(
        params={"item_id": lambda rec, _p: shopper_cart_line(rec, TEE)}, body={"quantity": 3}
    ),
    "cart_item_patch": Recipe(
        params={"item_id": lambda rec, _p: shopper_cart_line(rec, TEE)}, body={"quantity": 2}
    ),
    "cart_item_delete": Recipe(params={"item_id": lambda rec, _p: shopper_cart_line(rec, TOTE)}),
    "cart_clear_post": Recipe(phase=LAST),
    # The checkout: another guest, who places an order.
    "checkout_post": Recipe(
        actor="buyer",
        before=fill_cart("buyer"),
        body=lambda rec, _p: {
            "email": "maria.papadopoulou@example.com",
            "billing_address": ADDRESS,
            "shipping_method": cart_method(rec, "buyer"),
            "payment_method": "bank_transfer",
            "customer_note": "Please ring the bell twice.",
        },
    ),
    "checkout_get": Recipe(actor="buyer"),
    "checkout_detail_get": Recipe(actor="buyer", params={"checkout_id": buyer_checkout}),
    "checkout_detail_put": Recipe(
        actor="buyer",
        params={"checkout_id": buyer_checkout},
        body={"customer_note": "Leave the parcel with the concierge."},
    ),
    "checkout_detail_patch": Recipe(
        actor="buyer",
        params={"checkout_id": buyer_checkout},
        body={"payment_method": "cash_on_delivery"},
    ),
    "checkout_validate_post": Recipe(actor="buyer", params={"checkout_id": buyer_checkout}),
    "checkout_complete_post": Recipe(
        actor="buyer",
        phase=ACTION + 1,
        params={"checkout_id": buyer_checkout},
        body={"payment_method": "bank_transfer"},
    ),
    "checkout_login_post": Recipe(
        actor="anonymous",
        body=lambda rec, _p: {"email": "developer@example.com", "password": demo_password()},
        error={"body": {"email": "developer@example.com", "password": "not-my-password"}},
    ),
    "checkout_create_account_post": Recipe(
        actor="anonymous",
        body={
            "email": "nikos.konstantinou@example.com",
            "password": "Blue-Harbour-77",
            "first_name": "Nikos",
            "last_name": "Konstantinou",
        },
    ),
    "check_email_post": Recipe(body={"email": "developer@example.com"}),
    "payment_methods_get": Recipe(actor="buyer"),
    # Orders.
    "order_list_post": Recipe(body=lambda rec, _p: order_body(rec)),
    "order_list_get": Recipe(query={"per_page": 3, "status": "processing"}),
    "order_items_post": Recipe(
        body=lambda rec, _p: {"product_id": product(rec, CAP), "quantity": 1}
    ),
    "order_item_detail_get": Recipe(
        params={"item_id": lambda rec, p: order_item(rec, p["order_id"])}
    ),
    "order_item_detail_put": Recipe(
        params={"item_id": lambda rec, p: order_item(rec, p["order_id"])}, body={"quantity": 3}
    ),
    "order_item_detail_patch": Recipe(
        params={"item_id": lambda rec, p: order_item(rec, p["order_id"])}, body={"quantity": 2}
    ),
    "order_item_detail_delete": Recipe(
        params={"item_id": lambda rec, p: order_item(rec, p["order_id"], -1)}
    ),
    "order_shipments_post": Recipe(
        phase=ACTION + 1,
        body=lambda rec, p: {
            "items": [{"order_item_id": order_item(rec, p["order_id"]), "quantity": 1}],
            "carrier": "ACS",
            "tracking_number": "7301234567",
            "tracking_url": "https://www.acscourier.net/en/track?number=7301234567",
        },
    ),
    "order_payments_post": Recipe(
        body={
            "amount": "20.00",
            "method": "bank_transfer",
            "status": "completed",
            "transaction_id": "BT-2026-000118",
            "note": "Part payment received by bank transfer.",
        }
    ),
    "order_status_put": Recipe(body={"status": "on_hold", "note": "Waiting for the customer."}),
    "order_status_patch": Recipe(body={"status": "processing"}),
    "order_payment_status_put": Recipe(body={"payment_status": "paid", "note": "Paid in full."}),
    "order_payment_status_patch": Recipe(body={"payment_status": "paid"}),
    "order_fulfillment_status_put": Recipe(
        phase=ACTION + 7, body={"fulfillment_status": "partially_fulfilled"}
    ),
    "order_fulfillment_status_patch": Recipe(
        phase=ACTION + 7, body={"fulfillment_status": "partially_fulfilled"}
    ),
    "order_detail_patch": Recipe(body={"admin_note": "Gift wrap requested by phone."}),
    "order_bulk_post": Recipe(
        phase=ACTION,
        body=lambda rec, _p: {
            "ids": [new_order(rec)["id"], new_order(rec)["id"]],
            "action": "completed",
            "note": "Delivered by hand at the shop.",
        },
    ),
    "payment_detail_get": Recipe(
        phase=ACTION + 1, params={"payment_id": recorded_id("order_payments_post")}
    ),
    "payment_detail_put": Recipe(
        phase=ACTION + 2,
        params={"payment_id": recorded_id("order_payments_post")},
        body={"amount": "25.00"},
    ),
    "payment_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"payment_id": recorded_id("order_payments_post")},
        body={"note": "Confirmed on the bank statement."},
    ),
    "payment_detail_delete": Recipe(params={"payment_id": recorded_id("order_payments_post")}),
    "shipment_detail_get": Recipe(
        phase=ACTION + 5, params={"shipment_id": recorded_id("order_shipments_post")}
    ),
    "shipment_detail_put": Recipe(
        phase=ACTION + 6,
        params={"shipment_id": recorded_id("order_shipments_post")},
        body={"status": "delivered"},
    ),
    "shipment_detail_patch": Recipe(
        phase=ACTION + 6,
        params={"shipment_id": recorded_id("order_shipments_post")},
        body={"tracking_number": "7301234568"},
    ),
    "shipment_detail_delete": Recipe(params={"shipment_id": recorded_id("order_shipments_post")}),
    "email_resend_post": Recipe(
        params={"order_id": recorded_id("order_list_post")}, body={"type": "order_confirmation"}
    ),
    "order_courier_voucher_create_post": Recipe(
        phase=ACTION + 2,
        body=lambda rec, _p: {
            "provider": "sandbox",
            "shipment_id": rec.value("store", "order_shipments_post", "id"),
            "weight": "1.200",
            "parcels": 1,
            "note": "Fragile: mugs inside.",
        },
    ),
    "order_courier_label_get": Recipe(
        phase=ACTION + 3,
        params={"shipment_id": recorded_id("order_shipments_post")},
    ),
    "order_courier_track_get": Recipe(
        phase=ACTION + 3,
        params={"shipment_id": recorded_id("order_shipments_post")},
    ),
    "order_courier_cancel_post": Recipe(
        phase=ACTION + 4,
        params={"shipment_id": recorded_id("order_shipments_post")},
    ),
    "order_received_get": Recipe(
        actor="anonymous",
        phase=ACTION + 5,
        params={
            "order_id": lambda rec, _p: rec.value("store", "checkout_complete_post", "order_id")
        },
        query=lambda rec, _p: {"key": rec.value("store", "checkout_complete_post", "order_key")},
        error={"query": {"key": "ec_order_not-the-key"}},
    ),
    "invoice_from_order_post": Recipe(
        params={"order_id": lambda rec, _p: rec.value("store", "order_list_post", "id")}
    ),
    "refund_post": Recipe(
        params={
            "order_id": lambda rec, _p: paid_order(rec)["id"],
        },
        body={"amount": "10.00", "reason": "One tote bag arrived torn.", "restock": False},
    ),
    # My account: the demo customer.
    "account_address_put": Recipe(params={"address_type": "billing"}, body=dict(ADDRESS)),
    "account_address_get": Recipe(phase=UPDATE + 1, params={"address_type": "billing"}),
    "account_details_put": Recipe(
        body={
            "first_name": "Dev",
            "last_name": "Eloper",
            "company": "Eloper Web Studio",
            "phone": "+30 210 765 4321",
        }
    ),
    "account_details_patch": Recipe(body={"phone": "+30 210 765 4321"}),
    "account_password_post": Recipe(
        actor="nikos",
        before=password_changer,
        body={"current_password": "Blue-Harbour-77", "new_password": "Blue-Harbour-78"},
        error={"body": {"current_password": "not-my-password", "new_password": "Blue-Harbour-79"}},
    ),
    "account_password_put": Recipe(
        actor="nikos",
        phase=CREATE + 2,
        body={"current_password": "Blue-Harbour-78", "new_password": "Blue-Harbour-79"},
        error={"body": {"current_password": "Blue-Harbour-78", "new_password": "123"}},
    ),
    "nonce_get": Recipe(actor="session", before=lambda rec: store_session(rec)),
    # Customers.
    "customer_find_by_email_get": Recipe(query={"email": "developer@example.com"}),
    "customer_addresses_post": Recipe(
        params={"customer_id": lambda rec, _p: customer(rec)},
        body={
            **ADDRESS,
            "first_name": "Dev",
            "last_name": "Eloper",
            "type": "shipping",
            "is_default": True,
        },
    ),
    "customer_addresses_get": Recipe(
        phase=ACTION + 1, params={"customer_id": lambda rec, _p: customer(rec)}
    ),
    "address_detail_get": Recipe(
        phase=ACTION + 1, params={"address_id": recorded_id("customer_addresses_post")}
    ),
    "address_detail_put": Recipe(
        phase=ACTION + 2,
        params={"address_id": recorded_id("customer_addresses_post")},
        body={"address_2": "3rd floor", "phone": "+30 210 765 4321"},
    ),
    "address_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"address_id": recorded_id("customer_addresses_post")},
        body={"company": "Eloper Web Studio"},
    ),
    "address_detail_delete": Recipe(params={"address_id": recorded_id("customer_addresses_post")}),
    "customer_detail_patch": Recipe(body={"note": "Prefers delivery after 17:00."}),
    # Catalog extras.
    "product_lookup_get": Recipe(
        phase=UPDATE + 1,
        query=lambda rec, _p: {
            "barcode": APRON_EAN,
            "warehouse_id": warehouse(rec, "Main warehouse"),
        },
    ),
    "attribute_terms_post": Recipe(body={"name": "Navy", "value": "#1f2a44"}),
    "term_detail_get": Recipe(
        phase=ACTION + 1, params={"term_id": recorded_id("attribute_terms_post")}
    ),
    "term_detail_put": Recipe(
        phase=ACTION + 2,
        params={"term_id": recorded_id("attribute_terms_post")},
        body={"name": "Midnight navy"},
    ),
    "term_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"term_id": recorded_id("attribute_terms_post")},
        body={"sort_order": 3},
    ),
    "term_detail_delete": Recipe(params={"term_id": recorded_id("attribute_terms_post")}),
    "media_list_post": Recipe(
        media_type="multipart/form-data",
        body={"alt": "Canvas tote bag on a wooden chair", "title": "Tote bag, lifestyle"},
        files=lambda rec, _p: {"file": ("tote-bag.png", png_image(), "image/png")},
    ),
    # Coupons (staff).
    "admin_coupon_list_post": Recipe(
        body={
            "code": "SUMMER15",
            "description": "15% off the summer collection",
            "discount_type": "percent",
            "amount": "15.00",
            "minimum_amount": "25.00",
            "usage_limit_per_user": 1,
            "enabled": True,
        }
    ),
    "admin_coupon_detail_patch": Recipe(body={"amount": "20.00"}),
    # Shipping and tax.
    "calculate_post": Recipe(
        body=lambda rec, _p: {
            "address": {"country": "GR", "region": "I", "postcode": "10563"},
            "lines": [{"product_id": product(rec, TOTE), "quantity": 2}],
        }
    ),
    "zone_methods_post": Recipe(
        body={
            "type": "flat_rate",
            "title": "Evening delivery",
            "description": "Delivered between 18:00 and 21:00.",
            "settings": {"cost": "6.50"},
        }
    ),
    "method_detail_get": Recipe(
        phase=ACTION + 1, params={"method_id": recorded_id("zone_methods_post")}
    ),
    "method_detail_put": Recipe(
        phase=ACTION + 2,
        params={"method_id": recorded_id("zone_methods_post")},
        body={"type": "flat_rate", "title": "Evening courier", "settings": {"cost": "7.00"}},
    ),
    "method_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"method_id": recorded_id("zone_methods_post")},
        body={"enabled": False},
    ),
    "method_detail_delete": Recipe(params={"method_id": recorded_id("zone_methods_post")}),
    "zones_post": Recipe(
        body={
            "name": "Cyprus",
            "sort_order": 5,
            "regions": [{"type": "country", "code": "CY"}],
        }
    ),
    "tax_calculate_post": Recipe(
        body=lambda rec, _p: {
            "address": {"country": "GR", "region": "I", "postcode": "10563"},
            "lines": [{"product_id": product(rec, TOTE), "quantity": 2}],
            "shipping": "3.50",
        }
    ),
    "tax_rate_list_post": Recipe(
        body={
            "tax_class": "reduced-rate",
            "country": "GR",
            "region": "M",
            "rate": "9.0000",
            "name": "VAT (Crete, reduced)",
            "priority": 2,
        }
    ),
    "tax_rate_toggle_post": Recipe(body={"enabled": False}),
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
    # HR.
    "employee_list_post": Recipe(
        body=lambda rec, _p: {
            "first_name": "Giorgos",
            "last_name": "Nikolaou",
            "email": "giorgos.nikolaou@example.com",
            "job_title": "Warehouse assistant",
            "department_id": first_list(st(rec, "GET", "/departments"))[0]["id"],
            "hire_date": today().isoformat(),
            "employment_type": "full_time",
            "weekly_hours": "40.0",
            "salary": "1150.00",
        }
    ),
    "leave_request_list_post": Recipe(
        phase=CREATE + 1, body=lambda rec, _p: leave_body(rec, employee=True)
    ),
    "me_leave_post": Recipe(body=lambda rec, _p: leave_body(rec)),
    "leave_request_approve_post": Recipe(
        params={
            "request_id": lambda rec, _p: st(
                rec, "POST", "/leave-requests", leave_body(rec, employee=True)
            )["id"]
        },
        body={"note": "Enjoy the break."},
    ),
    "leave_request_reject_post": Recipe(
        params={
            "request_id": lambda rec, _p: st(
                rec, "POST", "/leave-requests", leave_body(rec, employee=True)
            )["id"]
        },
        body={"note": "Stocktake week: please pick other dates."},
    ),
    "leave_request_cancel_post": Recipe(
        params={
            "request_id": lambda rec, _p: st(
                rec, "POST", "/leave-requests", leave_body(rec, employee=True)
            )["id"]
        },
        body={"note": "Plans changed."},
    ),
    "time_entry_list_post": Recipe(
        phase=CREATE + 1, body=lambda rec, _p: {**time_body(0), "employee_id": employee(rec)}
    ),
    "me_time_entries_post": Recipe(body=lambda rec, _p: time_body(offset=2)),
    "time_entry_detail_put": Recipe(
        body=lambda rec, _p: {**time_body(0), "start_time": "08:30:00", "note": "Inventory count."}
    ),
    "time_entry_detail_patch": Recipe(body={"note": "Inventory count."}),
    "employee_document_list_post": Recipe(
        phase=CREATE + 1,
        media_type="multipart/form-data",
        body=lambda rec, _p: {
            "employee_id": employee(rec),
            "title": "Employment contract",
            "kind": "contract",
            "visible_to_employee": True,
        },
        files=lambda rec, _p: {"file": ("contract.pdf", pdf_document(), "application/pdf")},
    ),
    "employee_document_detail_get": Recipe(
        phase=ACTION + 1, params={"document_id": recorded_id("employee_document_list_post")}
    ),
    "employee_document_download_get": Recipe(
        phase=ACTION + 1, params={"document_id": recorded_id("employee_document_list_post")}
    ),
    "employee_document_detail_put": Recipe(
        phase=ACTION + 2,
        params={"document_id": recorded_id("employee_document_list_post")},
        body={"title": "Employment contract (signed)"},
    ),
    "employee_document_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"document_id": recorded_id("employee_document_list_post")},
        body={"visible_to_employee": False},
    ),
    "employee_document_detail_delete": Recipe(
        params={"document_id": recorded_id("employee_document_list_post")}
    ),
    "me_document_download_get": Recipe(
        phase=ACTION + 1,
        before=lambda rec: my_document(rec),
        params={"document_id": lambda rec, _p: rec.values["my_document"]},
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
    "courier_settings_patch": Recipe(body={"sandbox": {"default_weight": "0.800"}}),
    "courier_settings_put": Recipe(
        body={
            "sandbox": {
                "enabled": True,
                "sender": {
                    **ADDRESS,
                    "first_name": "Emporion",
                    "last_name": "Store",
                    "company": "Emporion Store",
                },
            }
        }
    ),
    "email_settings_patch": Recipe(body={"sender_name": "Emporion Store"}),
    "email_test_post": Recipe(body={"type": "order_confirmation", "to": "orders@example.com"}),
    "email_preview_post": Recipe(
        body=lambda rec, _p: {
            "order_id": rec.value("store", "order_list_post", "id"),
            "subject": "Thank you for your order {{ order.number }}",
        }
    ),
    # Couriers.
    "courier_test_connection_post": Recipe(params={"provider": "sandbox"}),
    "courier_voucher_create_post": Recipe(
        phase=ACTION,
        params={"provider": "sandbox"},
        body={
            "recipient": {**ADDRESS},
            "weight": "0.500",
            "parcels": 1,
            "reference": "RMA-2026-014",
            "note": "Return of a faulty item.",
        },
    ),
    "courier_label_get": Recipe(
        phase=ACTION + 1, params={"provider": "sandbox", "voucher": voucher_number}
    ),
    "courier_track_get": Recipe(
        phase=ACTION + 1, params={"provider": "sandbox", "voucher": voucher_number}
    ),
    "courier_cancel_post": Recipe(
        phase=ACTION + 2, params={"provider": "sandbox", "voucher": voucher_number}
    ),
    "courier_pickup_list_get": Recipe(
        phase=ACTION + 3, query=lambda rec, _p: {"provider": "sandbox", "date": today().isoformat()}
    ),
    # Marketplaces.
    "marketplace_settings_patch": Recipe(
        body={"generic": {"auto_acknowledge": False, "order_status": "processing"}}
    ),
    "marketplace_webhook_post": Recipe(
        actor="anonymous",
        phase=FIRST,
        params={"marketplace": "generic"},
        before=lambda rec: marketplace_ready(rec),
        body=lambda rec, _p: marketplace_event(rec, "G-1001", "TOTE-NAT"),
        headers=marketplace_signature,
    ),
    "marketplace_order_detail_get": Recipe(
        params={"order_id": lambda rec, _p: marketplace_order(rec, "G-1001")}
    ),
    "marketplace_acknowledge_post": Recipe(
        params={"order_id": lambda rec, _p: marketplace_order(rec, "G-1001")},
        body={"number_of_parcels": 1},
    ),
    "marketplace_ship_post": Recipe(
        phase=ACTION + 1,
        params={"order_id": lambda rec, _p: marketplace_order(rec, "G-1001")},
        body={"tracking_number": "7301234599", "carrier": "ACS"},
    ),
    "marketplace_reject_post": Recipe(
        params={"order_id": lambda rec, _p: marketplace_order(rec, "G-1002", sku="CAP-1")},
        body={"reason": "Out of stock in the requested colour."},
    ),
    "marketplace_import_post": Recipe(
        params={"order_id": lambda rec, _p: failed_marketplace_order(rec)},
    ),
    "category_mapping_get": Recipe(params={"marketplace": "google"}),
    "category_mapping_put": Recipe(
        params={"marketplace": "google"},
        body=lambda rec, _p: {"mapping": {str(category(rec, "Accessories")): "166"}},
    ),
    "category_mapping_patch": Recipe(
        params={"marketplace": "google"},
        body=lambda rec, _p: {
            "mapping": {str(category(rec, "Bags")): "Apparel & Accessories > Handbags"}
        },
    ),
    "feed_file_get": Recipe(
        actor="anonymous",
        params={"marketplace": "google"},
        query=lambda rec, _p: {"token": feed_token(rec, "google")},
    ),
    "feed_gzip_get": Recipe(
        actor="anonymous",
        params={"marketplace": "google"},
        query=lambda rec, _p: {"token": feed_token(rec, "google")},
    ),
    "feed_rotate_token_post": Recipe(phase=LAST - 1, params={"marketplace": "skroutz"}),
    # Payments.
    "gateway_config_list_post": Recipe(
        body={
            "gateway": "stripe",
            "provider": "sandbox",
            "title": "Card payments (sandbox)",
            "mode": "test",
            "active": True,
            "credentials": {"webhook_secret": SANDBOX_WEBHOOK_SECRET},
        }
    ),
    "stripe_intent_post": Recipe(
        actor="buyer",
        phase=ACTION,
        body=lambda rec, _p: wallet_order(rec, "stripe"),
    ),
    "webhook_post": Recipe(
        actor="anonymous",
        phase=ACTION + 1,
        params={"gateway_id": "stripe"},
        body=lambda rec, _p: sandbox_event(rec, rec.value("store", "stripe_intent_post", "id")),
        headers=sandbox_signature,
    ),
    "pay_pal_orders_post": Recipe(
        actor="buyer", phase=ACTION, body=lambda rec, _p: wallet_order(rec, "paypal")
    ),
    "pay_pal_capture_post": Recipe(
        actor="buyer",
        phase=ACTION + 1,
        params={"paypal_order_id": lambda rec, _p: rec.value("store", "pay_pal_orders_post", "id")},
        body=lambda rec, _p: {"order_key": rec.values["wallet_keys"]["paypal"]},
    ),
    "bank_redirect_post": Recipe(
        actor="buyer",
        phase=ACTION,
        params={"order_id": lambda rec, _p: wallet_order(rec, "bank_redirect")["order_id"]},
        body=lambda rec, _p: {
            "order_key": rec.values["wallet_keys"]["bank_redirect"],
            "return_url": "https://shop.example.com/checkout/return",
        },
    ),
    "callback_post": Recipe(
        actor="anonymous",
        phase=ACTION + 1,
        params={"gateway_id": "bank_redirect"},
        body=lambda rec, _p: sandbox_event(
            rec, rec.value("store", "bank_redirect_post", "id"), "bank_redirect"
        ),
        headers=sandbox_signature,
    ),
    "employee_detail_delete": Recipe(params={"employee_id": lambda rec, _p: unfiled_employee(rec)}),
    "order_detail_delete": Recipe(params={"order_id": lambda rec, _p: new_order(rec)["id"]}),
    "erp_deactivate_post": Recipe(phase=LAST),
}
