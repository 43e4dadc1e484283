"""The payment gateways' recipes: their configuration, and payments by card, PayPal and bank
redirect through the sandbox provider, confirmed by its signed events.
"""

from __future__ import annotations

import hashlib

from common.api.examples.recipes.store_shared import first_list, new_order, signed, st
from common.api.examples.recorder import ACTION, Recipe, Recorder

# The signing secret the run gives the sandbox gateways (a throwaway database's; the recorded
# bodies carry no signature).
SANDBOX_WEBHOOK_SECRET = "whsec_examples_sandbox"  # noqa: S105 - the recording's own


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


PAYMENT_RECIPES: dict[str, Recipe] = {
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
}
