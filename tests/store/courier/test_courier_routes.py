"""The /courier routes: connection tests, vouchers by number, settings, the pickup list."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone

from common.models import OutboxMessage
from store.courier import services
from store.courier.models import CourierAccount, Voucher
from tests.fixtures.store import error
from tests.outbox import broker_down
from tests.store.courier.helpers import ATHENS, COURIER, order_to_ship, pdf_text

pytestmark = pytest.mark.django_db


def make(client, provider="sandbox", **body):
    body.setdefault("recipient", ATHENS)
    return client.post(f"{COURIER}/{provider}/create-voucher", body, format="json")


def test_unknown_provider_is_not_found(shipping_client):
    for response in (
        shipping_client.post(f"{COURIER}/dhl/test-connection"),
        make(shipping_client, "dhl"),
        shipping_client.get(f"{COURIER}/dhl/label/SBX1"),
        shipping_client.post(f"{COURIER}/dhl/cancel/SBX1"),
        shipping_client.get(f"{COURIER}/dhl/track/SBX1"),
    ):
        error(response, 404, "courier_provider_not_found")
    error(shipping_client.get(f"{COURIER}/pickup-list?provider=dhl"), 400, "invalid_param")
    error(shipping_client.get(f"{COURIER}/sandbox/label/NOPE"), 404, "voucher_not_found")


def test_connection(shipping_client, settings):
    body = shipping_client.post(f"{COURIER}/sandbox/test-connection").json()
    assert body["ok"] is True
    assert body["provider"] == "sandbox"
    body = error(
        shipping_client.post(f"{COURIER}/acs/test-connection"), 409, "courier_not_configured"
    )
    assert "api_key" in body["message"]
    settings.COURIER_SANDBOX_ALLOWED = False
    error(shipping_client.post(f"{COURIER}/sandbox/test-connection"), 409, "courier_not_configured")
    error(make(shipping_client), 409, "courier_not_configured")
    assert not Voucher.objects.exists()


def test_a_voucher_for_an_address_alone(shipping_client):
    response = make(shipping_client, parcels=3, cod_amount="12.50", reference="R-1")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["order"], body["shipment"], body["parcels"], body["cod_amount"]) == (
        None,
        None,
        3,
        "12.50",
    )
    number = body["number"]
    label = shipping_client.get(f"{COURIER}/sandbox/label/{number}")
    assert label["Content-Type"] == "application/pdf"
    reader, text = pdf_text(label.content)
    assert len(reader.pages) == 3
    assert "COD: 12.50 EUR" in text
    assert "Ref: R-1" in text
    assert number in text
    track = shipping_client.get(f"{COURIER}/sandbox/track/{number}").json()
    assert track["status"] == "created"
    assert track["tracked_at"]
    cancelled = shipping_client.post(f"{COURIER}/sandbox/cancel/{number}")
    assert cancelled.json()["status"] == "cancelled"
    error(shipping_client.post(f"{COURIER}/sandbox/cancel/{number}"), 409, "voucher_cancelled")
    error(shipping_client.get(f"{COURIER}/sandbox/label/{number}"), 409, "voucher_cancelled")


def test_a_voucher_for_an_order_through_the_provider_route(shipping_client):
    order = order_to_ship()
    body = make(shipping_client, order_id=order.pk, recipient=None).json()
    assert body["order"]["id"] == order.pk
    assert body["shipment"]["tracking_number"] == body["number"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"recipient": None}, "recipient"),
        ({"recipient": {"city": "Athens"}}, "recipient.first_name"),
        ({"recipient": {**ATHENS, "country": "XX"}}, "recipient.country"),
        ({"parcels": 0}, "parcels"),
        ({"parcels": 10**30}, "parcels"),
        ({"weight": "-1"}, "weight"),
        ({"weight": True}, "weight"),
        ({"cod_amount": "1.005"}, "cod_amount"),
        ({"reference": "a\x00b"}, "reference"),
        ({"note": "x" * 300}, "note"),
        ({"pickup_date": "2001-01-01"}, "pickup_date"),
        ({"shipment_id": 5}, "shipment_id"),
        ({"order_id": "1; drop table"}, "order_id"),
    ],
)
def test_bad_bodies_are_named(shipping_client, body, field):
    response = make(shipping_client, **body)
    found = error(response, 400)
    assert field in found["data"].get("params", {field: ""}) or field in found["message"], found
    assert not Voucher.objects.exists()


def test_hostile_input_is_refused_without_a_server_error(shipping_client):
    deep = {}
    for _ in range(5000):
        deep = {"a": deep}
    url = f"{COURIER}/sandbox/create-voucher"
    for raw in (
        '{"recipient": ' + '{"a":' * 5000 + "1" + "}" * 5000 + "}",
        '{"note": "\\ud800", "recipient": {"first_name": "\\ud800"}}',
        "[1, 2, 3]",
        '{"recipient": [1, 2]}',
        '{"parcels": 1e400}',
        "\x00",
    ):
        response = shipping_client.generic("POST", url, raw, content_type="application/json")
        assert 400 <= response.status_code < 500, (raw[:40], response.status_code)
        assert response.json()["code"]
    for tail in ("label/" + "9" * 5000, "track/%00", "cancel/%F0%9F%92%A9"):
        method = shipping_client.post if tail.startswith("cancel") else shipping_client.get
        assert method(f"{COURIER}/sandbox/{tail}").status_code == 404
    patch = shipping_client.patch(f"{COURIER}/settings", {"acs": [1]}, format="json")
    assert patch.status_code == 400
    assert not Voucher.objects.exists()


def test_idempotency_key_replays_the_voucher(shipping_client):
    headers = {"HTTP_IDEMPOTENCY_KEY": "voucher-key-1"}
    first = shipping_client.post(
        f"{COURIER}/sandbox/create-voucher", {"recipient": ATHENS}, format="json", **headers
    )
    again = shipping_client.post(
        f"{COURIER}/sandbox/create-voucher", {"recipient": ATHENS}, format="json", **headers
    )
    assert first.status_code == again.status_code == 201
    assert first.json()["number"] == again.json()["number"]
    assert Voucher.objects.count() == 1


# --- Settings ------------------------------------------------------------------------------------


def test_settings_keep_credentials_encrypted_and_masked(shipping_client):
    body = shipping_client.get(f"{COURIER}/settings").json()
    by_name = {row["provider"]: row for row in body["providers"]}
    assert by_name["sandbox"]["enabled"] is True
    assert by_name["sandbox"]["credentials"] == {}
    assert by_name["acs"]["enabled"] is False
    assert by_name["acs"]["configured"] is False
    secret = "acs-api-key-0123456789abcdef"
    response = shipping_client.patch(
        f"{COURIER}/settings",
        {
            "acs": {
                "enabled": True,
                "default_weight": "0.5",
                "sender": {"company": "Shop", "city": "Patra", "country": "gr"},
                "credentials": {"api_key": secret, "company_id": "c1:acs", "user_id": "u"},
            }
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    acs = {row["provider"]: row for row in response.json()["providers"]}["acs"]
    assert acs["credentials"]["api_key"] == "****cdef"
    assert acs["credentials"]["company_id"] == "****"
    assert acs["credentials"]["billing_code"] == ""
    assert (acs["enabled"], acs["default_weight"], acs["sender"]["country"]) == (
        True,
        "0.500",
        "GR",
    )
    assert secret not in response.content.decode()
    stored = bytes(CourierAccount.objects.get(provider="acs").credentials)
    assert secret.encode() not in stored
    # a Fernet token is URL-safe base64, where ":" never appears: only the plain value could
    assert b"c1:acs" not in stored
    # the masked value sent back changes nothing; "" removes one
    shipping_client.put(
        f"{COURIER}/settings",
        {"acs": {"credentials": {"api_key": "****cdef", "user_id": ""}}},
        format="json",
    )
    from store.courier import secrets, selectors

    kept = secrets.unseal(selectors.account_of("acs").credentials)
    assert kept == {"api_key": secret, "company_id": "c1:acs"}
    error(
        shipping_client.patch(
            f"{COURIER}/settings", {"acs": {"sender": {"country": "XX"}}}, format="json"
        ),
        400,
    )
    error(
        shipping_client.patch(
            f"{COURIER}/settings", {"sandbox": {"enabled": "yes"}}, format="json"
        ),
        400,
    )
    shipping_client.patch(f"{COURIER}/settings", {"sandbox": {"enabled": False}}, format="json")
    error(make(shipping_client), 409, "courier_disabled")


def test_settings_need_the_shipping_capability(orders_client):
    error(orders_client.get(f"{COURIER}/settings"), 403)


# --- Pickup list ---------------------------------------------------------------------------------


def test_the_pickup_list_of_a_day(shipping_client, django_assert_max_num_queries):
    made = [make(shipping_client, parcels=2, weight="1.5").json()["number"] for _ in range(3)]
    shipping_client.post(f"{COURIER}/sandbox/cancel/{made[0]}")
    later = make(shipping_client, pickup_date=str(timezone.localdate() + timedelta(days=1)))
    assert later.status_code == 201
    body = shipping_client.get(f"{COURIER}/pickup-list?provider=sandbox&per_page=1").json()
    assert body["totals"] == {"vouchers": 2, "parcels": 4, "weight": "3.000", "cod_amount": "0.00"}
    assert (body["total"], body["total_pages"], len(body["vouchers"])) == (2, 2, 1)
    assert body["vouchers"][0]["number"] == made[1]
    assert body["vouchers"][0]["recipient_name"] == "Ana Pappas"
    pdf = shipping_client.get(f"{COURIER}/pickup-list?provider=sandbox&output=pdf")
    assert pdf["Content-Type"] == "application/pdf"
    _reader, text = pdf_text(pdf.content)
    assert made[1] in text
    assert made[2] in text
    assert made[0] not in text
    assert "Vouchers: 2" in text
    # the number of queries does not grow with the rows
    for _ in range(20):
        make(shipping_client)
    for output in ("json", "pdf"):
        with django_assert_max_num_queries(8):
            response = shipping_client.get(
                f"{COURIER}/pickup-list?provider=sandbox&per_page=200&output={output}"
            )
        assert response.status_code == 200
    empty = shipping_client.get(f"{COURIER}/pickup-list?provider=acs&date=2030-01-01").json()
    assert empty["totals"]["vouchers"] == 0
    assert empty["vouchers"] == []


# --- Tracking in the background ------------------------------------------------------------------


def test_open_vouchers_are_tracked_by_the_task(shipping_client):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        order = order_to_ship()
        make(shipping_client, order_id=order.pk, recipient=None)
        number = make(shipping_client).json()["number"]
        shipping_client.post(f"{COURIER}/sandbox/cancel/{number}")
    with time_machine.travel(start + timedelta(hours=31), tick=False):
        assert services.refresh_tracking() == 1  # the cancelled one is left alone
        assert services.refresh_tracking() == 0  # tracked just now
        call_command("courier_refresh_tracking")
    voucher = Voucher.objects.get(order=order)
    assert voucher.status == "delivered"
    order.refresh_from_db()
    assert order.fulfillment_status == "fulfilled"
    assert order.shipments.get().status == "delivered"


def test_the_command_hands_the_refresh_to_the_worker_while_the_broker_is_down(
    django_capture_on_commit_callbacks,
):
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        call_command("courier_refresh_tracking", "--enqueue")
    waiting = OutboxMessage.objects.filter(task="store_courier.refresh_tracking", sent_at=None)
    assert waiting.count() == 1


@pytest.mark.parametrize("weight", ["", None])
def test_an_empty_default_weight_is_a_400_and_changes_nothing(shipping_client, weight):
    body = {"sandbox": {"enabled": False, "default_weight": weight}}
    response = shipping_client.patch(f"{COURIER}/settings", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid_param"
    providers = shipping_client.get(f"{COURIER}/settings").json()["providers"]
    sandbox = {row["provider"]: row for row in providers}["sandbox"]
    assert sandbox["enabled"] is True  # the refused write changed nothing
