"""Shared by the marketplace tests: enabled marketplaces, payloads, signed deliveries."""

from __future__ import annotations

import json
import time

from django.test import TestCase
from rest_framework.test import APIClient

from store.marketplace import services
from store.marketplace.providers.base import sign
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, basic_auth, grant

SECRET = "a-webhook-secret-of-some-length"
WEBHOOK = f"{API}/marketplace/webhook"


def enable(marketplace: str = "skroutz", **fields) -> None:
    services.settings_update(
        changes={marketplace: {"enabled": True, "webhook_secret": SECRET, **fields}}
    )


def staff() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), "ec_manage_marketplace")))
    return client


def skroutz_order(code: str = "191029-5130474", state: str = "open", lines=None) -> dict:
    lines = lines if lines is not None else [("LAMP-1", 2, 10.40)]
    return {
        "code": code,
        "state": state,
        "customer": {
            "id": "cust1",
            "first_name": "Γιάννης",
            "last_name": "Παπαδόπουλος",
            "address": {
                "street_name": "Πανεπιστημίου",
                "street_number": "2",
                "zip": "10564",
                "city": "Αθήνα",
                "region": "Αττική",
            },
        },
        "invoice": False,
        "comments": "Παράδοση στο γραφείο",
        "courier_voucher": None,
        "line_items": [
            {
                "id": f"l{n}",
                "shop_uid": sku,
                "product_name": f"Item {sku}",
                "quantity": quantity,
                "unit_price": price,
                "total_price": round(price * quantity, 2),
            }
            for n, (sku, quantity, price) in enumerate(lines)
        ],
        "created_at": "2026-11-24T09:00:00+02:00",
        "accept_options": {
            "number_of_parcels": [1],
            "pickup_location": [{"id": "YlpD0KROym", "label": "Πανεπιστημίου 2"}],
            "pickup_window": [{"id": 2, "label": "10:00 - 12:00"}],
        },
    }


def skroutz_event(event_type: str = "new_order", *, order=None, time_: str = "") -> dict:
    return {
        "event_type": event_type,
        "event_time": time_ or "2026-11-24T09:00:00+02:00",
        "order": order or skroutz_order(),
    }


def generic_event(
    event_id: str = "evt_1", kind: str = "order.created", *, code="G-1001", state="open", lines=None
) -> dict:
    lines = lines if lines is not None else [("LAMP-1", 1, "12.90")]
    return {
        "id": event_id,
        "type": kind,
        "created_at": "2026-11-24T09:00:00Z",
        "order": {
            "code": code,
            "state": state,
            "currency": "EUR",
            "billing_address": {
                "first_name": "Ada",
                "last_name": "Lovelace",
                "address_1": "1 Main Street",
                "city": "Athens",
                "postcode": "10564",
                "country": "GR",
                "email": "ada@example.com",
            },
            "shipping_total": "3.50",
            "note": "Ring twice",
            "items": [
                {"sku": sku, "quantity": quantity, "unit_price": price, "title": f"Item {sku}"}
                for sku, quantity, price in lines
            ],
        },
    }


def body_of(payload) -> bytes:
    return json.dumps(payload).encode() if not isinstance(payload, bytes) else payload


def deliver(
    payload,
    marketplace: str = "skroutz",
    *,
    secret: str = SECRET,
    timestamp: int | None = None,
    client=None,
    headers: dict | None = None,
):
    body = body_of(payload)
    client = client or APIClient()
    signature = sign(
        body, secret, timestamp=timestamp if timestamp is not None else int(time.time())
    )
    with TestCase.captureOnCommitCallbacks(execute=True):  # the worker, eagerly
        return client.post(
            f"{WEBHOOK}/{marketplace}",
            data=body,
            content_type="application/json",
            HTTP_X_MARKETPLACE_SIGNATURE=signature,
            **{f"HTTP_{k.upper().replace('-', '_')}": v for k, v in (headers or {}).items()},
        )
