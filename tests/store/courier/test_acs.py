"""The ACS adapter on recorded exchanges (tests/store/courier/recordings/acs.json): what it
sends, how it reads ACS's answers, and its refusals. No request leaves the machine."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
import requests
import responses
import time_machine
from django.utils import timezone

from store.courier.models import Voucher
from store.courier.providers.acs import split_street
from tests.fixtures.store import error
from tests.store.courier.helpers import COURIER, order_to_ship, order_url, pdf_text

pytestmark = pytest.mark.django_db

RECORDINGS = json.loads((Path(__file__).parent / "recordings" / "acs.json").read_text())
URL = "https://acs.test/ACSRestServices/api/ACSAutoRest"
CREDENTIALS = {
    "api_key": "recorded-api-key-000000",
    "company_id": "company",
    "company_password": "company-pass",
    "user_id": "user",
    "user_password": "user-pass",
    "billing_code": "2\u0391\u0398999999",
}


@pytest.fixture
def acs(shipping_client):
    response = shipping_client.patch(
        f"{COURIER}/settings",
        {"acs": {"enabled": True, "credentials": CREDENTIALS, "sender": {"company": "Emporion"}}},
        format="json",
    )
    assert response.status_code == 200, response.content
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        yield mock


def play(mock, *names):
    for name in names:
        recorded = RECORDINGS[name]
        mock.add(
            responses.POST,
            URL,
            json=recorded["body"],
            status=recorded["status"],
            match=[
                responses.matchers.json_params_matcher(
                    {"ACSAlias": recorded["alias"]}, strict_match=False
                )
            ],
        )


def acs_voucher(client) -> str:
    volos = {"first_name": "A", "last_name": "B", "address_1": "Main 1", "city": "Volos"}
    recipient = {**volos, "postcode": "38221", "country": "GR"}
    response = client.post(f"{COURIER}/acs/create-voucher", {"recipient": recipient}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["number"]


def sent(mock, index: int) -> dict:
    call = mock.calls[index]
    assert call.request.headers["AcsApiKey"] == CREDENTIALS["api_key"]
    return json.loads(call.request.body)


def test_connection_test(acs, shipping_client):
    play(acs, "area_find_by_zip_code")
    body = shipping_client.post(f"{COURIER}/acs/test-connection").json()
    assert body == {"provider": "acs", "ok": True, "message": "ACS accepted the credentials."}
    params = sent(acs, 0)["ACSInputParameters"]
    assert (params["Company_ID"], params["User_Password"], params["Zip_Code"]) == (
        "company",
        "user-pass",
        "10431",
    )


def test_a_voucher_for_an_order_its_label_tracking_and_cancel(acs, orders_client):
    order = order_to_ship(quantity=1, payment_method="cash_on_delivery")
    play(acs, "create_voucher", "print_voucher")
    response = orders_client.post(
        order_url(order, "create-voucher"), {"provider": "acs", "parcels": 2}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["number"], body["shipment"]["carrier"]) == ("7401234567", "ACS Courier")
    params = sent(acs, 0)["ACSInputParameters"]
    assert params["Recipient_Name"] == "Ana Pappas"
    assert (params["Recipient_Address"], params["Recipient_Address_Number"]) == ("Odos Ermou", "12")
    assert (params["Recipient_Zipcode"], params["Item_Quantity"], params["Billing_Code"]) == (
        "10563",
        2,
        "2\u0391\u0398999999",
    )
    assert params["Cod_Ammount"] == float(order.total)
    assert params["Sender"] == "Emporion"
    assert sent(acs, 1)["ACSInputParameters"]["Voucher_No"] == "7401234567"
    shipment_id = body["shipment"]["id"]
    # the label is ACS's own PDF, kept: no further call
    label = orders_client.get(order_url(order, f"label/{shipment_id}"))
    assert label.content == bytes(Voucher.objects.get().label)
    assert "7401234567" in pdf_text(label.content)[1]
    play(acs, "tracking_summary_in_transit", "tracking_details")
    track = orders_client.get(order_url(order, f"track/{shipment_id}")).json()
    assert track["status"] == "in_transit"
    assert [e["description"] for e in track["events"]] == ["PICKUP", "ON DELIVERY"]
    assert track["shipment"]["status"] == "shipped"
    # past pickup ACS is not asked to cancel
    error(
        orders_client.post(order_url(order, f"cancel/{shipment_id}")),
        409,
        "voucher_not_cancellable",
    )
    play(acs, "tracking_summary_delivered", "tracking_details")
    track = orders_client.get(order_url(order, f"track/{shipment_id}")).json()
    assert (track["status"], track["shipment"]["status"]) == ("delivered", "delivered")
    assert track["delivered_at"].startswith("2026-03-03T")
    assert track["order"]["fulfillment_status"] == "fulfilled"


def test_cancel_at_acs(acs, shipping_client):
    play(acs, "create_voucher", "print_voucher", "delete_voucher")
    number = acs_voucher(shipping_client)
    body = shipping_client.post(f"{COURIER}/acs/cancel/{number}").json()
    assert body["status"] == "cancelled"
    assert sent(acs, 2)["ACSAlias"] == "ACS_Delete_Voucher"


def test_acs_refusals_keep_nothing(acs, orders_client):
    order = order_to_ship()
    url = order_url(order, "create-voucher")
    play(acs, "create_voucher_refused")
    body = error(
        orders_client.post(url, {"provider": "acs"}, format="json"), 502, "courier_refused"
    )
    assert "Invalid recipient zip code" in body["message"]
    play(acs, "execution_error")
    body = error(
        orders_client.post(url, {"provider": "acs"}, format="json"), 502, "courier_refused"
    )
    assert "Invalid credentials" in body["message"]
    assert not Voucher.objects.exists()
    assert not order.shipments.exists()


@pytest.mark.parametrize(
    ("kind", "code"),
    [("forbidden", "courier_refused"), ("down", "courier_unavailable"),
     ("html", "courier_unavailable"), ("http500", "courier_unavailable")],
)  # fmt: skip
def test_an_unreachable_or_failing_acs_is_a_502(acs, shipping_client, kind, code):
    if kind == "forbidden":
        play(acs, "forbidden")
    elif kind == "down":
        acs.add(responses.POST, URL, body=requests.ConnectionError("refused"))
    elif kind == "html":
        acs.add(responses.POST, URL, body="<html>maintenance</html>", status=200)
    else:
        acs.add(responses.POST, URL, json={}, status=500)
    error(shipping_client.post(f"{COURIER}/acs/test-connection"), 502, code)


def test_a_voucher_acs_made_but_the_store_refused_is_cancelled_again(acs, orders_client):
    order = order_to_ship()
    from store.orders import services as order_services

    order_services.shipment_create(order_id=order.pk, fields={"tracking_number": "OTHER"})
    play(acs, "create_voucher", "print_voucher", "delete_voucher")
    error(
        orders_client.post(order_url(order, "create-voucher"), {"provider": "acs"}, format="json"),
        400,
        "nothing_to_ship",
    )
    assert sent(acs, 2)["ACSAlias"] == "ACS_Delete_Voucher"
    assert not Voucher.objects.exists()


def test_missing_credentials_are_named(shipping_client):
    shipping_client.patch(
        f"{COURIER}/settings",
        {"acs": {"enabled": True, "credentials": {"api_key": "k"}}},
        format="json",
    )
    with responses.RequestsMock():  # nothing may be sent
        body = error(
            shipping_client.post(
                f"{COURIER}/acs/create-voucher", {"order_id": order_to_ship().pk}, format="json"
            ),
            409,
            "courier_not_configured",
        )
    assert "company_id" in body["message"]
    assert "billing_code" in body["message"]


def test_split_street():
    assert split_street("Odos Ermou 12") == ("Odos Ermou", "12")
    assert split_street("Leoforos Kifisias 120\u0391") == ("Leoforos Kifisias", "120\u0391")
    assert split_street("Plateia") == ("Plateia", "")


def test_tracking_times_without_offset_are_local(acs, shipping_client):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        play(acs, "create_voucher", "print_voucher")
        number = acs_voucher(shipping_client)
    with time_machine.travel(start + timedelta(hours=1), tick=False):
        play(acs, "tracking_summary_in_transit", "tracking_details")
        events = shipping_client.get(f"{COURIER}/acs/track/{number}").json()["events"]
    assert events[0]["at"].startswith("2026-03-02T18:05:00")
    assert events[0]["at"][19:]  # an offset


def test_a_courier_adapter_must_implement_every_operation():
    import pytest

    from store.courier.providers.base import CourierProvider

    class Half(CourierProvider):
        name = "half"

        def test_connection(self) -> str:
            return "ok"

    with pytest.raises(TypeError, match="abstract"):
        Half({})
