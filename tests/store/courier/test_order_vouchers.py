"""An order's courier routes: a voucher makes or updates the shipment; tracking moves the
shipment and the order's fulfilment status; cancelling frees the shipment."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from store.courier.models import Voucher
from store.orders import services as order_services
from store.orders.models import OrderStatusChange, Shipment
from tests.accounts.factories import UserFactory
from tests.fixtures.store import error, grant
from tests.store.courier.helpers import ATHENS, order_to_ship, order_url, pdf_text

pytestmark = pytest.mark.django_db


def create(client, order, **body):
    return client.post(order_url(order, "create-voucher"), body, format="json")


def test_a_voucher_makes_the_shipment_and_prints_a_label(orders_client):
    order = order_to_ship(quantity=3)
    response = create(orders_client, order, parcels=2, weight="2.5", note="Ring twice")
    assert response.status_code == 201, response.content
    body = response.json()
    voucher = Voucher.objects.get()
    assert body["number"] == voucher.number.upper()
    assert body["number"].startswith("SBX")
    assert (body["provider"], body["status"], body["parcels"], body["weight"]) == (
        "sandbox",
        "created",
        2,
        "2.500",
    )
    assert body["recipient"]["city"] == "Athens"
    assert body["reference"] == order.order_number
    assert body["order"] == {
        "id": order.pk,
        "order_number": order.order_number,
        "fulfillment_status": "unfulfilled",
    }
    shipment = Shipment.objects.get(order=order)
    assert body["shipment"] == {
        "id": shipment.pk,
        "status": "pending",
        "carrier": "Sandbox courier",
        "tracking_number": voucher.number,
    }
    assert shipment.items.get().quantity == 3
    label = orders_client.get(order_url(order, f"label/{shipment.pk}"))
    assert label.status_code == 200
    assert label["Content-Type"] == "application/pdf"
    reader, text = pdf_text(label.content)
    assert len(reader.pages) == 2  # a page per parcel
    for expected in (voucher.number, "Ana Pappas", "Odos Ermou 12", "10563 Athens", "2.5 kg",
                     "Parcel 2 of 2", "Emporion Store"):  # fmt: skip
        assert expected in text, expected
    # the provider's route serves the same label
    same = orders_client.get(body["label_url"])
    assert same.status_code == 403  # ec_manage_orders is not ec_manage_shipping


def test_the_weight_and_cash_on_delivery_default_from_the_order(orders_client):
    order = order_to_ship(quantity=2, payment_method="cash_on_delivery")
    body = create(orders_client, order).json()
    assert body["cod_amount"] == str(order.total)
    assert body["weight"] == "1.000"  # no product weight: the courier's default
    assert body["currency"] == order.currency


def test_tracking_moves_the_shipment_and_fulfils_the_order(orders_client):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        order = order_to_ship()
        create(orders_client, order)
    shipment = Shipment.objects.get(order=order)
    url = order_url(order, f"track/{shipment.pk}")

    def track(hours):
        with time_machine.travel(start + timedelta(hours=hours), tick=False):
            response = orders_client.get(url)
        assert response.status_code == 200, response.content
        shipment.refresh_from_db()
        order.refresh_from_db()
        return response.json()

    body = track(1)
    assert (body["status"], len(body["events"]), shipment.status) == ("created", 1, "pending")
    assert order.fulfillment_status == "unfulfilled"
    body = track(13)
    assert (body["status"], len(body["events"]), shipment.status) == ("in_transit", 3, "shipped")
    assert order.fulfillment_status == "fulfilled"
    body = track(31)
    assert (body["status"], shipment.status) == ("delivered", "delivered")
    assert body["events"][-1]["description"] == "Delivered"
    assert shipment.delivered_at == start + timedelta(hours=30)
    assert body["order"]["fulfillment_status"] == "fulfilled"
    history = OrderStatusChange.objects.filter(order=order).count()
    assert track(40)["status"] == "delivered"  # again: nothing more changes
    assert OrderStatusChange.objects.filter(order=order).count() == history


def test_cancelling_frees_the_shipment_for_a_new_voucher(orders_client):
    order = order_to_ship()
    first = create(orders_client, order).json()
    shipment_id = first["shipment"]["id"]
    response = orders_client.post(order_url(order, f"cancel/{shipment_id}"))
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "cancelled"
    assert response.json()["shipment"]["tracking_number"] == ""
    error(orders_client.post(order_url(order, f"cancel/{shipment_id}")), 409, "voucher_cancelled")
    error(orders_client.get(order_url(order, f"label/{shipment_id}")), 409, "voucher_cancelled")
    # a cancelled voucher is answered as kept
    assert orders_client.get(order_url(order, f"track/{shipment_id}")).json()["status"] == (
        "cancelled"
    )
    second = create(orders_client, order).json()
    assert second["shipment"]["id"] == shipment_id  # the same shipment, a new number
    assert second["number"] != first["number"]
    assert Shipment.objects.get().tracking_number == second["number"]
    assert orders_client.get(order_url(order, f"label/{shipment_id}")).status_code == 200


def test_a_collected_voucher_cannot_be_cancelled(orders_client):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        order = order_to_ship()
        shipment_id = create(orders_client, order).json()["shipment"]["id"]
    with time_machine.travel(start + timedelta(hours=3), tick=False):
        orders_client.get(order_url(order, f"track/{shipment_id}"))
        body = error(
            orders_client.post(order_url(order, f"cancel/{shipment_id}")),
            409,
            "voucher_not_cancellable",
        )
    assert "in_transit" in body["message"]
    assert Voucher.objects.get().status == "in_transit"


def test_a_named_shipment_gets_the_voucher(orders_client):
    order = order_to_ship()
    shipment = order_services.shipment_create(
        order_id=order.pk, fields={"status": "pending", "note": "Box A"}
    )
    body = create(orders_client, order, shipment_id=shipment.pk).json()
    assert body["shipment"]["id"] == shipment.pk
    error(create(orders_client, order, shipment_id=shipment.pk), 409, "voucher_exists")
    assert Voucher.objects.count() == 1


def test_refusals_change_nothing(orders_client):
    no_address = order_to_ship(shipping_address={"city": "Athens", "country": "GR"})
    body = error(create(orders_client, no_address), 409, "order_no_shipping_address")
    assert "first_name" in body["message"]
    cancelled = order_to_ship(status="cancelled")
    error(create(orders_client, cancelled), 409, "order_closed")
    error(
        orders_client.post("/rest/ec/v1/orders/999999/courier/create-voucher", {}, format="json"),
        404,
        "order_not_found",
    )
    # every unit is in a shipment that has its own tracking number: nothing left to ship
    shipped = order_to_ship()
    order_services.shipment_create(
        order_id=shipped.pk, fields={"status": "shipped", "tracking_number": "X1"}
    )
    error(create(orders_client, shipped), 400, "nothing_to_ship")
    error(create(orders_client, shipped, provider="acs"), 409, "courier_disabled")
    error(create(orders_client, shipped, provider="nope"), 400, "invalid_param")
    assert not Voucher.objects.exists()
    assert Shipment.objects.count() == 1


def test_another_orders_shipment_is_not_found(orders_client):
    mine, theirs = order_to_ship(), order_to_ship()
    create(orders_client, theirs)
    their_shipment = Shipment.objects.get(order=theirs)
    for tail in ("label", "track"):
        error(
            orders_client.get(order_url(mine, f"{tail}/{their_shipment.pk}")),
            404,
            "shipment_not_found",
        )
    error(
        orders_client.post(order_url(mine, f"cancel/{their_shipment.pk}")),
        404,
        "shipment_not_found",
    )
    # a shipment without a voucher
    bare = order_services.shipment_create(order_id=mine.pk, fields={"status": "pending"})
    error(orders_client.get(order_url(mine, f"label/{bare.pk}")), 404, "voucher_not_found")
    assert Voucher.objects.get().status == "created"


def test_capabilities(shipping_client, anon):
    order = order_to_ship()
    error(create(shipping_client, order), 403)
    error(create(anon, order), 401)


def test_a_browser_session_needs_its_nonce_and_is_answered_in_json(db):
    order = order_to_ship()
    user = grant(UserFactory(), "ec_manage_orders")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    nonce = browser.get("/rest/ec/v1/auth/nonce").json()["nonce"]
    url = order_url(order, "create-voucher")
    error(browser.post(url, "{}", content_type="application/json"), 401, "not_logged_in")
    error(
        browser.post(url, "{}", content_type="application/json", HTTP_X_PLATFORM_NONCE="0" * 32),
        403,
        "invalid_nonce",
    )
    assert not Voucher.objects.exists()
    response = browser.post(url, "{}", content_type="application/json", HTTP_X_PLATFORM_NONCE=nonce)
    assert response.status_code == 201, response.content
    shipment_id = response.json()["shipment"]["id"]
    cancel = order_url(order, f"cancel/{shipment_id}")
    error(browser.post(cancel), 401, "not_logged_in")
    assert browser.post(cancel, HTTP_X_PLATFORM_NONCE=nonce).json()["status"] == "cancelled"


def test_decimal_weight_is_kept_exactly(orders_client):
    order = order_to_ship()
    create(orders_client, order, weight=0.1)
    assert Voucher.objects.get().weight == Decimal("0.100")
    assert ATHENS["city"] == Voucher.objects.get().recipient["city"]
