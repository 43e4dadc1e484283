"""/erp/onboarding/checklist and /erp/portal-settings."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from erp.core import services
from erp.core.models import ErpPortalSettings
from store.inventory.models import StockLevel, Warehouse
from tests.erp.core.helpers import CHECKLIST, PORTAL
from tests.fixtures.store import API, error
from tests.store.orders.factories import stocked

pytestmark = pytest.mark.django_db


def steps(client) -> dict:
    body = client.get(CHECKLIST).json()
    assert body["total"] == len(body["steps"]) == 8
    return {step["key"]: step["done"] for step in body["steps"]}


def test_the_checklist_follows_the_state(
    admin_client_api, business_licence, customer, django_capture_on_commit_callbacks
):
    client = admin_client_api
    stocked("Lamp", 3)
    before = client.get(CHECKLIST).json()
    assert before["done"] == 0 or not before["complete"]
    assert steps(client) == {
        "license_active": False,
        "erp_active": False,
        "warehouses_configured": False,
        "users_assigned": False,
        "inventory_costed": False,
        "data_migrated": False,
        "invoice_series": False,
        "portal_configured": False,
    }
    hint = next(s for s in before["steps"] if s["key"] == "erp_active")["hint"]
    assert hint == "POST /erp/activate"

    services.erp_activate(license_key=business_licence.license_key)
    Warehouse.objects.update(country="GR", address="1 Odos")
    services.erp_user_assign(actor=None, user_id=customer.pk, roles=["erp_warehouse"])
    with django_capture_on_commit_callbacks(execute=True):
        services.inventory_backfill_start()
    with django_capture_on_commit_callbacks(execute=True):
        services.migrate_data_start()
    services.portal_settings_update(fields={"enabled": True, "customer_documents": ["invoices"]})
    done = steps(client)
    assert all(v for k, v in done.items() if k != "invoice_series")
    series = next(s for s in client.get(CHECKLIST).json()["steps"] if s["key"] == "invoice_series")
    # Read from the app registry: done once the invoicing app is installed and has a series.
    assert series["done"] is False
    assert StockLevel.objects.filter(unit_cost__isnull=True).count() == 0


def test_the_portal_settings_are_read_and_changed(admin_client_api, admin_user):
    client = admin_client_api
    body = client.get(PORTAL).json()
    assert body == {
        "enabled": False,
        "customer_documents": [],
        "suppliers_enabled": False,
        "supplier_documents": [],
        "welcome_text": "",
        "brand_colour": "#1f6feb",
        "updated_at": None,
        "updated_by": None,
    }
    assert not ErpPortalSettings.objects.exists()  # a read writes nothing
    response = client.patch(
        PORTAL,
        {
            "enabled": True,
            "customer_documents": ["orders", "invoices", "orders"],
            "welcome_text": "Hello\nthere",
            "brand_colour": "#ABCDEF",
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["customer_documents"] == ["invoices", "orders"]
    assert (body["brand_colour"], body["welcome_text"], body["updated_by"]) == (
        "#abcdef",
        "Hello\nthere",
        admin_user.email,
    )
    assert (
        client.patch(
            PORTAL,
            {"suppliers_enabled": True, "supplier_documents": ["goods_received"]},
            format="json",
        ).status_code
        == 200
    )
    assert client.get(PORTAL).json()["enabled"] is True


@pytest.mark.parametrize(
    "body",
    [
        {"enabled": True},  # no document to show
        {"suppliers_enabled": True},
        {"customer_documents": ["payslips"]},
        {"customer_documents": "invoices"},
        {"customer_documents": [None]},
        {"supplier_documents": ["invoices"]},
        {"enabled": "yes"},
        {"enabled": 1},
        {"brand_colour": "blue"},
        {"brand_colour": "#12345"},
        {"brand_colour": "#1234567"},
        {"brand_colour": 123456},
        {"welcome_text": "x" * 2001},
        {"welcome_text": "a\x00b"},
        {"welcome_text": "bell\x07"},
        {"welcome_text": ["a"]},
    ],
)
def test_portal_refusals_change_nothing(admin_client_api, body):
    error(admin_client_api.patch(PORTAL, body, format="json"), 400)
    assert not ErpPortalSettings.objects.exists()


@pytest.mark.parametrize(
    "raw",
    [
        '{"welcome_text": "\\ud800"}',
        "[1, 2]",
        '"text"',
        "{" * 5000 + "}" * 5000,
        '{"customer_documents": {"a": 1}}',
        "{not json",
    ],
)
def test_hostile_bodies_are_refused_without_a_server_error(admin_client_api, raw):
    response = admin_client_api.generic("PATCH", PORTAL, raw, content_type="application/json")
    assert 400 <= response.status_code < 500, response.content
    assert set(response.json()) == {"code", "message", "data"}
    for path in (f"{API}/erp/roles", f"{API}/erp/users", f"{API}/erp/migrate-data/start"):
        response = admin_client_api.generic("POST", path, raw, content_type="application/json")
        assert response.status_code < 500, (path, response.content)
        response.json()


def test_unsafe_methods_need_the_nonce_in_a_browser(admin_user, erp_on):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(admin_user)
    body = json.dumps({"enabled": False, "welcome_text": "Hi"})
    for method, path, data in (
        ("patch", PORTAL, body),
        ("post", f"{API}/erp/migrate-data/start", "{}"),
        ("post", f"{API}/erp/inventory/backfill/start", "{}"),
        ("post", f"{API}/erp/roles", json.dumps({"name": "X", "capabilities": ["ec_manage_hr"]})),
        ("post", f"{API}/erp/users", json.dumps({"user_id": admin_user.pk, "roles": ["erp_hr"]})),
        ("delete", f"{API}/erp/roles/erp_hr", None),
    ):
        call = getattr(browser, method)
        response = call(path, data, content_type="application/json") if data else call(path)
        error(response, 401, "not_logged_in")
    assert not ErpPortalSettings.objects.exists()
    nonce = browser.get(f"{API}/auth/nonce").json()["nonce"]
    response = browser.patch(
        PORTAL, body, content_type="application/json", HTTP_X_PLATFORM_NONCE=nonce
    )
    assert response.status_code == 200, response.content
    assert response.json()["welcome_text"] == "Hi"
