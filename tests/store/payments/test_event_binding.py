"""Inbound payment events are bound to the gateway whose config signed them: an event signed
with one gateway's secret that names a payment of another gateway (or of another provider
of the same gateway) is refused, 409 `payment_gateway_mismatch`, kept as refused, logged,
and records nothing; the right pairing records the payment."""

from __future__ import annotations

import json
import logging

import pytest

from store.orders.models import Order, Payment
from store.payments import selectors
from store.payments.crypto import unseal
from store.payments.models import PaymentAttempt, ProcessedEvent
from store.payments.providers.sandbox import sign
from tests.fixtures.store import error
from tests.store.payments.helpers import deliver, order_for, start

pytestmark = pytest.mark.django_db


def secret_of(gateway: str) -> str:
    return unseal(selectors.active_config(gateway).credentials_encrypted)["webhook_secret"]


def event(
    external_id: str, *, amount: str = "23.50", kind: str = "payment.succeeded", n: int = 1
) -> bytes:
    return json.dumps(
        {
            "id": f"evt_binding_{n}",
            "type": kind,
            "data": {
                "external_id": external_id,
                "transaction_id": f"sbx_ch_binding_{n}",
                "amount": amount,
                "currency": "EUR",
            },
        }
    ).encode()


@pytest.fixture
def two_gateways(online, anon):
    """A Stripe intent and a PayPal order, each started through its gateway's own sandbox
    config (two configs, two webhook secrets, one provider)."""
    stripe_order, _ = order_for("stripe")
    paypal_order, _ = order_for("paypal")
    stripe_id = start(anon, "stripe", stripe_order)["id"]
    paypal_id = start(anon, "paypal", paypal_order)["id"]
    assert selectors.active_config("stripe").pk != selectors.active_config("paypal").pk
    assert secret_of("stripe") != secret_of("paypal")
    return stripe_order, stripe_id, paypal_order, paypal_id


def nothing_recorded(*orders) -> None:
    for order in orders:
        order = Order.objects.get(pk=order.pk)
        assert (order.payment_status, str(order.amount_paid)) == ("unpaid", "0.00")
    assert not Payment.objects.exists()
    assert set(PaymentAttempt.objects.values_list("status", flat=True)) == {"created"}


@pytest.mark.parametrize("route", ["webhooks/payment", "payment/callback"])
def test_an_event_signed_by_paypal_naming_a_stripe_intent_is_refused(
    two_gateways, anon, caplog, route
):
    stripe_order, stripe_id, paypal_order, _paypal_id = two_gateways
    body = event(stripe_id)
    with caplog.at_level(logging.WARNING, logger="store.payments.services.events"):
        response = deliver(anon, "paypal", body, sign(secret_of("paypal"), body), route=route)
    answer = error(response, 409, "payment_gateway_mismatch")
    assert stripe_id in answer["message"]
    nothing_recorded(stripe_order, paypal_order)
    kept = ProcessedEvent.objects.get()
    assert (kept.gateway, kept.event_id, kept.outcome) == (
        "paypal",
        "evt_binding_1",
        "refused_other_gateway",
    )
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1
    assert stripe_id in warned[0].getMessage()
    assert "refused" in warned[0].getMessage()

    # The provider's retry of the same event is refused again, and still records nothing.
    again = deliver(anon, "paypal", body, sign(secret_of("paypal"), body), route=route)
    error(again, 409, "payment_gateway_mismatch")
    nothing_recorded(stripe_order, paypal_order)
    assert ProcessedEvent.objects.count() == 1


def test_the_other_way_round_and_a_failure_event_are_refused_too(two_gateways, anon):
    stripe_order, stripe_id, paypal_order, paypal_id = two_gateways
    body = event(paypal_id, n=2)
    error(deliver(anon, "stripe", body, sign(secret_of("stripe"), body)), 409)
    failed = event(stripe_id, kind="payment.failed", n=3)
    error(deliver(anon, "paypal", failed, sign(secret_of("paypal"), failed)), 409)
    nothing_recorded(stripe_order, paypal_order)  # the Stripe intent is not marked failed
    assert set(ProcessedEvent.objects.values_list("outcome", flat=True)) == {
        "refused_other_gateway"
    }


def test_a_payment_of_another_provider_of_the_same_gateway_is_refused(two_gateways, anon):
    """The gateway's config now is the sandbox; a payment it did not start (here one started
    through a Stripe account earlier) cannot be paid by the sandbox's secret."""
    stripe_order, _stripe_id, paypal_order, _paypal_id = two_gateways
    PaymentAttempt.objects.create(
        order=stripe_order,
        gateway="stripe",
        provider="stripe",
        kind="card",
        external_id="pi_3Real",
        amount="23.50",
        currency="EUR",
    )
    body = event("pi_3Real", n=4)
    error(deliver(anon, "stripe", body, sign(secret_of("stripe"), body)), 409)
    nothing_recorded(stripe_order, paypal_order)


def test_the_right_pairing_records_each_payment_once(two_gateways, anon):
    stripe_order, stripe_id, paypal_order, paypal_id = two_gateways
    refused = event(stripe_id, n=5)
    error(deliver(anon, "paypal", refused, sign(secret_of("paypal"), refused)), 409)
    for gateway, external_id, order, n in (
        ("stripe", stripe_id, stripe_order, 6),
        ("paypal", paypal_id, paypal_order, 7),
    ):
        body = event(external_id, n=n)
        answer = deliver(anon, gateway, body, sign(secret_of(gateway), body))
        assert answer.status_code == 200, answer.content
        assert answer.json()["outcome"] == "recorded"
        order = Order.objects.get(pk=order.pk)
        assert (order.payment_status, order.status) == ("paid", "processing")
        assert order.payments.get().method == gateway
    assert Payment.objects.count() == 2


def test_a_payment_nobody_started_is_still_answered_200(two_gateways, anon):
    stripe_order, _stripe_id, paypal_order, _paypal_id = two_gateways
    body = event("SBXPPnobody", n=8)
    answer = deliver(anon, "paypal", body, sign(secret_of("paypal"), body))
    assert (answer.status_code, answer.json()["outcome"]) == (200, "unknown_payment")
    nothing_recorded(stripe_order, paypal_order)
