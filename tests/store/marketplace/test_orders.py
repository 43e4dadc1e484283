"""/marketplace/orders: the list, an order, the import and its retry, and the actions."""

from __future__ import annotations

import pytest
import responses
from django.test import Client

from store.marketplace import services
from store.marketplace.models import MarketplaceCall, MarketplaceEvent, MarketplaceOrder
from store.orders.models import Order, Shipment
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error, grant
from tests.store.catalog.factories import AttributeFactory, TermFactory, make_variant
from tests.store.marketplace.helpers import (
    deliver,
    enable,
    generic_event,
    skroutz_event,
    skroutz_order,
    staff,
)
from tests.store.orders.factories import on_commit, stock_of, stocked

pytestmark = pytest.mark.django_db

ORDERS = f"{API}/marketplace/orders"


def imported(lamp, code="191029-5130474", marketplace="skroutz") -> MarketplaceOrder:
    if marketplace == "skroutz":
        deliver(skroutz_event(order=skroutz_order(code=code)))
    else:
        deliver(generic_event(f"evt-{code}", code=code), "generic")
    return MarketplaceOrder.objects.get(marketplace=marketplace, code=code)


# --- The import's rules -------------------------------------------------------------------------


def test_an_unknown_sku_fails_the_import_with_nothing_created_and_retry_imports_it(lamp):
    enable()
    deliver(skroutz_event(order=skroutz_order(lines=[("LAMP-1", 1, 10.4), ("NOPE-9", 1, 5)])))
    row = MarketplaceOrder.objects.get()
    assert row.import_status == "failed"
    assert row.failure_code == "unknown_sku"
    assert "NOPE-9" in row.failure_message
    assert row.order is None
    assert not Order.objects.exists()
    assert stock_of(lamp) == 10  # nothing half-made
    assert MarketplaceEvent.objects.get().outcome == "import_failed"
    client = staff()
    listed = client.get(ORDERS, {"import_status": "failed"}).json()
    assert listed["orders"][0]["failure"]["code"] == "unknown_sku"
    # Still failing: recorded again, answered with the new attempt.
    again = client.post(f"{ORDERS}/{row.pk}/import")
    assert again.status_code == 200
    assert again.json()["import_status"] == "failed"
    assert again.json()["import_attempts"] == 2
    stocked(title="Nope", sku="NOPE-9", stock=3, price="5.00")
    fixed = client.post(f"{ORDERS}/{row.pk}/import")
    assert fixed.status_code == 200, fixed.content
    assert fixed.json()["import_status"] == "imported"
    assert fixed.json()["failure"] is None
    assert stock_of(lamp) == 9
    error(client.post(f"{ORDERS}/{row.pk}/import"), 409, "marketplace_order_imported")
    assert Order.objects.count() == 1


def test_too_little_stock_fails_the_import(lamp):
    enable()
    deliver(skroutz_event(order=skroutz_order(lines=[("LAMP-1", 11, 10.4)])))
    row = MarketplaceOrder.objects.get()
    assert (row.import_status, row.failure_code) == ("failed", "insufficient_stock")
    assert not Order.objects.exists()
    assert stock_of(lamp) == 10


def test_lines_match_a_variant_sku_and_a_product_id(lamp):
    enable()
    colour = AttributeFactory(name="Colour")
    shirt = stocked(title="Shirt", type="variable", stock=0, sku="SHIRT")
    red = make_variant(
        shirt, TermFactory(attribute=colour, name="Red"), sku="SHIRT-RED", regular_price="9.00",
        stock_quantity=5, manage_stock=True,
    )  # fmt: skip
    deliver(
        skroutz_event(order=skroutz_order(lines=[("SHIRT-RED", 2, 9.0), (str(lamp.pk), 1, 10.4)]))
    )
    row = MarketplaceOrder.objects.get()
    assert row.import_status == "imported", row.failure_message
    items = {item.sku: item for item in row.order.items.all()}
    assert items["SHIRT-RED"].variant_id == red.pk
    assert items[str(lamp.pk)].product_id == lamp.pk
    assert stock_of(red) == 3
    assert stock_of(lamp) == 9


def test_the_settings_choose_the_status_and_shipping_method(lamp):
    enable(order_status="on_hold", shipping_method="skroutz_courier")
    deliver(skroutz_event())
    order = Order.objects.get()
    assert order.status == "on_hold"
    assert order.shipping_method == "skroutz_courier"
    assert order.payment_method == "marketplace_skroutz"


def test_auto_acknowledge_accepts_at_the_marketplace_once(lamp):
    enable(auto_acknowledge=True)
    deliver(skroutz_event())
    row = MarketplaceOrder.objects.get()
    assert row.acknowledged_at is not None
    call = MarketplaceCall.objects.get()
    assert call.action == "acknowledge"
    assert call.request["path"] == "/merchants/ecommerce/orders/191029-5130474/accept"
    assert call.request["body"] == {
        "number_of_parcels": 1,
        "pickup_location": "YlpD0KROym",
        "pickup_window": 2,
    }


def test_a_cancelled_order_seen_first_is_not_imported(lamp):
    enable()
    deliver(skroutz_event("order_updated", order=skroutz_order(state="cancelled")))
    assert MarketplaceEvent.objects.get().outcome == "ignored"
    assert not Order.objects.exists()
    row = MarketplaceOrder.objects.get()
    assert (row.failure_code, row.state) == ("cancelled_before_import", "cancelled")
    error(staff().post(f"{ORDERS}/{row.pk}/import"), 409, "marketplace_order_closed")


def test_a_cancellation_the_store_refuses_is_recorded(lamp):
    enable()
    row = imported(lamp)
    from store.orders import services as order_services

    order_services.order_status_set(order_id=row.order_id, status="refunded")
    deliver(
        skroutz_event(
            "order_updated", order=skroutz_order(state="cancelled"), time_="2026-11-25T00:00:00Z"
        )
    )
    assert MarketplaceEvent.objects.order_by("id").last().outcome == "cancel_refused"
    assert Order.objects.get().status == "refunded"


# --- The list and an order ---------------------------------------------------------------------


def test_the_list_filters_searches_and_pages(lamp):
    enable()
    enable("generic")
    for n in range(3):
        imported(lamp, code=f"S-{n}")
    imported(lamp, code="G-1", marketplace="generic")
    client = staff()
    body = client.get(ORDERS, {"per_page": 2}).json()
    assert set(body) == {"orders", "total", "page", "per_page", "total_pages"}
    assert (body["total"], body["total_pages"], len(body["orders"])) == (4, 2, 2)
    assert body["orders"][0]["code"] == "G-1"  # newest first
    assert client.get(ORDERS, {"marketplace": "generic"}).json()["total"] == 1
    assert client.get(ORDERS, {"search": "s-1"}).json()["orders"][0]["code"] == "S-1"
    number = MarketplaceOrder.objects.get(code="S-2").order.order_number
    assert client.get(ORDERS, {"search": number}).json()["orders"][0]["code"] == "S-2"
    assert client.get(ORDERS, {"state": "open"}).json()["total"] == 4
    assert client.get(ORDERS, {"state": "accepted"}).json()["total"] == 0
    assert client.get(ORDERS, {"date_from": "2000-01-01"}).json()["total"] == 4
    assert client.get(ORDERS, {"date_to": "2000-01-01"}).json()["total"] == 0
    assert client.get(ORDERS, {"per_page": 1000}).json()["per_page"] == 100
    error(client.get(ORDERS, {"marketplace": "ebay"}), 400, "invalid_param")
    error(client.get(ORDERS, {"date_from": "2026-02-02", "date_to": "2026-01-01"}), 400)
    error(client.get(ORDERS, {"page": "0"}), 400, "invalid_param")


def test_the_list_query_count_does_not_grow_with_rows(lamp, django_assert_max_num_queries):
    enable()
    imported(lamp, code="S-0")
    client = staff()
    client.get(ORDERS)  # warm the caches
    with django_assert_max_num_queries(8):
        assert client.get(ORDERS).json()["total"] == 1
    for n in range(1, 6):
        imported(lamp, code=f"S-{n}")
    with django_assert_max_num_queries(8):
        assert client.get(ORDERS).json()["total"] == 6


def test_an_order_with_its_events(lamp):
    enable()
    row = imported(lamp)
    body = staff().get(f"{ORDERS}/{row.pk}").json()
    assert body["code"] == row.code
    assert body["order"]["id"] == row.order_id
    assert body["order"]["status"] == "processing"
    assert body["lines"] == [
        {"sku": "LAMP-1", "quantity": 2, "unit_price": "10.40", "title": "Item LAMP-1"}
    ]
    assert body["total"] == "20.80"
    assert body["shipping_address"]["city"] == "Αθήνα"
    assert [e["outcome"] for e in body["events"]] == ["imported"]
    error(staff().get(f"{ORDERS}/999999"), 404, "marketplace_order_not_found")


# --- Actions ------------------------------------------------------------------------------------


def test_acknowledge_is_idempotent(lamp):
    enable()
    row = imported(lamp)
    client = staff()
    first = client.post(f"{ORDERS}/{row.pk}/acknowledge", {}, format="json")
    assert first.status_code == 200, first.content
    assert first.json()["state"] == "accepted"
    assert first.json()["acknowledged_at"]
    second = client.post(f"{ORDERS}/{row.pk}/acknowledge", {"number_of_parcels": 2}, format="json")
    assert second.json()["acknowledged_at"] == first.json()["acknowledged_at"]
    assert MarketplaceCall.objects.filter(action="acknowledge").count() == 1
    error(client.post(f"{ORDERS}/{row.pk}/reject", {"reason": "x"}, format="json"), 409,
          "marketplace_order_acknowledged")  # fmt: skip


def test_acknowledge_takes_the_options_sent(lamp):
    enable()
    row = imported(lamp)
    body = {"number_of_parcels": 2, "pickup_location": "onpL6DXG4l", "pickup_window": 4}
    staff().post(f"{ORDERS}/{row.pk}/acknowledge", body, format="json")
    assert MarketplaceCall.objects.get().request["body"] == body


def test_actions_refuse_an_order_not_imported(lamp):
    enable()
    deliver(skroutz_event(order=skroutz_order(lines=[("NOPE", 1, 1)])))
    row = MarketplaceOrder.objects.get()
    client = staff()
    error(client.post(f"{ORDERS}/{row.pk}/acknowledge", {}, format="json"), 409,
          "marketplace_order_not_imported")  # fmt: skip
    ship = {"tracking_number": "T1", "carrier": "ACS"}
    error(client.post(f"{ORDERS}/{row.pk}/ship", ship, format="json"), 409,
          "marketplace_order_not_imported")  # fmt: skip
    # A failed import can still be rejected at the marketplace.
    rejected = client.post(f"{ORDERS}/{row.pk}/reject", {"reason": "Out of stock"}, format="json")
    assert rejected.status_code == 200, rejected.content
    assert rejected.json()["state"] == "rejected"
    error(client.post(f"{ORDERS}/{row.pk}/import"), 409, "marketplace_order_closed")
    assert MarketplaceCall.objects.get().request["body"] == {
        "rejection_reason_other": "Out of stock"
    }


def test_reject_cancels_the_store_order_and_gives_the_stock_back(lamp):
    enable()
    row = imported(lamp)
    client = staff()
    with on_commit():  # the stock comes back in the worker, after the commit
        answer = client.post(f"{ORDERS}/{row.pk}/reject", {"reason": "No stock"}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["order"]["status"] == "cancelled"
    assert answer.json()["reject_reason"] == "No stock"
    assert stock_of(lamp) == 10
    order = row.order
    order.refresh_from_db()
    assert order.amount_paid == order.amount_refunded == order.total  # the marketplace refunds
    again = client.post(f"{ORDERS}/{row.pk}/reject", {"reason": "Other"}, format="json")
    assert again.json()["reject_reason"] == "No stock"
    assert MarketplaceCall.objects.filter(action="reject").count() == 1
    error(client.post(f"{ORDERS}/{row.pk}/acknowledge", {}, format="json"), 409,
          "marketplace_order_closed")  # fmt: skip


def test_ship_records_the_shipment_and_calls_the_generic_marketplace(lamp):
    enable("generic")
    row = imported(lamp, code="G-7", marketplace="generic")
    client = staff()
    body = {"tracking_number": "ACS123", "carrier": "ACS", "tracking_url": "https://acs.gr/t"}
    answer = client.post(f"{ORDERS}/{row.pk}/ship", body, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["tracking_number"] == "ACS123"
    assert answer.json()["order"]["fulfillment_status"] == "fulfilled"
    shipment = Shipment.objects.get(order_id=row.order_id)
    assert (shipment.tracking_number, shipment.carrier) == ("ACS123", "ACS")
    call = MarketplaceCall.objects.get(action="ship")
    assert call.request == {
        "path": "/orders/G-7/ship",
        "body": {"tracking_number": "ACS123", "carrier": "ACS"},
    }
    # Again with the same number: the first answer; another number: 409.
    assert client.post(f"{ORDERS}/{row.pk}/ship", body, format="json").status_code == 200
    assert Shipment.objects.count() == 1
    other = {"tracking_number": "ACS999", "carrier": "ACS"}
    error(client.post(f"{ORDERS}/{row.pk}/ship", other, format="json"), 409,
          "marketplace_order_shipped")  # fmt: skip


def test_skroutz_ships_with_its_own_voucher(lamp):
    enable()
    row = imported(lamp)
    ship = {"tracking_number": "SKR1", "carrier": "Skroutz Last Mile"}
    assert staff().post(f"{ORDERS}/{row.pk}/ship", ship, format="json").status_code == 200
    assert not MarketplaceCall.objects.filter(action="ship").exists()
    assert Shipment.objects.filter(order_id=row.order_id).exists()


@pytest.mark.parametrize(
    ("action", "body"),
    [
        ("acknowledge", {"number_of_parcels": 0}),
        ("acknowledge", {"unknown": 1}),
        ("acknowledge", {"pickup_window": "2"}),
        ("reject", {}),
        ("reject", {"reason": 5}),
        ("reject", {"reason": "x" * 501}),
        ("ship", {"carrier": "ACS"}),
        ("ship", {"tracking_number": "T", "carrier": "ACS", "tracking_url": "javascript:x"}),
        ("ship", {"tracking_number": ["T"], "carrier": "ACS"}),
    ],
)
def test_action_bodies_are_validated(lamp, action, body):
    enable()
    row = imported(lamp)
    error(staff().post(f"{ORDERS}/{row.pk}/{action}", body, format="json"), 400)
    assert not MarketplaceCall.objects.exists()


@responses.activate
def test_the_live_client_calls_the_marketplace_and_a_failure_is_502(lamp, settings):
    settings.MARKETPLACE_LIVE_API = True
    enable("generic", credentials={"api_url": "https://mp.example.com/api", "api_token": "tok"})
    row = imported(lamp, code="G-9", marketplace="generic")
    responses.add("POST", "https://mp.example.com/api/orders/G-9/acknowledge", status=503)
    client = staff()
    error(client.post(f"{ORDERS}/{row.pk}/acknowledge", {}, format="json"), 502,
          "marketplace_unavailable")  # fmt: skip
    row.refresh_from_db()
    assert row.acknowledged_at is None
    responses.replace("POST", "https://mp.example.com/api/orders/G-9/acknowledge", json={})
    assert client.post(f"{ORDERS}/{row.pk}/acknowledge", {}, format="json").status_code == 200
    assert responses.calls[-1].request.headers["Authorization"] == "Bearer tok"
    assert not MarketplaceCall.objects.get().sandbox


def test_the_live_client_needs_credentials(lamp, settings):
    settings.MARKETPLACE_LIVE_API = True
    enable()
    row = imported(lamp)
    error(staff().post(f"{ORDERS}/{row.pk}/acknowledge", {}, format="json"), 409,
          "marketplace_not_configured")  # fmt: skip


# --- Access ------------------------------------------------------------------------------------


def test_staff_routes_refuse_the_others(lamp, anon, customer_client):
    enable()
    row = imported(lamp)
    for url in (ORDERS, f"{ORDERS}/{row.pk}"):
        error(anon.get(url), 401)
        error(customer_client.get(url), 403, "insufficient_capability")
    for action in ("acknowledge", "reject", "ship", "import"):
        error(customer_client.post(f"{ORDERS}/{row.pk}/{action}", {}, format="json"), 403)
    other = Client()
    other.force_login(grant(UserFactory(), "ec_manage_orders"))
    error(other.get(ORDERS), 401)  # a session needs its nonce
    admin = Client()
    admin.force_login(grant(UserFactory(), "manage_options"))
    nonce = admin.get(f"{API}/auth/nonce").json()["nonce"]
    assert admin.get(ORDERS, HTTP_X_PLATFORM_NONCE=nonce).status_code == 200
    assert MarketplaceCall.objects.count() == 0


def test_a_browser_session_needs_its_nonce_for_an_action(lamp):
    enable()
    row = imported(lamp)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(grant(UserFactory(), "ec_manage_marketplace"))
    nonce = browser.get(f"{API}/auth/nonce").json()["nonce"]
    url = f"{ORDERS}/{row.pk}/acknowledge"
    error(browser.post(url, "{}", content_type="application/json"), 401, "not_logged_in")
    error(browser.post(url, "{}", content_type="application/json", HTTP_X_PLATFORM_NONCE="0" * 32),
          403, "invalid_nonce")  # fmt: skip
    assert not MarketplaceCall.objects.exists()
    answer = browser.post(url, "{}", content_type="application/json", HTTP_X_PLATFORM_NONCE=nonce)
    assert answer.status_code == 200, answer.content


def test_the_admin_retry_action_calls_the_service(lamp, admin_client):
    enable()
    deliver(skroutz_event(order=skroutz_order(lines=[("NOPE", 1, 1)])))
    row = MarketplaceOrder.objects.get()
    assert admin_client.get("/admin/store_marketplace/marketplaceorder/").status_code == 200
    assert admin_client.get("/admin/store_marketplace/marketplaceevent/").status_code == 200
    assert (
        admin_client.get(f"/admin/store_marketplace/marketplaceorder/{row.pk}/change/").status_code
        == 200
    )
    stocked(title="Nope", sku="NOPE", stock=2, price="1.00")
    answer = admin_client.post(
        "/admin/store_marketplace/marketplaceorder/",
        {"action": "retry_import", "_selected_action": [row.pk]},
    )
    assert answer.status_code == 302
    row.refresh_from_db()
    assert row.import_status == "imported"
    assert row.order.source == "marketplace"


def test_the_sweep_processes_events_left_pending(lamp):
    enable()
    from store.marketplace.models import EventStatus

    event = MarketplaceEvent.objects.create(
        marketplace="skroutz",
        event_id="lost",
        type="new_order",
        payload=skroutz_event(),
    )
    MarketplaceEvent.objects.filter(pk=event.pk).update(
        received_at=event.received_at.replace(year=2020)
    )
    assert services.process_pending() == 1
    event.refresh_from_db()
    assert (event.status, event.outcome) == (EventStatus.PROCESSED, "imported")
    assert services.process_pending() == 0
    assert stock_of(lamp) == 8


def test_the_beat_runs_the_sweep():
    from config.celery import app

    tasks = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert "store_marketplace.process_pending" in tasks


def test_a_failing_event_is_recorded_failed_and_retried(lamp, monkeypatch):
    enable()
    from store.marketplace.models import EventStatus

    event = MarketplaceEvent.objects.create(
        marketplace="skroutz", event_id="boom", type="new_order", payload=skroutz_event()
    )

    def explode(row):
        raise RuntimeError("database hiccup")

    monkeypatch.setattr(services, "_apply", explode)
    with pytest.raises(RuntimeError):
        services.event_process(event_pk=event.pk)
    event.refresh_from_db()
    assert (event.status, event.attempts) == (EventStatus.FAILED, 1)
    assert "database hiccup" in event.error
    monkeypatch.undo()
    assert services.process_pending() == 1
    event.refresh_from_db()
    assert (event.status, event.outcome) == (EventStatus.PROCESSED, "imported")
