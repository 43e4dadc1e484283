"""The Business-tier licence gate (erp.core.gate) and /erp/status, /erp/activate,
/erp/deactivate."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory, force_authenticate

from erp.core.models import ErpSettings
from erp.core.views import ERPView
from licensing.models import Tier
from licensing.services.lifecycle import license_revoke
from store.common.capabilities import manage
from tests.erp.conftest import store_licence
from tests.fixtures.store import API, basic_auth, error

pytestmark = pytest.mark.django_db


class GatedView(ERPView):
    """A stand-in ERP route (the ERP apps' routes all subclass ERPView)."""

    access = {"*": manage("invoicing")}

    def get(self, request):
        return Response({"ok": True})

    def post(self, request):
        return Response({"ok": True})


def gated(user, method="get"):
    request = getattr(APIRequestFactory(), method)("/rest/ec/v1/invoices", {}, format="json")
    force_authenticate(request, user=user)
    return GatedView.as_view()(request)


def status_of(client) -> dict:
    response = client.get(f"{API}/erp/status")
    assert response.status_code == 200, response.content
    return response.json()


def test_an_unlicensed_store_gets_403_on_every_erp_route(admin_user):
    response = gated(admin_user)
    assert response.status_code == 403
    assert response.data == {
        "code": "erp_not_active",
        "message": "The ERP is not active: POST /erp/activate to turn it on.",
        "data": {"status": 403},
    }


def test_activating_under_a_business_licence_opens_the_erp(
    admin_client_api, admin_user, business_licence
):
    assert status_of(admin_client_api)["available"] is False
    response = admin_client_api.post(
        f"{API}/erp/activate", {"license_key": business_licence.license_key}, format="json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["active"], body["licensed"], body["available"], body["reason"]) == (
        True,
        True,
        True,
        "ok",
    )
    assert body["license"]["tier"] == "business"
    assert body["license"]["key"] == "…" + business_licence.license_key[-4:]  # never in full
    assert body["activated_by"] == admin_user.email
    assert gated(admin_user).status_code == 200


@pytest.mark.parametrize(
    ("licence_kwargs", "reason"),
    [({"tier": Tier.STARTER}, "not_business"), ({"expires_in": -1}, "expired")],
)
def test_a_licence_that_cannot_run_the_erp_is_refused_and_changes_nothing(
    admin_client_api, licence_kwargs, reason
):
    kwargs = dict(licence_kwargs)
    if kwargs.pop("expires_in", None):
        kwargs["expires_at"] = timezone.now() - timedelta(days=1)
    licence = store_licence(**kwargs)
    response = admin_client_api.post(
        f"{API}/erp/activate", {"license_key": licence.license_key}, format="json"
    )
    error(response, 409, "erp_license_required")
    assert not ErpSettings.objects.filter(active=True).exists()
    assert status_of(admin_client_api)["reason"] == "not_active"


@pytest.mark.parametrize(
    "raw",
    [
        '{"license_key": "EMP-AAAA-BBBB-CCCC-DDDD-EEEE"}',
        '{"license_key": ["x"]}',
        '{"license_key": "a\\u0000b"}',
        '{"license_key": "\\ud800"}',
        '{"license_key": "' + "x" * 65 + '"}',
        '{"license_key": ' + "[" * 5000 + "]" * 5000 + "}",
        "[]",
        "{",
    ],
)
def test_a_bad_key_is_a_400_and_changes_nothing(admin_client_api, raw):
    response = admin_client_api.generic(
        "POST", f"{API}/erp/activate", raw, content_type="application/json"
    )
    assert response.status_code in (400, 422), response.content
    assert response.json()["data"]["status"] == response.status_code
    assert not ErpSettings.objects.filter(active=True).exists()


def test_activating_with_no_key_configured_is_a_400(admin_client_api):
    error(admin_client_api.post(f"{API}/erp/activate", {}, format="json"), 400, "invalid_param")


def test_a_revoked_licence_closes_the_erp_at_once(admin_user, erp_on):
    assert gated(admin_user).status_code == 200  # the open verdict is now cached
    license_revoke(user=erp_on.owner, license_id=erp_on.pk)
    response = gated(admin_user)
    assert (response.status_code, response.data["code"]) == (403, "erp_license_required")
    assert "revoked" in response.data["message"]


def test_an_expired_licence_closes_the_erp_when_it_expires(admin_user, erp_on):
    assert gated(admin_user).status_code == 200
    with time_machine.travel(erp_on.expires_at + timedelta(seconds=1)):
        response = gated(admin_user)
    assert (response.status_code, response.data["code"]) == (403, "erp_license_required")
    assert "expired" in response.data["message"]


def test_deactivating_closes_the_erp_and_activating_again_reopens_it(
    admin_client_api, admin_user, erp_on
):
    response = admin_client_api.post(f"{API}/erp/deactivate", {}, format="json")
    assert response.status_code == 200
    assert (response.json()["active"], response.json()["licensed"]) == (False, True)
    assert gated(admin_user).data["code"] == "erp_not_active"
    assert admin_client_api.post(f"{API}/erp/activate", {}, format="json").status_code == 200
    assert gated(admin_user).status_code == 200


def test_the_setting_names_the_stores_licence_before_any_activation(
    settings, admin_user, business_licence
):
    settings.ERP_LICENSE_KEY = business_licence.license_key
    assert gated(admin_user).status_code == 200
    settings.ERP_LICENSE_KEY = store_licence(tier=Tier.STARTER).license_key
    from erp.core import gate

    gate.forget()
    assert gated(admin_user).data["code"] == "erp_license_required"


def test_credentials_and_capability_come_before_the_gate(manager, erp_on):
    assert gated(manager).data["code"] == "insufficient_capability"
    request = APIRequestFactory().get("/rest/ec/v1/invoices")
    assert GatedView.as_view()(request).status_code == 401


def test_the_config_routes_are_for_administrators(manager_client, anon):
    for method, path in [("get", "status"), ("post", "activate"), ("post", "deactivate")]:
        error(getattr(manager_client, method)(f"{API}/erp/{path}"), 403)
        error(getattr(anon, method)(f"{API}/erp/{path}"), 401)


def test_unsafe_methods_answer_json_with_csrf_checks_on(admin_user, business_licence):
    browser = Client(enforce_csrf_checks=True)
    response = browser.post(
        f"{API}/erp/activate",
        {"license_key": business_licence.license_key},
        content_type="application/json",
        HTTP_AUTHORIZATION=basic_auth(admin_user),
    )
    assert response.status_code == 200, response.content
    browser.force_login(admin_user)
    # The session cookie without the nonce header is no credential (JSON, never the HTML
    # CSRF page), and the ERP stays on.
    response = browser.post(f"{API}/erp/deactivate", {}, content_type="application/json")
    assert response.status_code in (401, 403)
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] in ("not_logged_in", "invalid_nonce")
    assert ErpSettings.objects.get().active is True
