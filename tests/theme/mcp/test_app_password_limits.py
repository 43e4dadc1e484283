"""The AI tool endpoint's application passwords behind the log-in limits: a wrong one counts
as a failed log-in in the rows the store and the portal share, and a lock answers 429 with the
protocol's error (`login_locked`, Retry-After), even to the right password. Through Django's
in-process client: the refusals never reach the SDK."""

from __future__ import annotations

import base64
import itertools
import json
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import LoginLimit
from accounts.services import app_password_create
from tests.accounts.factories import PASSWORD, UserFactory
from tests.fixtures.store import API, grant
from theme.mcp.services import RATE_LIMITED

pytestmark = pytest.mark.django_db

MCP = "/rest/theme/v1/mcp"
WRONG = "abcd efgh ijkl mnop qrst uvwx"
HEADERS = {
    "HTTP_ACCEPT": "application/json, text/event-stream",
    "HTTP_MCP_PROTOCOL_VERSION": "2025-06-18",
}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
_addresses = (f"10.3.{n // 250}.{n % 250 + 1}" for n in itertools.count())


def basic(email: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{email}:{password}".encode()).decode()


def mcp(email: str, password: str, address: str | None = None):
    return Client().post(
        MCP,
        json.dumps(LIST_TOOLS),
        content_type="application/json",
        HTTP_AUTHORIZATION=basic(email, password),
        REMOTE_ADDR=address or next(_addresses),
        **HEADERS,
    )


def locked(response) -> int:
    """Assert the endpoint's lock answer (a JSON-RPC error); its Retry-After in seconds."""
    assert response.status_code == 429, response.content
    error = response.json()["error"]
    assert error["code"] == RATE_LIMITED
    assert error["data"]["code"] == "login_locked"
    assert error["data"]["status"] == 429
    assert error["data"]["retry_after"] == int(response["Retry-After"])
    assert "Too many failed log-ins" in error["message"]
    return int(response["Retry-After"])


def refused(response) -> None:
    assert response.status_code == 401, response.content
    assert response.json()["error"]["data"]["code"] == "not_authenticated"


@pytest.fixture
def admin_password():
    admin = grant(UserFactory(email="mcp-admin@example.com"), "manage_options")
    _record, raw = app_password_create(user=admin, name="assistant")
    return admin, raw


def test_wrong_passwords_lock_the_account_then_the_lock_ends(admin_password, settings):
    admin, raw = admin_password
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for _ in range(settings.LOGIN_FAILURE_LIMIT):
            refused(mcp(admin.email, WRONG))
        assert locked(mcp(admin.email, raw)) == 15 * 60
        # The guess during the lock was not counted: the lock holds, no failure added.
        assert LoginLimit.objects.get(kind="account").failures == 0
        clock.move_to(start + timedelta(minutes=15, seconds=1))
        response = mcp(admin.email, raw)
        assert response.status_code == 200, response.content
        assert response.json()["result"]["tools"]


def test_wrong_passwords_from_one_address_lock_it(admin_password, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 5
    admin, raw = admin_password
    here = "192.0.2.20"
    for n in range(5):
        refused(mcp(f"guess{n}@example.com", WRONG, here))
    assert locked(mcp(admin.email, raw, here)) == 15 * 60
    assert mcp(admin.email, raw).status_code == 200


def test_one_request_counts_once(admin_password):
    admin, _raw = admin_password
    refused(mcp(admin.email, WRONG, "192.0.2.21"))
    assert LoginLimit.objects.get(kind="account").failures == 1
    assert LoginLimit.objects.get(kind="address", subject="192.0.2.21").failures == 1


def test_the_lock_is_shared_with_the_store_and_the_portal(admin_password):
    admin, raw = admin_password
    for _ in range(4):
        refused(mcp(admin.email, WRONG))
    for _ in range(3):
        response = APIClient().get(f"{API}/orders", HTTP_AUTHORIZATION=basic(admin.email, WRONG))
        assert response.status_code == 401
    for _ in range(3):
        response = Client().post(
            "/api/v1/portal/auth/login",
            {"email": admin.email, "password": "Not-The-Password-1"},
            content_type="application/json",
            REMOTE_ADDR=next(_addresses),
        )
        assert response.status_code == 401
    assert locked(mcp(admin.email, raw)) == 15 * 60
    store = APIClient().get(f"{API}/orders", HTTP_AUTHORIZATION=basic(admin.email, raw))
    assert (store.status_code, store.json()["code"]) == (429, "login_locked")
    portal = Client().post(
        "/api/v1/portal/auth/login",
        {"email": admin.email, "password": PASSWORD},
        content_type="application/json",
        REMOTE_ADDR=next(_addresses),
    )
    assert (portal.status_code, portal.json()["code"]) == (429, "login_locked")
