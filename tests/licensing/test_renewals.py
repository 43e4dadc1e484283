"""Renewals: pricing, the sandbox checkout, confirmation (once), and refusals."""

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
import time_machine
from django.conf import settings
from django.utils import timezone

from licensing.models import (
    License,
    LicenseStatus,
    RenewalOrder,
    SandboxCheckout,
    Tier,
)
from tests.accounts.factories import ResellerFactory, UserFactory
from tests.licensing.factories import LicenseFactory, ProductFactory, SubscriptionFactory

pytestmark = pytest.mark.django_db

RENEW = "/api/v1/portal/licenses/bulk-renew"
CONFIRM = "/api/v1/portal/licenses/bulk-renew/confirm"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def frozen():
    with time_machine.travel(NOW, tick=False):
        yield NOW


def state(*licenses):
    return [
        License.objects.filter(pk=lic.pk).values("status", "expires_at", "invoiced_at").get()
        for lic in licenses
    ]


def pay(client, checkout_url: str, action: str = "pay") -> SandboxCheckout:
    path = re.sub(r"^https?://[^/]+", "", checkout_url)
    page = client.get(path)
    assert page.status_code == 200
    assert b"Pay " in page.content
    response = client.post(path, {"action": action})
    assert response.status_code == 200
    return SandboxCheckout.objects.get(token=path.rsplit("/", 1)[-1])


def test_renewal_info_lists_prices_and_expiring_licences(client_for, frozen):
    owner = UserFactory()
    product = ProductFactory(name="Theme", slug="theme")
    soon = LicenseFactory(owner=owner, product=product, expires_at=NOW + timedelta(days=10))
    lapsed = LicenseFactory(
        owner=owner, product=product, status=LicenseStatus.EXPIRED, expires_at=NOW - timedelta(3)
    )
    LicenseFactory(owner=owner, expires_at=NOW + timedelta(days=31))  # outside the window
    LicenseFactory(owner=owner, status=LicenseStatus.REVOKED, expires_at=NOW + timedelta(2))
    LicenseFactory(expires_at=NOW + timedelta(days=2))  # someone else's
    body = client_for(owner).get("/api/v1/portal/licenses/renewal-info").json()
    assert body["currency"] == "USD"
    assert body["window_days"] == 30
    assert {"product_slug": "theme", "tier": "business", "yearly_price": "200.00"}.items() <= next(
        p for p in body["prices"] if p["product_slug"] == "theme" and p["tier"] == "business"
    ).items()
    assert body["expiring_licenses"] == [
        {
            "id": lapsed.pk,
            "license_key": lapsed.license_key,
            "product": {"id": product.pk, "name": "Theme", "slug": "theme"},
            "tier": "starter",
            "status": "expired",
            "expires_at": "2026-05-29T12:00:00Z",
            "days_left": -3,
            "renewal_price": "50.00",
        },
        {
            "id": soon.pk,
            "license_key": soon.license_key,
            "product": {"id": product.pk, "name": "Theme", "slug": "theme"},
            "tier": "starter",
            "status": "active",
            "expires_at": "2026-06-11T12:00:00Z",
            "days_left": 10,
            "renewal_price": "50.00",
        },
    ]


def test_full_sandbox_renewal(client_for, client, frozen):
    reseller = ResellerFactory()
    SubscriptionFactory(owner=reseller, current_period_end=NOW + timedelta(days=400))
    product = ProductFactory()
    later = LicenseFactory(owner=reseller, product=product, expires_at=NOW + timedelta(days=20))
    lapsed = LicenseFactory(
        owner=reseller,
        product=product,
        tier=Tier.BUSINESS,
        status=LicenseStatus.EXPIRED,
        expires_at=NOW - timedelta(days=40),
    )
    foreign = LicenseFactory(product=product)
    api = client_for(reseller)

    response = api.post(RENEW, {"license_ids": [later.pk, lapsed.pk, foreign.pk]}, format="json")
    assert response.status_code == 201
    order = response.json()
    assert order["status"] == "pending"
    assert order["amount"] == "250.00"
    assert order["currency"] == "USD"
    assert order["provider"] == "sandbox"
    assert re.match(r"^RN-[A-Z]{10}$", order["order_code"])
    assert order["checkout_url"].startswith(f"{settings.FRONTEND_URL}/pay/sandbox/")
    assert order["transaction_id"] is None
    assert [(item["license_id"], item["price"]) for item in order["licenses"]] == [
        (later.pk, "50.00"),
        (lapsed.pk, "200.00"),
    ]
    assert state(later, lapsed)[0]["expires_at"] == NOW + timedelta(days=20)  # nothing yet

    checkout = pay(client, order["checkout_url"])
    assert checkout.status == "paid"
    assert checkout.amount == Decimal("250.00")

    confirmed = api.post(
        CONFIRM,
        {"order_code": order["order_code"], "transaction_id": checkout.transaction_id},
        format="json",
    )
    assert confirmed.status_code == 200
    body = confirmed.json()
    assert body["status"] == "paid"
    assert body["transaction_id"] == checkout.transaction_id
    # One year from the later of now and the current expiry.
    assert {item["license_id"]: item["new_expires_at"] for item in body["licenses"]} == {
        later.pk: "2027-06-21T12:00:00Z",
        lapsed.pk: "2027-06-01T12:00:00Z",
    }
    assert state(later, lapsed, foreign) == [
        {"status": "active", "expires_at": NOW + timedelta(days=385), "invoiced_at": NOW},
        {
            "status": "active",
            "expires_at": datetime(2027, 6, 1, 12, tzinfo=UTC),
            "invoiced_at": NOW,
        },
        {"status": "active", "expires_at": foreign.expires_at, "invoiced_at": None},
    ]

    again = api.post(
        CONFIRM,
        {"order_code": order["order_code"], "transaction_id": checkout.transaction_id},
        format="json",
    )
    assert again.status_code == 200
    assert again.json() == body
    assert state(later)[0]["expires_at"] == NOW + timedelta(days=385)  # extended once


def test_sandbox_can_return_to_a_front_end(client_for, client, settings, frozen):
    settings.RENEWAL_RETURN_URL = "https://portal.example.com/renewals/done"
    owner = UserFactory()
    license = LicenseFactory(owner=owner)
    order = client_for(owner).post(RENEW, {"license_ids": [license.pk]}, format="json").json()
    path = re.sub(r"^https?://[^/]+", "", order["checkout_url"])
    response = client.post(path, {"action": "pay"})
    assert response.status_code == 302
    transaction_id = SandboxCheckout.objects.get().transaction_id
    assert response["Location"] == (
        f"https://portal.example.com/renewals/done?order_code={order['order_code']}"
        f"&transaction_id={transaction_id}"
    )


def test_an_unpaid_or_wrong_transaction_changes_nothing(client_for, client, frozen):
    owner = UserFactory()
    license = LicenseFactory(owner=owner, expires_at=NOW + timedelta(days=5))
    api = client_for(owner)
    order = api.post(RENEW, {"license_ids": [license.pk]}, format="json").json()
    other = api.post(RENEW, {"license_ids": [license.pk]}, format="json").json()
    declined = pay(client, order["checkout_url"], action="decline")
    paid_other = pay(client, other["checkout_url"])
    before = state(license)

    attempts = [
        ({"transaction_id": "sbx_nope"}, 400, "transaction_not_found"),
        ({"transaction_id": declined.transaction_id}, 400, "payment_not_completed"),
        ({"transaction_id": paid_other.transaction_id}, 400, "transaction_mismatch"),
    ]
    for body, status_code, code in attempts:
        response = api.post(CONFIRM, {"order_code": order["order_code"], **body}, format="json")
        assert response.status_code == status_code
        assert response.json()["code"] == code
        assert "nothing was changed" in response.json()["detail"]
    assert state(license) == before
    assert RenewalOrder.objects.get(code=order["order_code"]).status == "pending"


def test_a_paid_order_cannot_be_confirmed_with_another_transaction(client_for, client, frozen):
    owner = UserFactory()
    license = LicenseFactory(owner=owner)
    api = client_for(owner)
    order = api.post(RENEW, {"license_ids": [license.pk]}, format="json").json()
    checkout = pay(client, order["checkout_url"])
    code = order["order_code"]
    ok = api.post(CONFIRM, {"order_code": code, "transaction_id": checkout.transaction_id})
    assert ok.status_code == 200
    after = state(license)
    response = api.post(CONFIRM, {"order_code": code, "transaction_id": "sbx_other"})
    assert response.status_code == 400
    assert response.json()["code"] == "renewal_already_confirmed"
    assert state(license) == after


def test_someone_elses_order_is_404(client_for, client):
    owner = UserFactory()
    order = (
        client_for(owner)
        .post(RENEW, {"license_ids": [LicenseFactory(owner=owner).pk]}, format="json")
        .json()
    )
    checkout = pay(client, order["checkout_url"])
    response = client_for(UserFactory()).post(
        CONFIRM,
        {"order_code": order["order_code"], "transaction_id": checkout.transaction_id},
        format="json",
    )
    assert response.status_code == 404
    assert RenewalOrder.objects.get().status == "pending"


def test_revoked_licences_cannot_be_renewed(client_for):
    owner = UserFactory()
    revoked = LicenseFactory(owner=owner, status=LicenseStatus.REVOKED)
    response = client_for(owner).post(
        RENEW, {"license_ids": [revoked.pk, LicenseFactory(owner=owner).pk]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "license_revoked"
    assert revoked.license_key in response.json()["detail"]
    assert RenewalOrder.objects.count() == 0


def test_business_renewal_needs_a_bundle(client_for):
    owner = ResellerFactory()
    license = LicenseFactory(owner=owner, tier=Tier.BUSINESS)
    response = client_for(owner).post(RENEW, {"license_ids": [license.pk]}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "business_bundle_required"
    assert RenewalOrder.objects.count() == 0


@pytest.mark.parametrize("ids", [[], list(range(1, 102)), "1"])
def test_renewal_ids_are_validated(client_for, ids):
    response = client_for(UserFactory()).post(RENEW, {"license_ids": ids}, format="json")
    assert response.status_code == 422
    assert "license_ids" in response.json()["errors"]


def test_free_licences_have_nothing_to_pay(client_for):
    owner = UserFactory()
    product = ProductFactory(starter_yearly_price=Decimal("0.00"))
    license = LicenseFactory(owner=owner, product=product)
    response = client_for(owner).post(RENEW, {"license_ids": [license.pk]}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "nothing_to_pay"


def test_sandbox_checkout_completes_once(client):
    from licensing.payments.sandbox import SandboxProvider

    checkout = SandboxProvider().create_checkout(
        order_code="RN-ABCDEFGHJK",
        description="x",
        amount=Decimal("5.00"),
        currency="USD",
        base_url="http://testserver/",
        return_url="",
    )
    path = checkout.url.replace("http://testserver", "")
    client.post(path, {"action": "pay"})
    first = SandboxCheckout.objects.get()
    client.post(path, {"action": "decline"})
    again = SandboxCheckout.objects.get()
    assert (again.status, again.transaction_id) == ("paid", first.transaction_id)
    assert client.get("/pay/sandbox/unknown").status_code == 404


def test_timestamps_use_the_current_time(client_for):
    owner = UserFactory()
    license = LicenseFactory(owner=owner)
    response = client_for(owner).post(RENEW, {"license_ids": [license.pk]}, format="json")
    created = datetime.fromisoformat(response.json()["created_at"].replace("Z", "+00:00"))
    assert abs((created - timezone.now()).total_seconds()) < 60


def test_sandbox_payments_are_off_in_production(client_for, client, settings):
    """Without PAYMENT_SANDBOX_ALLOWED (off unless DEBUG) nobody renews for free."""
    reseller = ResellerFactory()
    license = LicenseFactory(owner=reseller, expires_at=timezone.now() + timedelta(days=5))
    api = client_for(reseller)
    opened = api.post(RENEW, {"license_ids": [license.pk]}, format="json")
    assert opened.status_code == 201
    settings.PAYMENT_SANDBOX_ALLOWED = False

    refused = api.post(RENEW, {"license_ids": [license.pk]}, format="json")
    assert refused.status_code == 503
    assert refused.json()["code"] == "payments_not_configured"
    assert RenewalOrder.objects.count() == 1  # only the one opened before
    # The checkout page of the earlier order cannot be used to "pay" either.
    path = opened.json()["checkout_url"].removeprefix(settings.FRONTEND_URL)
    assert client.get(path).status_code == 404
    assert client.post(path, {"action": "pay"}).status_code == 404
    assert SandboxCheckout.objects.get().status == "open"
