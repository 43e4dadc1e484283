"""POST /payment/refund/{order_id}: arithmetic, refusals, restock, idempotency, gateways."""

from __future__ import annotations

from decimal import Decimal
from unittest import mock

import pytest
from rest_framework.test import APIClient

from store.orders import services as order_services
from store.orders.models import Order
from store.payments.models import GatewayRefund, SandboxCharge
from store.payments.providers.base import ProviderUnavailable
from store.settings import services as settings_services
from tests.fixtures.store import API, basic_auth, error
from tests.store.orders.factories import on_commit, stock_of
from tests.store.payments.helpers import order_for, pay

pytestmark = pytest.mark.django_db


def refund(client, order, **body):
    return client.post(f"{API}/payment/refund/{order.pk}", body, format="json")


@pytest.fixture
def paid(online, anon):
    order, product = order_for("stripe", price="10.00", quantity=2)  # 20.00
    pay(anon, "stripe", order)
    return order, product


def test_partial_then_full_refund(paid, payments_staff, manager_client):
    order, product = paid
    first = refund(payments_staff, order, amount="5.00", reason="Scratched")
    assert first.status_code == 201, first.content
    body = first.json()
    assert (body["amount"], body["payment_status"], body["refundable"]) == (
        "-5.00",
        "partially_refunded",
        "15.00",
    )
    assert body["refunds"][0]["provider"] == "sandbox"
    assert not body["refunds"][0]["manual"]
    error(refund(payments_staff, order, amount="15.01"), 409, "refund_exceeds_refundable")
    with on_commit():
        rest = refund(payments_staff, order)
    assert rest.status_code == 201
    assert (rest.json()["amount"], rest.json()["payment_status"]) == ("-15.00", "refunded")
    assert rest.json()["amount_refunded"] == "20.00"
    # nothing left paid: the order moves to refunded, which gives its stock back
    assert (rest.json()["order_status"], rest.json()["restocked"]) == ("refunded", True)
    assert stock_of(product) == 10
    error(refund(payments_staff, order, amount="0.01"), 409, "refund_exceeds_refundable")
    refunds = Order.objects.get(pk=order.pk).payments.filter(kind="refund")
    assert sorted(str(p.amount) for p in refunds) == ["15.00", "5.00"]
    listed = manager_client.get(f"{API}/orders/{order.pk}/payments").json()["payments"]
    # signed as the refund's answer: the order's payments sum to what the shop kept
    assert sorted(p["amount"] for p in listed) == ["-15.00", "-5.00", "20.00"]
    assert sum(Decimal(p["amount"]) for p in listed) == 0


def test_a_full_refund_keeps_the_status_where_the_settings_say_so(paid, payments_staff):
    order, product = paid
    settings_services.settings_update(section="orders", values={"fully_refunded_status": "keep"})
    body = refund(payments_staff, order).json()
    assert (body["payment_status"], body["order_status"], body["restocked"]) == (
        "refunded",
        "processing",
        False,
    )
    assert stock_of(product) == 8  # still held: a person decides


def test_refusals_change_nothing(online, paid, payments_staff):
    order, _ = paid
    unpaid, _ = order_for("stripe")
    error(refund(payments_staff, unpaid), 409, "order_not_paid")
    error(refund(payments_staff, order, currency="USD"), 400, "currency_mismatch")
    error(refund(payments_staff, order, amount="1.00", restock=True), 400)
    error(refund(payments_staff, order, amount="0"), 400)
    error(refund(payments_staff, order, amount="-1"), 400)
    error(refund(payments_staff, order, amount="1e400"), 400)
    error(payments_staff.post(f"{API}/payment/refund/999999", {}, format="json"), 404)
    for hostile in ([], {"amount": []}, {"reason": "\x00"}, {"restock": "yes"}, {"x": 1}):
        response = payments_staff.post(f"{API}/payment/refund/{order.pk}", hostile, format="json")
        assert response.status_code == 400, (hostile, response.content)
    assert not GatewayRefund.objects.exists()
    assert Order.objects.get(pk=order.pk).payment_status == "paid"


def test_restock_with_the_full_refund_gives_the_stock_back(paid, payments_staff):
    order, product = paid
    with on_commit():
        response = refund(payments_staff, order, restock=True)
    assert response.status_code == 201
    assert (response.json()["restocked"], response.json()["order_status"]) == (True, "refunded")
    assert stock_of(product) == 10


def test_idempotency_key_answers_the_same_refund(paid, payments_staff):
    order, _ = paid
    url = f"{API}/payment/refund/{order.pk}"
    first = payments_staff.post(url, {"amount": "2.00"}, format="json", HTTP_IDEMPOTENCY_KEY="r1")
    again = payments_staff.post(url, {"amount": "2.00"}, format="json", HTTP_IDEMPOTENCY_KEY="r1")
    assert first.json() == again.json()
    assert GatewayRefund.objects.count() == 1


def test_a_gateway_error_is_502_and_records_nothing(paid, payments_staff):
    order, _ = paid
    with mock.patch(
        "store.payments.providers.sandbox.SandboxProvider.refund",
        side_effect=ProviderUnavailable("down"),
    ):
        error(refund(payments_staff, order), 502, "payment_provider_unavailable")
    assert Order.objects.get(pk=order.pk).amount_refunded == 0
    assert not GatewayRefund.objects.exists()


def test_an_offline_payment_is_refunded_by_hand(online, payments_staff):
    order, _ = order_for("bank_transfer")
    order_services.payment_create(order_id=order.pk, fields={"amount": order.total})
    body = refund(payments_staff, order, amount="3.50").json()
    assert body["refunds"][0]["manual"] is True
    assert body["payment_status"] == "partially_refunded"


def test_a_sandbox_card_charge_is_refunded_at_the_sandbox(online, payments_staff):
    order, _ = order_for("sandbox_card")
    SandboxCharge.objects.create(
        transaction_id="sbx_abc",
        idempotency_key="k",
        reference="x",
        amount=order.total,
        currency="EUR",
        status="approved",
        exp_month=1,
        exp_year=2100,
    )
    order_services.payment_create(
        order_id=order.pk,
        fields={"amount": order.total, "method": "sandbox_card", "transaction_id": "sbx_abc"},
    )
    assert refund(payments_staff, order, amount="1.00").status_code == 201
    assert str(SandboxCharge.objects.get().amount_refunded) == "1.00"


def test_access_and_csrf(paid, anon, customer_client, payments_staff):
    order, _ = paid
    error(refund(anon, order), 401)
    error(refund(customer_client, order), 403)
    csrf = APIClient(enforce_csrf_checks=True)
    csrf.credentials(HTTP_AUTHORIZATION=payments_staff._credentials["HTTP_AUTHORIZATION"])
    response = csrf.post(f"{API}/payment/refund/{order.pk}", {"amount": "1.00"}, format="json")
    assert response.status_code == 201, response.content
    assert response["Content-Type"].startswith("application/json")
    assert basic_auth  # the staff client authenticates with an application password
