"""The vouchers' admin (read-only, cancel through the services), labels without DejaVu, and the
courier routes while Redis (cache and broker) is down."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from common import pdf as common_pdf
from store.courier import labels
from store.courier.models import Voucher
from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.outages.conftest import redis_cache, redis_server, timed  # noqa: F401
from tests.store.courier.helpers import ATHENS, COURIER, order_to_ship, order_url, pdf_text

pytestmark = pytest.mark.django_db


def test_the_admin_lists_vouchers_and_cancels_through_the_services(admin_client, shipping_client):
    numbers = [
        shipping_client.post(
            f"{COURIER}/sandbox/create-voucher", {"recipient": ATHENS}, format="json"
        ).json()["number"]
        for _ in range(2)
    ]
    changelist = reverse("admin:store_courier_voucher_changelist")
    assert admin_client.get(changelist).status_code == 200
    voucher = Voucher.objects.get(number=numbers[0])
    page = admin_client.get(reverse("admin:store_courier_voucher_change", args=[voucher.pk]))
    assert page.status_code == 200
    assert numbers[0] in page.content.decode()
    assert admin_client.get(reverse("admin:store_courier_voucher_add")).status_code == 403
    assert (
        admin_client.get(reverse("admin:store_courier_courieraccount_changelist")).status_code
        == 200
    )
    ids = list(Voucher.objects.values_list("pk", flat=True))
    response = admin_client.post(
        changelist, {"action": "cancel", "_selected_action": ids}, follow=True
    )
    assert response.status_code == 200
    assert set(Voucher.objects.values_list("status", flat=True)) == {"cancelled"}
    again = admin_client.post(
        changelist, {"action": "cancel", "_selected_action": ids}, follow=True
    )
    assert "already cancelled" in again.content.decode()


def test_a_label_without_dejavu_still_prints(monkeypatch, settings):
    common_pdf.font.cache_clear()
    monkeypatch.setattr(common_pdf, "FONT_PATHS", ())
    settings.PDF_FONT = ""
    try:
        pdf = labels.label_pdf(
            {
                "provider_title": "Sandbox courier",
                "number": "SBX0000000001",
                "sender": {"company": "Κατάστημα"},
                "recipient": {**ATHENS, "first_name": "Άννα"},
                "weight": "1.000",
                "parcels": 1,
                "cod_amount": "0",
                "currency": "EUR",
                "reference": "",
                "pickup_date": "2026-03-02",
            }
        )
    finally:
        labels._font.cache_clear()
    _reader, text = pdf_text(pdf)
    assert "SBX0000000001" in text
    assert "Pappas" in text


def test_greek_text_prints_with_dejavu():
    labels._font.cache_clear()
    if labels._font() == "Helvetica":
        pytest.skip("DejaVu Sans is not installed")
    pdf = labels.label_pdf(
        {
            "provider_title": "ACS Courier",
            "number": "7401234567",
            "sender": {"company": "Emporion"},
            "recipient": {**ATHENS, "first_name": "Άννα", "city": "Αθήνα"},
            "weight": "0.5",
            "parcels": 1,
            "cod_amount": "10.00",
            "currency": "EUR",
            "reference": "",
            "pickup_date": "2026-03-02",
        }
    )
    assert "Αθήνα" in pdf_text(pdf)[1]


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_courier_routes_answer_while_redis_is_out(redis_cache, kind):  # noqa: F811
    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION=basic_auth(
            grant(UserFactory(), "ec_manage_shipping", "ec_manage_orders")
        )
    )
    order = order_to_ship()
    redis_cache.stop() if kind == "stopped" else redis_cache.freeze()
    with timed() as elapsed:
        made = client.post(order_url(order, "create-voucher"), {}, format="json")
        assert made.status_code == 201, made.content
        shipment_id = made.json()["shipment"]["id"]
        assert client.get(order_url(order, f"label/{shipment_id}")).status_code == 200
        assert client.get(order_url(order, f"track/{shipment_id}")).status_code == 200
        assert client.get(f"{COURIER}/pickup-list?provider=sandbox").json()["total"] == 1
        assert client.get(f"{COURIER}/settings").status_code == 200
        assert client.post(order_url(order, f"cancel/{shipment_id}")).status_code == 200
    assert elapsed() < 12  # each call bounded by the cache's breaker, never hanging
    order.refresh_from_db()
    assert order.shipments.get().tracking_number == ""


def test_the_beat_refreshes_the_open_vouchers_tracking():
    from config.celery import app

    tasks = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert "store_courier.refresh_tracking" in tasks
