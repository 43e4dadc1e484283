"""POST /marketplace/webhook/{marketplace}: signature, replay, refusals, hostile bodies."""

from __future__ import annotations

import json
import time

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from common.models import OutboxMessage
from store.marketplace.models import EventStatus, MarketplaceEvent, MarketplaceOrder
from store.marketplace.providers.base import sign
from store.orders.models import Order
from tests.fixtures.store import error
from tests.store.marketplace.helpers import (
    SECRET,
    WEBHOOK,
    deliver,
    enable,
    generic_event,
    skroutz_event,
    skroutz_order,
)
from tests.store.orders.factories import stock_of

pytestmark = pytest.mark.django_db


def nothing_recorded() -> None:
    assert not MarketplaceEvent.objects.exists()
    assert not MarketplaceOrder.objects.exists()
    assert not Order.objects.exists()


def test_a_skroutz_new_order_becomes_a_store_order_with_its_stock(lamp):
    enable()
    answer = deliver(skroutz_event())
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["received"] is True
    assert body["replayed"] is False
    assert body["event_id"] == "new_order:191029-5130474:2026-11-24T09:00:00+02:00"
    event = MarketplaceEvent.objects.get()
    assert (event.status, event.outcome) == (EventStatus.PROCESSED, "imported")
    row = MarketplaceOrder.objects.get()
    order = row.order
    assert (row.import_status, row.state, row.code) == ("imported", "open", "191029-5130474")
    assert order.source == "marketplace"
    assert order.status == "processing"
    assert str(order.total) == "20.80"
    assert order.shipping_address["city"] == "Αθήνα"
    assert order.shipping_address["postcode"] == "10564"
    assert order.customer_note == "Παράδοση στο γραφείο"
    assert order.items.get().sku == "LAMP-1"
    assert stock_of(lamp) == 8
    # The marketplace collected the buyer's money: the order is paid, by the marketplace.
    assert (order.payment_status, str(order.amount_paid)) == ("paid", "20.80")
    payment = order.payments.get()
    assert (payment.kind, payment.method, payment.transaction_id) == (
        "payment",
        "marketplace_skroutz",
        "191029-5130474",
    )


def test_a_replay_answers_the_first_outcome_and_changes_nothing(lamp):
    enable()
    deliver(skroutz_event())
    again = deliver(skroutz_event())
    assert again.status_code == 200
    body = again.json()
    assert body["replayed"] is True
    assert (body["status"], body["outcome"]) == ("processed", "imported")
    assert MarketplaceEvent.objects.count() == 1
    assert Order.objects.count() == 1
    assert stock_of(lamp) == 8


def test_the_same_order_under_another_event_id_is_a_duplicate(lamp):
    enable()
    deliver(skroutz_event())
    other = deliver(skroutz_event(time_="2026-11-24T09:05:00+02:00"))
    assert other.json()["replayed"] is False
    assert MarketplaceEvent.objects.order_by("id").last().outcome == "duplicate"
    assert Order.objects.count() == 1
    assert stock_of(lamp) == 8


def test_an_event_id_header_names_the_event(lamp):
    enable()
    deliver(skroutz_event(), headers={"X-Marketplace-Event-Id": "sk-1"})
    assert MarketplaceEvent.objects.get().event_id == "sk-1"


def test_a_cancellation_cancels_the_store_order_and_gives_the_stock_back(lamp):
    enable()
    deliver(skroutz_event())
    order = Order.objects.get()
    cancelled = skroutz_event(
        "order_updated",
        order=skroutz_order(state="cancelled"),
        time_="2026-11-24T10:00:00+02:00",
    )
    cancelled["changes"] = {"state": {"old": "open", "new": "cancelled"}}
    assert deliver(cancelled).status_code == 200
    order.refresh_from_db()
    assert order.status == "cancelled"
    assert stock_of(lamp) == 10
    # What the marketplace collected it gives back: the order shows it refunded.
    assert (str(order.amount_paid), str(order.amount_refunded)) == ("20.80", "20.80")
    assert order.payments.filter(kind="refund", method="marketplace_skroutz").count() == 1
    row = MarketplaceOrder.objects.get()
    assert row.state == "cancelled"
    assert MarketplaceEvent.objects.order_by("id").last().outcome == "cancelled"
    # The same cancellation again (another delivery) changes nothing more.
    deliver(cancelled, headers={"X-Marketplace-Event-Id": "again"})
    assert MarketplaceEvent.objects.order_by("id").last().outcome == "duplicate"
    assert stock_of(lamp) == 10
    assert order.payments.filter(kind="refund").count() == 1


def test_an_update_that_does_not_cancel_keeps_the_order(lamp):
    enable()
    deliver(skroutz_event())
    deliver(
        skroutz_event(
            "order_updated",
            order=skroutz_order(state="accepted"),
            time_="2026-11-24T11:00:00+02:00",
        )
    )
    assert MarketplaceEvent.objects.order_by("id").last().outcome == "updated"
    assert MarketplaceOrder.objects.get().state == "accepted"
    assert Order.objects.get().status == "processing"


def test_an_update_of_an_order_never_seen_imports_it(lamp):
    enable()
    deliver(skroutz_event("order_updated", order=skroutz_order(state="accepted")))
    assert MarketplaceOrder.objects.get().import_status == "imported"
    assert stock_of(lamp) == 8


def test_an_unknown_event_type_is_recorded_and_ignored(lamp):
    enable()
    answer = deliver({"event_type": "order_returned", "event_time": "2026-11-24T09:00:00Z"})
    assert answer.status_code == 200
    assert MarketplaceEvent.objects.get().outcome == "ignored"
    assert not Order.objects.exists()


def test_an_invoice_makes_the_billing_address_the_company(lamp):
    enable()
    order = skroutz_order()
    order["invoice"] = True
    order["invoice_details"] = {
        "company": "ACME AE",
        "vat_number": "094014201",
        "address": {"street_name": "Σταδίου", "street_number": "1", "zip": "10562",
                    "city": "Αθήνα"},
    }  # fmt: skip
    deliver(skroutz_event(order=order))
    stored = Order.objects.get()
    assert stored.billing_address["company"] == "ACME AE"
    assert stored.billing_address["postcode"] == "10562"
    assert stored.shipping_address["postcode"] == "10564"


def test_the_generic_marketplace(lamp):
    enable("generic")
    answer = deliver(generic_event(), "generic")
    assert answer.status_code == 200, answer.content
    order = MarketplaceOrder.objects.get().order
    assert order.billing_address["email"] == "ada@example.com"
    assert order.customer is not None
    assert str(order.shipping_total) == "3.50"
    assert str(order.total) == "16.40"
    deliver(generic_event("evt_2", "order.cancelled"), "generic")
    order.refresh_from_db()
    assert order.status == "cancelled"


# --- Refusals ---------------------------------------------------------------------------------


def test_an_unknown_or_disabled_marketplace_is_404(lamp):
    error(deliver(skroutz_event(), "amazon"), 404, "marketplace_not_found")
    error(deliver(skroutz_event()), 404, "marketplace_not_found")  # never enabled
    enable()
    from store.marketplace import services

    services.settings_update(changes={"skroutz": {"enabled": False}})
    error(deliver(skroutz_event()), 404, "marketplace_not_found")
    nothing_recorded()


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "garbage",
        "t=abc,v1=00",
        "v1=" + "0" * 64,
        "t=1,t=2,v1=" + "0" * 64,
    ],
)
def test_a_missing_or_malformed_signature_is_401(lamp, header):
    enable()
    extra = {} if header is None else {"HTTP_X_MARKETPLACE_SIGNATURE": header}
    answer = APIClient().post(
        f"{WEBHOOK}/skroutz",
        data=json.dumps(skroutz_event()),
        content_type="application/json",
        **extra,
    )
    error(answer, 401, "invalid_signature")
    assert "Signature" in answer["WWW-Authenticate"]
    nothing_recorded()


def test_another_secret_is_401(lamp):
    enable()
    error(
        deliver(skroutz_event(), secret="another-secret-of-some-length"), 401, "invalid_signature"
    )
    nothing_recorded()


@pytest.mark.parametrize("skew", [-301, 301, -100_000])
def test_a_timestamp_outside_the_tolerance_is_401(lamp, skew):
    enable()
    # the clock stands still: a second of a slow run would bring +301 within the 300 s
    with time_machine.travel(int(time.time()), tick=False):
        answer = deliver(skroutz_event(), timestamp=int(time.time()) + skew)
    error(answer, 401, "invalid_signature")
    nothing_recorded()


def test_a_tampered_body_is_401(lamp):
    enable()
    body = json.dumps(skroutz_event()).encode()
    signature = sign(body, SECRET)
    answer = APIClient().post(
        f"{WEBHOOK}/skroutz",
        data=body.replace(b'"quantity": 2', b'"quantity": 9'),
        content_type="application/json",
        HTTP_X_MARKETPLACE_SIGNATURE=signature,
    )
    error(answer, 401, "invalid_signature")
    nothing_recorded()


def test_no_login_and_no_csrf_token_are_needed(lamp):
    enable()
    browser = Client(enforce_csrf_checks=True)
    body = json.dumps(skroutz_event()).encode()
    answer = browser.post(
        f"{WEBHOOK}/skroutz",
        data=body,
        content_type="application/json",
        HTTP_X_MARKETPLACE_SIGNATURE=sign(body, SECRET),
    )
    assert answer.status_code == 200, answer.content


def test_a_body_too_large_is_413(lamp, settings):
    enable()
    settings.MARKETPLACE_WEBHOOK_MAX_BYTES = 2048
    big = skroutz_event()
    big["order"]["comments"] = "x" * 900
    big["padding"] = "y" * 2000
    error(deliver(big), 413, "payload_too_large")
    nothing_recorded()


HOSTILE = [
    b"not json",
    b"[1, 2, 3]",
    b'"a string"',
    b"null",
    b"{}",
    b"[" * 5000 + b"]" * 5000,
    b'{"event_type": "new_order", "event_time": "x", "order": ' + b"[" * 200 + b"]" * 200 + b"}",
    b'{"event_type": "new_\\u0000order", "event_time": "x"}',
    b'{"event_type": "\\ud800", "event_time": "x"}',
    b"\xff\xfe\x00",
    b'{"event_type": 12, "event_time": true}',
    b'{"event_type": "new_order", "event_time": "t", "order": "x"}',
    b'{"event_type": "new_order", "event_time": "t", "order": {"code": "1", "state": "open", '
    b'"line_items": [{"shop_uid": "LAMP-1", "quantity": 99999999999999999999999, '
    b'"unit_price": 1}]}}',
    b'{"event_type": "new_order", "event_time": "t", "order": {"code": "1", "state": "open", '
    b'"line_items": [{"shop_uid": "LAMP-1", "quantity": 1, "unit_price": "NaN"}]}}',
    b'{"event_type": "new_order", "event_time": "t", "order": {"code": "1", "state": "open", '
    b'"line_items": [{"shop_uid": "LAMP-1", "quantity": 1, "unit_price": 1e400}]}}',
    b'{"event_type": "new_order", "event_time": "t", "order": {"code": "../../x", '
    b'"state": "open", "line_items": [{"shop_uid": "LAMP-1", "quantity": 1, "unit_price": 1}]}}',
    b'{"event_type": "new_order", "event_time": "t", "order": {"code": "1", "state": "open", '
    b'"line_items": []}}',
    b'{"event_type": "order_returned", "event_time": "t", "extra": 1e400}',
    b'{"event_type": "new_order", "event_time": "t", "order": {"code": "1", "state": "open", '
    b'"customer": [1], "line_items": [{"shop_uid": {"a": 1}, "quantity": 1, "unit_price": 1}]}}',
]


@pytest.mark.parametrize("body", HOSTILE)
def test_hostile_signed_bodies_are_refused_cleanly(lamp, body):
    enable()
    answer = deliver(body)
    error(answer, 400, "invalid_payload")
    nothing_recorded()


@pytest.mark.parametrize("body", HOSTILE[:6])
def test_hostile_generic_bodies_are_refused_cleanly(lamp, body):
    enable("generic")
    error(deliver(body, "generic"), 400, "invalid_payload")
    nothing_recorded()


def test_the_event_is_recorded_and_enqueued_in_one_transaction(lamp):
    """The webhook answers from the database; its processing goes through the outbox."""
    enable()
    deliver(skroutz_event())
    message = OutboxMessage.objects.get(task="store_marketplace.process_event")
    assert message.sent_at is not None


@pytest.mark.parametrize("named", ["has space", "x" * 201, "é"])
def test_a_bad_event_id_header_is_refused(lamp, named):
    enable()
    error(deliver(skroutz_event(), headers={"X-Marketplace-Event-Id": named}), 400,
          "invalid_payload")  # fmt: skip
    nothing_recorded()


def test_an_event_time_with_spaces_is_processed(lamp):
    enable()
    deliver(skroutz_event(time_="2026-11-24 09:00:00"))
    assert MarketplaceEvent.objects.get().outcome == "imported"
