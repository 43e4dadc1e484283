"""Shared by the payments tests: orders to pay, gateways turned on, signed sandbox events,
and the recorded provider exchanges (recorded/*.json) replayed at the HTTP layer."""

from __future__ import annotations

import json
from pathlib import Path

import responses

from store.payments import services
from store.settings import services as settings_services
from tests.fixtures.store import API
from tests.store.orders.factories import line, make_order, stocked

RECORDED = Path(__file__).parent / "recorded"


def recorded(provider: str) -> dict:
    return json.loads((RECORDED / f"{provider}.json").read_text())


def replay(mock: responses.RequestsMock, provider: str, *names: str) -> None:
    exchanges = recorded(provider)
    for name in names:
        ex = exchanges[name]
        mock.add(ex["method"], ex["url"], json=ex["body"], status=ex["status"])


def enable(*gateways: str) -> None:
    settings_services.settings_update(
        section="payments", values={f"{g}_enabled": True for g in gateways}
    )


def order_for(gateway: str, *, price: str = "23.50", stock: int = 10, quantity: int = 1):
    product = stocked(price=price, stock=stock)
    order = make_order(line(product, quantity), payment_method=gateway, currency="EUR")
    return order, product


def start(client, gateway: str, order) -> dict:
    if gateway == "stripe":
        url, body = f"{API}/payment/stripe/intent", {"order_id": order.pk}
    elif gateway == "paypal":
        url, body = f"{API}/payment/paypal/orders", {"order_id": order.pk}
    else:
        url, body = f"{API}/payment/bank-redirect/{order.pk}", {}
    response = client.post(url, {**body, "order_key": order.order_key}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def signed(gateway: str, external_id: str, kind: str = "payment.succeeded") -> tuple[bytes, str]:
    return services.sandbox_signed_event(
        gateway_id=gateway, external_id=external_id, event_type=kind
    )


def deliver(client, gateway: str, body: bytes, header: str, *, route: str = "webhooks/payment"):
    return client.post(
        f"{API}/{route}/{gateway}",
        data=body,
        content_type="application/json",
        HTTP_SANDBOX_SIGNATURE=header,
    )


def pay(client, gateway: str, order) -> dict:
    """Pay an order through the sandbox: start, then the signed success event."""
    started = start(client, gateway, order)
    body, header = signed(gateway, started["id"])
    answer = deliver(client, gateway, body, header)
    assert answer.json()["outcome"] == "recorded", answer.content
    return started
