"""What the recipes of several store areas use: calls to the store outside the recording,
the demo's products, customer and addresses, a new order, the ids a run recorded.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time

from common.api.examples.recorder import UNSET, Recorder


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


def category(rec: Recorder, name: str) -> int:
    listed = first_list(st(rec, "GET", "/categories?per_page=100"))
    return next(row["id"] for row in listed if row["name"] == name)


def recorded_id(operation_id: str, *keys: str):
    """A path parameter: the id in a recorded answer of this run."""
    return lambda rec, _p: rec.value("store", operation_id, *(keys or ("id",)))


def warehouse(rec: Recorder, name: str) -> int:
    listed = first_list(st(rec, "GET", "/warehouses"))
    return next(row["id"] for row in listed if row["name"] == name)


def signed(secret: str, body) -> str:
    stamp = str(int(time.time()))
    payload = stamp.encode() + b"." + json.dumps(body).encode()
    return f"t={stamp},v1={hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()}"
