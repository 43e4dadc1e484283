"""Licence events reach webhooks: the licensing API publishes, deliveries are recorded."""

import json

import pytest

from tests.accounts.factories import ResellerFactory
from tests.licensing.factories import LicenseFactory, PackFactory, ProductFactory
from webhooks.models import Delivery, Webhook

pytestmark = pytest.mark.django_db

ALL_EVENTS = [
    "license.created",
    "license.activated",
    "license.deactivated",
    "license.revoked",
    "license.expired",
]


def hook_for(account, events=ALL_EVENTS, url="https://hooks.example.com/in"):
    return Webhook.objects.create(account=account, url=url, events=events, secret="a" * 64)


def bodies(event):
    return [json.loads(d.body) for d in Delivery.objects.filter(event=event).order_by("pk")]


def test_creating_a_licence_through_the_api_records_a_signed_delivery(client_for):
    reseller = ResellerFactory()
    hook_for(reseller)
    product = ProductFactory(slug="theme")
    response = client_for(reseller).post(
        "/api/v1/portal/licenses", {"product_id": product.pk}, format="json"
    )
    assert response.status_code == 201
    [body] = bodies("license.created")
    assert body["event"] == "license.created"
    assert body["timestamp"].endswith("+00:00")
    assert body["data"]["license_id"] == response.json()["id"]
    assert body["data"]["license_key"] == response.json()["license_key"]
    assert body["data"]["tier"] == "starter"
    assert body["data"]["product_slug"] == "theme"


def test_revoking_through_the_api_records_the_deactivated_domains(client_for, api_client):
    reseller = ResellerFactory()
    hook_for(reseller, events=["license.revoked"])
    license = LicenseFactory(owner=reseller)
    activate = api_client.post(
        "/api/v1/licenses/activate",
        {"license_key": license.license_key, "domain": "shop.example.com"},
        format="json",
    )
    assert activate.status_code == 200
    assert client_for(reseller).delete(f"/api/v1/portal/licenses/{license.pk}").status_code == 200
    [body] = bodies("license.revoked")
    assert body["data"] == {
        "license_key": license.license_key,
        "deactivated_domains": ["shop.example.com"],
    }
    assert not Delivery.objects.filter(event="license.activated").exists()  # not subscribed


def test_another_accounts_webhooks_hear_nothing(client_for):
    reseller, other = ResellerFactory(), ResellerFactory()
    hook_for(other)
    product = ProductFactory()
    client_for(reseller).post("/api/v1/portal/licenses", {"product_id": product.pk}, format="json")
    assert Delivery.objects.count() == 0


def test_a_refused_request_records_no_delivery(client_for):
    reseller = ResellerFactory()
    hook_for(reseller)
    body = {"product_id": ProductFactory().pk, "count": 5}
    response = client_for(reseller).post("/api/v1/portal/licenses/bulk", body, format="json")
    assert response.status_code == 400  # no pack credits
    assert Delivery.objects.count() == 0


def test_bulk_create_of_100_with_webhooks_has_a_query_ceiling(
    client_for, django_assert_max_num_queries
):
    reseller = ResellerFactory()
    hook_for(reseller, url="https://one.example.com/in")
    hook_for(reseller, url="https://two.example.com/in")
    product = ProductFactory()
    PackFactory(owner=reseller, size=100)
    client = client_for(reseller)
    # 200 deliveries are one bulk INSERT (SQLite splits it into a few statements by its limit
    # on query parameters; PostgreSQL sends one), and one outbox row carries them all (one
    # task: tests/webhooks/test_batching.py).
    # The audit trail adds its content type (once per process) and its INSERT (in two
    # batches on SQLite, as the licences' own).
    with django_assert_max_num_queries(18):
        response = client.post(
            "/api/v1/portal/licenses/bulk", {"product_id": product.pk, "count": 100}, format="json"
        )
    assert response.status_code == 201
    assert Delivery.objects.filter(event="license.created").count() == 200
