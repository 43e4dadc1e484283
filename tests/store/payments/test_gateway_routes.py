"""/payment/methods (public), /payment/gateways (staff) and /payment/gateway-config."""

from __future__ import annotations

import pytest
import responses
from rest_framework.test import APIClient

from store.payments.models import GatewayConfig
from tests.fixtures.store import API, error
from tests.store.payments.helpers import replay

pytestmark = pytest.mark.django_db


def ids(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [m["id"] for m in response.json()["payment_methods"]]


def test_methods_follow_country_total_and_order(online, anon, payments_staff):
    url = f"{API}/payment/methods"
    assert ids(anon.get(url)) == [
        "sandbox_card",
        "bank_transfer",
        "cash_on_delivery",
        "stripe",
        "paypal",
        "bank_redirect",
    ]
    patch = payments_staff.patch(
        f"{API}/payment/gateways/paypal",
        {"order": 0, "settings": {"countries": ["de", "AT"], "min_total": "10.00"}},
        format="json",
    )
    assert patch.status_code == 200, patch.content
    assert patch.json()["settings"]["countries"] == ["DE", "AT"]
    assert "paypal" not in ids(anon.get(url, {"country": "FR", "total": "50"}))
    assert "paypal" not in ids(anon.get(url, {"country": "DE", "total": "5"}))
    assert ids(anon.get(url, {"country": "DE", "total": "50"}))[0] == "paypal"
    # The checkout's list is the same rule.
    checkout = anon.get(f"{API}/checkout/payment-methods").json()["payment_methods"]
    assert [m["id"] for m in checkout] == [m for m in ids(anon.get(url)) if m]
    for bad in ({"country": "FRA"}, {"total": "-1"}, {"total": "x"}, {"country": "\x00\x00"}):
        error(anon.get(url, bad), 400)


def test_gateways_list_detail_and_update(online, payments_staff, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        body = payments_staff.get(f"{API}/payment/gateways").json()
    assert len(body["gateways"]) == 6
    for n in range(3):
        GatewayConfig.objects.create(
            gateway=["stripe", "paypal", "bank_redirect"][n], provider="sandbox", active=True
        )
    with django_assert_max_num_queries(12):
        assert len(payments_staff.get(f"{API}/payment/gateways").json()["gateways"]) == 6
    url = f"{API}/payment/gateways/bank_transfer"
    put = payments_staff.put(
        url,
        {"title": "Wire", "enabled": False, "settings": {"iban": "DE89370400440532013000"}},
        format="json",
    )
    assert put.status_code == 200, put.content
    got = payments_staff.get(url).json()
    assert (got["title"], got["enabled"], got["settings"]["iban"]) == (
        "Wire",
        False,
        "DE89370400440532013000",
    )
    error(
        payments_staff.patch(
            f"{API}/payment/gateways/stripe", {"settings": {"iban": "x"}}, format="json"
        ),
        400,
        "unknown_setting",
    )
    error(payments_staff.get(f"{API}/payment/gateways/nope"), 404, "payment_gateway_not_found")
    for bad in ([], {"enabled": "yes"}, {"order": 2**40}, {"title": "x" * 101}, {"settings": []}):
        error(payments_staff.patch(url, bad, format="json"), 400)


def test_gateway_routes_need_the_capability(online, anon, customer_client):
    error(anon.get(f"{API}/payment/gateways"), 401)
    error(customer_client.get(f"{API}/payment/gateways"), 403)
    error(customer_client.patch(f"{API}/payment/gateways/stripe", {}, format="json"), 403)
    error(customer_client.get(f"{API}/payment/gateway-config"), 403)


@responses.activate
def test_gateway_config_crud_masks_and_encrypts(online, payments_staff):
    url = f"{API}/payment/gateway-config"
    secret = "sk_live_51HxyzABCDEFabcd"
    replay(responses.mock, "stripe", "balance")  # the check before it is active: passed
    created = payments_staff.post(
        url,
        {
            "gateway": "stripe",
            "provider": "stripe",
            "mode": "live",
            "credentials": {"secret_key": secret, "publishable_key": "pk_live_1234"},
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["credentials"]["secret_key"] == "sk_live_…abcd"
    assert secret not in created.content.decode()
    row = GatewayConfig.objects.get(pk=body["id"])
    assert secret.encode() not in bytes(row.credentials_encrypted)
    detail = f"{url}/{row.pk}"
    # Credentials merge: the secret stays when only the webhook secret is sent.
    patched = payments_staff.patch(
        detail, {"credentials": {"webhook_secret": "whsec_abcdefgh1234"}}, format="json"
    )
    assert patched.json()["credentials"]["secret_key"] == "sk_live_…abcd"
    assert patched.json()["credentials"]["webhook_secret"] == "whsec_…1234"
    # A second active config makes the first inactive.
    other = payments_staff.post(url, {"gateway": "stripe", "provider": "sandbox"}, format="json")
    assert other.status_code == 201
    assert other.json()["credentials"]["webhook_secret"].startswith("sbxwh_…")
    assert payments_staff.get(detail).json()["active"] is False
    listed = payments_staff.get(url, {"gateway": "stripe", "per_page": 1})
    assert (listed.json()["total"], listed.json()["total_pages"]) == (2, 2)
    tested = payments_staff.post(f"{url}/{other.json()['id']}/test")
    assert tested.status_code == 200
    assert tested.json()["ok"] is True
    assert payments_staff.get(f"{url}/{other.json()['id']}").json()["last_check"]["ok"] is True
    assert payments_staff.delete(detail).status_code == 204
    error(payments_staff.get(detail), 404, "gateway_config_not_found")
    error(payments_staff.delete(detail), 404)


def test_gateway_config_refusals(online, payments_staff, django_assert_max_num_queries):
    url = f"{API}/payment/gateway-config"
    for bad in (
        {"gateway": "bank_transfer", "provider": "sandbox"},
        {"gateway": "bank_redirect", "provider": "stripe"},
        {"gateway": "stripe", "provider": "stripe", "credentials": {"client_id": "x"}},
        {"gateway": "stripe", "provider": "stripe", "credentials": {"secret_key": "\x00"}},
        {"gateway": "stripe", "provider": "stripe", "credentials": []},
        {"gateway": "stripe"},
        [],
    ):
        error(payments_staff.post(url, bad, format="json"), 400)
    for _ in range(5):
        GatewayConfig.objects.create(gateway="paypal", provider="paypal", active=False)
    with django_assert_max_num_queries(8):
        assert payments_staff.get(url).json()["total"] == 5
    error(payments_staff.get(url, {"per_page": 0}), 400)


def test_gateway_config_list_pages(online, payments_staff):
    """The answer's keys and counts in their order; a page past the end is empty, with the
    true total."""
    url = f"{API}/payment/gateway-config"
    made = [
        GatewayConfig.objects.create(gateway="paypal", provider="paypal", active=False).pk
        for _ in range(5)
    ]
    GatewayConfig.objects.create(gateway="stripe", provider="stripe", active=False)
    pages = [
        payments_staff.get(url, {"gateway": "paypal", "per_page": 2, "page": page}).json()
        for page in (1, 3, 4)
    ]
    assert [list(page) for page in pages] == [
        ["configs", "total", "page", "per_page", "total_pages"]
    ] * 3
    assert [[row["id"] for row in page["configs"]] for page in pages] == [made[:2], made[4:], []]
    assert [(p["total"], p["page"], p["per_page"], p["total_pages"]) for p in pages] == [
        (5, 1, 2, 3),
        (5, 3, 2, 3),
        (5, 4, 2, 3),
    ]


def test_a_staff_post_with_a_csrf_checking_client(online, payments_staff):
    csrf = APIClient(enforce_csrf_checks=True)
    csrf.credentials(HTTP_AUTHORIZATION=payments_staff._credentials["HTTP_AUTHORIZATION"])
    response = csrf.post(
        f"{API}/payment/gateway-config",
        {"gateway": "paypal", "provider": "sandbox"},
        format="json",
    )
    assert response.status_code == 201
    assert response["Content-Type"].startswith("application/json")
    anon = APIClient(enforce_csrf_checks=True)
    error(anon.post(f"{API}/payment/gateway-config", {}, format="json"), 401)
