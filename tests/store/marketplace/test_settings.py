"""/marketplace/settings: per marketplace, secrets write-only and sealed."""

from __future__ import annotations

import pytest
from django.test import Client

from store.marketplace.models import MarketplaceAccount
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error, grant
from tests.store.marketplace.helpers import SECRET, deliver, skroutz_event, staff

pytestmark = pytest.mark.django_db

SETTINGS = f"{API}/marketplace/settings"


def by_name(body) -> dict:
    return {entry["marketplace"]: entry for entry in body["marketplaces"]}


def test_the_defaults():
    body = by_name(staff().get(SETTINGS).json())
    assert set(body) == {"skroutz", "generic"}
    skroutz = body["skroutz"]
    assert skroutz["enabled"] is False
    assert skroutz["webhook_secret_set"] is False
    assert skroutz["credentials"] == {"api_token": False}
    assert skroutz["order_status"] == "processing"
    assert skroutz["webhook_path"] == "/rest/ec/v1/marketplace/webhook/skroutz"


def test_secrets_are_write_only_and_sealed(lamp):
    client = staff()
    change = {
        "skroutz": {
            "enabled": True,
            "webhook_secret": SECRET,
            "credentials": {"api_token": "sk-live-token-123456"},
            "auto_acknowledge": True,
        }
    }
    answer = client.patch(SETTINGS, change, format="json")
    assert answer.status_code == 200, answer.content
    assert SECRET not in answer.content.decode()
    assert "sk-live-token" not in answer.content.decode()
    skroutz = by_name(answer.json())["skroutz"]
    assert skroutz["webhook_secret_set"] is True
    assert skroutz["credentials"] == {"api_token": True}
    assert skroutz["configured"] is True
    assert skroutz["auto_acknowledge"] is True
    row = MarketplaceAccount.objects.get()
    assert SECRET.encode() not in bytes(row.webhook_secret)
    assert b"sk-live-token" not in bytes(row.credentials)
    # The secret set here verifies the webhooks.
    assert deliver(skroutz_event()).status_code == 200
    # Only what is sent changes; PUT is the same.
    assert client.put(SETTINGS, {"skroutz": {"order_status": "on_hold"}}, format="json").json()
    row.refresh_from_db()
    assert (row.order_status, row.auto_acknowledge, row.enabled) == ("on_hold", True, True)


def test_enabling_needs_a_webhook_secret():
    client = staff()
    error(client.patch(SETTINGS, {"generic": {"enabled": True}}, format="json"), 400,
          "webhook_secret_required")  # fmt: skip
    both = {"generic": {"enabled": True, "webhook_secret": ""}}
    error(client.patch(SETTINGS, both, format="json"), 400, "webhook_secret_required")
    assert not MarketplaceAccount.objects.exists()
    ok = {"generic": {"enabled": True, "webhook_secret": SECRET}}
    assert client.patch(SETTINGS, ok, format="json").status_code == 200
    # Removing the secret of an enabled marketplace is refused too.
    error(client.patch(SETTINGS, {"generic": {"webhook_secret": ""}}, format="json"), 400,
          "webhook_secret_required")  # fmt: skip


@pytest.mark.parametrize(
    "body",
    [
        {"amazon": {"enabled": False}},
        {"skroutz": {"webhook_secret": "short"}},
        {"skroutz": {"credentials": {"password": "x"}}},
        {"skroutz": {"order_status": "cancelled"}},
        {"skroutz": {"enabled": "yes"}},
        {"skroutz": {"unknown": 1}},
        {"skroutz": "on"},
        {"skroutz": {"credentials": ["api_token"]}},
        {"skroutz": {"credentials": {f"k{n}": "v" for n in range(20)}}},
        {"skroutz": {"webhook_secret": "x" * 201}},
        [1, 2],
    ],
)
def test_bad_settings_change_nothing(body):
    error(staff().patch(SETTINGS, body, format="json"), 400)
    assert not MarketplaceAccount.objects.exists()


def test_a_credential_sent_empty_is_removed():
    client = staff()
    client.patch(
        SETTINGS,
        {"generic": {"credentials": {"api_url": "https://x.example", "api_token": "t" * 20}}},
        format="json",
    )
    answer = client.patch(SETTINGS, {"generic": {"credentials": {"api_token": ""}}}, format="json")
    assert by_name(answer.json())["generic"]["credentials"] == {"api_url": True, "api_token": False}


def test_who_may_read_and_change_them(anon, customer_client):
    error(anon.get(SETTINGS), 401)
    error(customer_client.get(SETTINGS), 403, "insufficient_capability")
    orders = Client()
    orders.force_login(grant(UserFactory(), "ec_manage_orders"))
    nonce = orders.get(f"{API}/auth/nonce").json()["nonce"]
    error(orders.get(SETTINGS, HTTP_X_PLATFORM_NONCE=nonce), 403, "insufficient_capability")
    change = {"skroutz": {"order_status": "pending"}}
    error(
        orders.patch(
            SETTINGS, change, content_type="application/json", HTTP_X_PLATFORM_NONCE=nonce
        ),
        403,
    )
    assert not MarketplaceAccount.objects.exists()
    admin = Client(enforce_csrf_checks=True)
    admin.force_login(grant(UserFactory(), "manage_options"))
    nonce = admin.get(f"{API}/auth/nonce").json()["nonce"]
    error(admin.patch(SETTINGS, change, content_type="application/json"), 401, "not_logged_in")
    answer = admin.patch(
        SETTINGS, change, content_type="application/json", HTTP_X_PLATFORM_NONCE=nonce
    )
    assert answer.status_code == 200, answer.content
    assert MarketplaceAccount.objects.get().order_status == "pending"


def test_the_service_refuses_a_terminal_import_status():
    from common.errors import ServiceError
    from store.marketplace import services

    with pytest.raises(ServiceError) as refused:
        services.settings_update(changes={"skroutz": {"order_status": "cancelled"}})
    assert "skroutz.order_status" in refused.value.errors
    assert not MarketplaceAccount.objects.exists()
