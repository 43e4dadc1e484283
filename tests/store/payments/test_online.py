"""Paying an order online through the sandbox: card intents, wallet orders and captures,
bank redirects, and the signed notifications that record the payment (once)."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from store.orders.models import Order
from store.payments import selectors
from store.payments.crypto import unseal
from store.payments.models import PaymentAttempt, ProcessedEvent
from store.payments.providers.sandbox import sign
from tests.fixtures.store import API, error
from tests.store.payments.helpers import deliver, order_for, pay, signed, start

pytestmark = pytest.mark.django_db


def test_a_card_intent_paid_by_a_signed_webhook(online, anon):
    order, _ = order_for("stripe")
    started = start(anon, "stripe", order)
    assert started["provider"] == "sandbox"
    assert started["client_secret"].startswith(started["id"])
    assert (started["amount"], started["currency"], started["status"]) == (
        "23.50",
        "EUR",
        "created",
    )
    # Asking again answers the same intent.
    assert start(anon, "stripe", order)["id"] == started["id"]
    assert PaymentAttempt.objects.count() == 1

    body, header = signed("stripe", started["id"])
    answer = deliver(anon, "stripe", body, header)
    assert answer.status_code == 200
    assert answer.json()["outcome"] == "recorded"
    order.refresh_from_db()
    assert (order.payment_status, order.status, str(order.amount_paid)) == (
        "paid",
        "processing",
        "23.50",
    )
    payment = order.payments.get()
    assert (payment.method, payment.kind) == ("stripe", "payment")

    # The same event again: 200, nothing more.
    again = deliver(anon, "stripe", body, header)
    assert again.status_code == 200
    assert again.json()["outcome"] == "replayed"
    # Another event about the same payment: recorded once only.
    body2, header2 = signed("stripe", started["id"])
    assert deliver(anon, "stripe", body2, header2).json()["outcome"] == "already_recorded"
    assert order.payments.count() == 1
    # A paid order has nothing due.
    error(
        anon.post(
            f"{API}/payment/stripe/intent",
            {"order_id": order.pk, "order_key": order.order_key},
            format="json",
        ),
        409,
    )


def test_bad_signatures_are_400_and_change_nothing(online, anon):
    order, _ = order_for("stripe")
    started = start(anon, "stripe", order)
    body, header = signed("stripe", started["id"])
    tampered = body.replace(b"23.50", b"0.01")
    error(deliver(anon, "stripe", tampered, header), 400, "invalid_signature")
    error(deliver(anon, "stripe", body, ""), 400, "invalid_signature")
    error(deliver(anon, "stripe", body, sign("not-the-secret", body)), 400, "invalid_signature")
    old = sign("x", body, timestamp=1_000_000_000)
    error(deliver(anon, "stripe", body, old), 400, "invalid_signature")
    assert not ProcessedEvent.objects.exists()
    assert Order.objects.get(pk=order.pk).payment_status == "unpaid"


def test_unknown_events_and_payments_answer_200_without_effect(online, anon):
    order, _ = order_for("stripe")
    started = start(anon, "stripe", order)
    body, _header = signed("stripe", started["id"])
    data = json.loads(body)
    secret = unseal(selectors.active_config("stripe").credentials_encrypted)["webhook_secret"]
    changes = ({"type": "charge.dispute.created"}, {"data": {**data["data"], "external_id": "x"}})
    for n, change in enumerate(changes):
        other = json.dumps({**data, **change, "id": f"{data['id']}{n}"}).encode()
        answer = deliver(anon, "stripe", other, sign(secret, other))
        assert answer.status_code == 200
        assert answer.json()["outcome"] in {"ignored", "unknown_payment"}
    assert Order.objects.get(pk=order.pk).payment_status == "unpaid"


def test_a_failed_payment_event_marks_the_attempt(online, anon):
    order, _ = order_for("stripe")
    started = start(anon, "stripe", order)
    body, header = signed("stripe", started["id"], "payment.failed")
    assert deliver(anon, "stripe", body, header).json()["outcome"] == "failed"
    assert PaymentAttempt.objects.get().status == "failed"


def test_unknown_gateway_and_hostile_bodies(online, anon):
    error(deliver(anon, "nope", b"{}", "t=1,v1=x"), 404, "payment_gateway_not_found")
    for body in (b"[" * 5000, b'{"id": "\\u0000"}', b'{"id": "\\ud800"}', b"not json", b"[]"):
        response = deliver(anon, "stripe", body, "t=1,v1=x")
        assert response.status_code == 400, (body[:20], response.content)
    csrf = APIClient(enforce_csrf_checks=True)
    response = csrf.post(
        f"{API}/webhooks/payment/stripe", data=b"{}", content_type="application/json"
    )
    error(response, 400, "invalid_signature")


def test_paypal_order_created_then_captured(online, anon):
    order, _ = order_for("paypal")
    started = start(anon, "paypal", order)
    assert started["redirect_url"]
    url = f"{API}/payment/paypal/orders/{started['id']}/capture"
    error(anon.post(url, {"order_key": "wrong"}, format="json"), 404, "wallet_order_not_found")
    answer = anon.post(url, {"order_key": order.order_key}, format="json")
    assert answer.status_code == 200, answer.content
    assert (answer.json()["status"], answer.json()["payment_status"]) == ("succeeded", "paid")
    for hostile in ("%00", "x" * 150, "%F0%9F%92%A9"):
        path = f"{API}/payment/paypal/orders/{hostile}/capture"
        error(anon.post(path, {"order_key": "k"}, format="json"), 404)
    # A second capture answers the first.
    assert anon.post(url, {"order_key": order.order_key}, format="json").status_code == 200
    assert Order.objects.get(pk=order.pk).payments.count() == 1


def test_bank_redirect_then_the_signed_callback(online, anon):
    order, _ = order_for("bank_redirect")
    started = start(anon, "bank_redirect", order)
    assert started["redirect_url"]
    assert started["instructions"]
    body, header = signed("bank_redirect", started["id"])
    answer = deliver(anon, "bank_redirect", body, header, route="payment/callback")
    assert answer.json()["outcome"] == "recorded"
    assert Order.objects.get(pk=order.pk).payment_status == "paid"


def test_paying_refusals(online, anon, settings):
    order, _ = order_for("stripe")
    url = f"{API}/payment/stripe/intent"
    error(anon.post(url, {"order_id": order.pk, "order_key": "x"}, format="json"), 403)
    error(anon.post(url, {"order_id": 999999, "order_key": "x"}, format="json"), 403)
    other, _ = order_for("paypal")
    error(
        anon.post(url, {"order_id": other.pk, "order_key": other.order_key}, format="json"),
        409,
        "payment_method_mismatch",
    )
    for bad in (
        {"order_id": "1"},
        {"order_id": 2**70, "order_key": "k"},
        [],
        {"order_key": "\x00"},
    ):
        assert anon.post(url, bad, format="json").status_code == 400
    settings.PAYMENT_SANDBOX_ALLOWED = False
    error(
        anon.post(url, {"order_id": order.pk, "order_key": order.order_key}, format="json"),
        503,
        "payments_not_configured",
    )


def test_cancelled_order_is_not_payable(online, anon):
    from store.orders import services as order_services

    order, _ = order_for("stripe")
    order_services.order_status_set(order_id=order.pk, status="cancelled")
    response = anon.post(
        f"{API}/payment/stripe/intent",
        {"order_id": order.pk, "order_key": order.order_key},
        format="json",
    )
    error(response, 409, "order_not_payable")


def test_the_sandbox_event_command_prints_a_deliverable_curl(online, anon, capsys):
    order, _ = order_for("stripe")
    started = start(anon, "stripe", order)
    call_command("payment_sandbox_event", "stripe", started["id"])
    out = capsys.readouterr().out
    assert "Sandbox-Signature: t=" in out
    assert "/webhooks/payment/stripe" in out


def test_pay_helper_marks_paid(online, anon):
    order, _ = order_for("paypal")
    pay(anon, "stripe", order_for("stripe")[0])
    assert Order.objects.get(pk=order.pk).payment_status == "unpaid"
