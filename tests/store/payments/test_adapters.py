"""The real adapters against recorded HTTP exchanges (recorded/*.json, replayed by
`responses`: no network), and through the routes: config checks, intents, captures,
refunds and webhooks of Stripe and PayPal."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from decimal import Decimal

import pytest
import requests
import responses

from store.payments.models import GatewayConfig
from store.payments.providers.base import (
    BadSignature,
    PaymentsNotConfigured,
    ProviderRefused,
    ProviderUnavailable,
)
from store.payments.providers.paypal import PayPalProvider
from store.payments.providers.stripe import StripeProvider
from tests.fixtures.store import API, error
from tests.store.payments.helpers import order_for, recorded, replay

pytestmark = pytest.mark.django_db

STRIPE = {
    "secret_key": "sk_test_51RecordedKeyabcd",
    "publishable_key": "pk_test_51Recorded",
    "webhook_secret": "whsec_recordedsecret",
}
PAYPAL = {"client_id": "AYrecorded", "client_secret": "ELrecorded", "webhook_id": "8PT597110X6871"}


def stripe_signature(body: bytes, secret: str = STRIPE["webhook_secret"]) -> str:
    stamp = int(time.time())
    digest = hmac.new(secret.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={stamp},v1={digest}"


CHECKS = {"stripe": "balance", "paypal": "token"}


def config(staff, gateway: str, provider: str, credentials: dict) -> int:
    """A config made through the route, its credentials check answered by the recorded
    exchange (it passes, so the config is active), or failing without a call when
    credentials are missing."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        replay(mock, provider, CHECKS[provider])
        answer = staff.post(
            f"{API}/payment/gateway-config",
            {"gateway": gateway, "provider": provider, "credentials": credentials},
            format="json",
        )
    assert answer.status_code == 201, answer.content
    assert answer.json()["active"] is bool(credentials), answer.content
    return answer.json()["id"]


def test_missing_credentials_are_a_clear_error():
    with pytest.raises(PaymentsNotConfigured, match="secret_key"):
        StripeProvider({}).create_intent(
            kind="card", amount=Decimal(1), currency="EUR", reference="1", idempotency_key="k"
        )
    with pytest.raises(PaymentsNotConfigured, match="client_id"):
        PayPalProvider({}).refund(
            transaction_id="x", amount=Decimal(1), currency="EUR", idempotency_key="k"
        )
    with pytest.raises(BadSignature):
        StripeProvider({"secret_key": "sk"}).verify_event(body=b"{}", headers={})


@responses.activate
def test_stripe_config_check_recorded(online, payments_staff):
    config_id = config(payments_staff, "stripe", "stripe", STRIPE)
    replay(responses.mock, "stripe", "balance")
    answer = payments_staff.post(f"{API}/payment/gateway-config/{config_id}/test")
    assert answer.status_code == 200
    assert answer.json()["ok"] is True
    assert responses.calls[0].request.headers["Authorization"] == f"Bearer {STRIPE['secret_key']}"
    responses.reset()
    replay(responses.mock, "stripe", "balance_bad_key")
    answer = payments_staff.post(f"{API}/payment/gateway-config/{config_id}/test")
    assert answer.json()["ok"] is False
    responses.reset()
    responses.add("GET", "https://api.stripe.com/v1/balance", body=requests.ConnectionError())
    error(
        payments_staff.post(f"{API}/payment/gateway-config/{config_id}/test"),
        502,
        "payment_provider_unavailable",
    )


@responses.activate
def test_stripe_intent_webhook_and_refund_recorded(online, anon, payments_staff):
    config(payments_staff, "stripe", "stripe", STRIPE)
    order, _ = order_for("stripe")
    replay(responses.mock, "stripe", "payment_intent_create")
    intent = anon.post(
        f"{API}/payment/stripe/intent",
        {"order_id": order.pk, "order_key": order.order_key},
        format="json",
    )
    assert intent.status_code == 201, intent.content
    body = intent.json()
    assert (body["id"], body["provider"], body["publishable_key"]) == (
        "pi_3QfRecorded0001",
        "stripe",
        "pk_test_51Recorded",
    )
    sent = responses.calls[0].request
    sent_body = sent.body.encode() if isinstance(sent.body, str) else sent.body
    assert b"amount=2350" in sent_body
    assert sent.headers["Idempotency-Key"].startswith("stripe:order:")

    event = json.dumps(recorded("stripe")["event_succeeded"]).encode()
    url = f"{API}/webhooks/payment/stripe"
    bad = anon.post(
        url, data=event, content_type="application/json", HTTP_STRIPE_SIGNATURE="t=1,v1=0"
    )
    error(bad, 400, "invalid_signature")
    good = anon.post(
        url,
        data=event,
        content_type="application/json",
        HTTP_STRIPE_SIGNATURE=stripe_signature(event),
    )
    assert good.json()["outcome"] == "recorded", good.content
    order.refresh_from_db()
    assert (order.payment_status, order.status) == ("paid", "processing")

    replay(responses.mock, "stripe", "refund_create")
    refund = payments_staff.post(
        f"{API}/payment/refund/{order.pk}", {"amount": "10.00"}, format="json"
    )
    assert refund.status_code == 201, refund.content
    assert refund.json()["refunds"][0]["refund_id"] == "re_3QfRecorded0001"
    assert refund.json()["payment_status"] == "partially_refunded"
    responses.reset()
    replay(responses.mock, "stripe", "refund_card_error")
    error(
        payments_staff.post(f"{API}/payment/refund/{order.pk}", {}, format="json"),
        502,
        "payment_provider_refused",
    )
    order.refresh_from_db()
    assert str(order.amount_refunded) == "10.00"


@responses.activate
def test_paypal_create_capture_refund_and_webhook_recorded(online, anon, payments_staff):
    config_id = config(payments_staff, "paypal", "paypal", PAYPAL)
    order, _ = order_for("paypal")
    replay(responses.mock, "paypal", "token", "order_create")
    created = anon.post(
        f"{API}/payment/paypal/orders",
        {"order_id": order.pk, "order_key": order.order_key, "return_url": "https://shop.test/r"},
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["redirect_url"].endswith("token=5O190127TN364715T")
    sent = json.loads(responses.calls[1].request.body)
    assert sent["purchase_units"][0]["amount"] == {"currency_code": "EUR", "value": "23.50"}

    capture_url = f"{API}/payment/paypal/orders/5O190127TN364715T/capture"
    responses.reset()
    replay(responses.mock, "paypal", "token", "order_capture_unprocessable")
    error(anon.post(capture_url, {"order_key": order.order_key}, format="json"), 502)
    responses.reset()
    replay(responses.mock, "paypal", "token", "order_capture")
    captured = anon.post(capture_url, {"order_key": order.order_key}, format="json")
    assert captured.json()["transaction_id"] == "3C679366HH908993F"
    assert captured.json()["payment_status"] == "paid"

    # PayPal's own notification of the same capture: verified, then nothing more to record.
    event = json.dumps(recorded("paypal")["event_capture_completed"]).encode()
    headers = {
        "HTTP_PAYPAL_TRANSMISSION_ID": "69cd13f0",
        "HTTP_PAYPAL_TRANSMISSION_TIME": "2024-01-01T00:00:00Z",
        "HTTP_PAYPAL_TRANSMISSION_SIG": "sig",
        "HTTP_PAYPAL_CERT_URL": "https://api.sandbox.paypal.com/v1/notifications/certs/CERT",
        "HTTP_PAYPAL_AUTH_ALGO": "SHA256withRSA",
    }
    url = f"{API}/webhooks/payment/paypal"
    responses.reset()
    replay(responses.mock, "paypal", "token", "verify_failure")
    error(anon.post(url, data=event, content_type="application/json", **headers), 400)
    error(anon.post(url, data=event, content_type="application/json"), 400, "invalid_signature")
    responses.reset()
    replay(responses.mock, "paypal", "token", "verify_success")
    hook = anon.post(url, data=event, content_type="application/json", **headers)
    assert hook.json()["outcome"] == "already_recorded", hook.content
    assert json.loads(responses.calls[1].request.body)["webhook_id"] == PAYPAL["webhook_id"]

    responses.reset()
    replay(responses.mock, "paypal", "token", "capture_refund")
    refund = payments_staff.post(f"{API}/payment/refund/{order.pk}", {}, format="json")
    assert refund.status_code == 201, refund.content
    assert refund.json()["refunds"][0]["refund_id"] == "1JU08902781691411"
    assert refund.json()["payment_status"] == "refunded"

    responses.reset()
    replay(responses.mock, "paypal", "token_refused")
    check = payments_staff.post(f"{API}/payment/gateway-config/{config_id}/test")
    assert check.json()["ok"] is False
    assert GatewayConfig.objects.get(pk=config_id).last_check_ok is False


@responses.activate
def test_paypal_errors_map_to_provider_errors():
    provider = PayPalProvider(PAYPAL)
    responses.add(
        "POST", "https://api-m.sandbox.paypal.com/v1/oauth2/token", body=requests.Timeout()
    )
    with pytest.raises(ProviderUnavailable):
        provider.check()
    responses.reset()
    replay(responses.mock, "paypal", "token_refused")
    with pytest.raises(ProviderRefused):
        provider.capture(external_id="X", amount=Decimal(1), currency="EUR")
    responses.reset()
    replay(responses.mock, "paypal", "token")
    responses.add(
        "POST",
        "https://api-m.sandbox.paypal.com/v2/checkout/orders/X/capture",
        status=503,
        body="oops",
    )
    with pytest.raises(ProviderUnavailable):
        provider.capture(external_id="X", amount=Decimal(1), currency="EUR")


def test_a_config_without_its_credentials_fails_its_check_without_a_5xx(online, payments_staff):
    config_id = config(payments_staff, "paypal", "paypal", {})
    answer = payments_staff.post(f"{API}/payment/gateway-config/{config_id}/test")
    assert answer.status_code == 200, answer.content
    assert answer.json()["ok"] is False
    assert "client_id and client_secret" in answer.json()["message"]
