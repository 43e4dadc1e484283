"""The Stripe Checkout adapter, replayed from recorded exchanges (tests/licensing/recordings/).

Each recording holds the request we must send (method, URL, headers, form fields) and the
answer Stripe gave; `responses` refuses any request that does not match the recording.
"""

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import requests
import responses
import time_machine
from responses import matchers

from licensing.models import License, RenewalOrder, Tier
from licensing.payments.stripe import StripeProvider, from_minor_units, to_minor_units
from licensing.services import renewals
from tests.accounts.factories import ResellerFactory
from tests.licensing.factories import LicenseFactory, ProductFactory, SubscriptionFactory

pytestmark = pytest.mark.django_db

RECORDINGS = Path(__file__).parent / "recordings"
SESSION = "cs_test_a1YFh6BqYV2Zz3ezS1LqWxQHuT6rQq0JrVx9e3k5SgfXy8Xw0Qp5d4Jm2"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def replay(mock: responses.RequestsMock, name: str) -> dict:
    recording = json.loads((RECORDINGS / f"{name}.json").read_text())
    request, answer = recording["request"], recording["response"]
    match = [matchers.header_matcher(request["headers"])]
    if "form" in request:
        match.append(matchers.urlencoded_params_matcher(request["form"]))
    mock.add(
        request["method"],
        request["url"],
        json=answer["json"],
        status=answer["status"],
        match=match,
    )
    return recording


@pytest.fixture(autouse=True)
def _frozen():
    with time_machine.travel(NOW, tick=False):
        yield


@pytest.fixture
def stripe(settings, monkeypatch):
    settings.PAYMENT_PROVIDER = "stripe"
    settings.STRIPE_SECRET_KEY = "sk_test_emporion"
    settings.STRIPE_API_BASE = "https://api.stripe.com"
    settings.RENEWAL_RETURN_URL = "https://portal.example.com/renewals/complete"
    monkeypatch.setattr(renewals, "_order_code", lambda: "RN-KXPTRWMABC")
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        yield mock


@pytest.fixture
def two_licences():
    reseller = ResellerFactory()
    SubscriptionFactory(owner=reseller, current_period_end=NOW + timedelta(days=400))
    product = ProductFactory()
    return reseller, [
        LicenseFactory(owner=reseller, product=product, expires_at=NOW + timedelta(days=3)),
        LicenseFactory(
            owner=reseller, product=product, tier=Tier.BUSINESS, expires_at=NOW + timedelta(9)
        ),
    ]


def test_renewal_through_stripe_checkout(client_for, stripe, two_licences):
    reseller, licences = two_licences
    replay(stripe, "stripe_create_checkout")
    api = client_for(reseller)
    response = api.post(
        "/api/v1/portal/licenses/bulk-renew",
        {"license_ids": [lic.pk for lic in licences]},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["provider"] == "stripe"
    assert body["order_code"] == "RN-KXPTRWMABC"
    assert body["checkout_url"] == f"https://checkout.stripe.com/c/pay/{SESSION}"
    assert body["amount"] == "250.00"
    assert RenewalOrder.objects.get().provider_reference == SESSION

    replay(stripe, "stripe_retrieve_paid")
    confirmed = api.post(
        "/api/v1/portal/licenses/bulk-renew/confirm",
        {"order_code": "RN-KXPTRWMABC", "transaction_id": SESSION},
        format="json",
    )
    assert confirmed.status_code == 200, confirmed.json()
    assert confirmed.json()["status"] == "paid"
    assert sorted(License.objects.values_list("expires_at", flat=True)) == [
        NOW + timedelta(days=368),
        NOW + timedelta(days=374),
    ]


def test_an_unpaid_stripe_session_changes_nothing(client_for, stripe, two_licences):
    reseller, licences = two_licences
    replay(stripe, "stripe_create_checkout")
    replay(stripe, "stripe_retrieve_unpaid")
    api = client_for(reseller)
    api.post(
        "/api/v1/portal/licenses/bulk-renew",
        {"license_ids": [lic.pk for lic in licences]},
        format="json",
    )
    response = api.post(
        "/api/v1/portal/licenses/bulk-renew/confirm",
        {"order_code": "RN-KXPTRWMABC", "transaction_id": SESSION},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "payment_not_completed"
    assert sorted(License.objects.values_list("expires_at", flat=True)) == [
        NOW + timedelta(days=3),
        NOW + timedelta(days=9),
    ]
    assert RenewalOrder.objects.get().status == "pending"


def test_an_unknown_session_is_not_found(stripe):
    replay(stripe, "stripe_retrieve_missing")
    provider = StripeProvider(
        secret_key="sk_test_emporion", api_base="https://api.stripe.com", timeout=10
    )
    assert provider.check_transaction(transaction_id="cs_test_doesnotexist") is None


def test_paid_session_is_read_in_major_units(stripe):
    replay(stripe, "stripe_retrieve_paid")
    provider = StripeProvider(
        secret_key="sk_test_emporion", api_base="https://api.stripe.com", timeout=10
    )
    check = provider.check_transaction(transaction_id=SESSION)
    assert check.paid is True
    assert check.amount == Decimal("250.00")
    assert check.currency == "USD"
    assert check.order_code == "RN-KXPTRWMABC"


def test_a_stripe_outage_is_502_and_creates_no_order(client_for, stripe, two_licences):
    reseller, licences = two_licences
    replay(stripe, "stripe_server_error")
    response = client_for(reseller).post(
        "/api/v1/portal/licenses/bulk-renew",
        {"license_ids": [licences[0].pk]},
        format="json",
    )
    assert response.status_code == 502
    assert response.json()["code"] == "payment_provider_unavailable"
    assert RenewalOrder.objects.count() == 0


def test_a_network_failure_is_502(client_for, stripe, two_licences):
    reseller, licences = two_licences
    stripe.add(
        "POST",
        "https://api.stripe.com/v1/checkout/sessions",
        body=requests.ConnectionError("connection refused"),
    )
    response = client_for(reseller).post(
        "/api/v1/portal/licenses/bulk-renew", {"license_ids": [licences[0].pk]}, format="json"
    )
    assert response.status_code == 502
    assert RenewalOrder.objects.count() == 0


@pytest.mark.parametrize(
    ("amount", "currency", "minor"),
    [
        (Decimal("250.00"), "USD", 25000),
        (Decimal("1500"), "JPY", 1500),
        (Decimal("1.234"), "KWD", 1234),
    ],
)
def test_minor_units(amount, currency, minor):
    assert to_minor_units(amount, currency) == minor
    assert from_minor_units(minor, currency) == amount
