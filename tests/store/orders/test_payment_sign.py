"""One sign for money going back: a refund is negative wherever payments are shown (the order's
payments, a payment, the admin's lists and its CSV export), a negative amount can be sent back
as it was read, and a refund that leaves nothing paid moves the order to refunded."""

from decimal import Decimal

import pytest
from django.urls import reverse

from common.csv_export import cell
from store.orders import services
from store.orders.models import Order, Payment
from tests.fixtures.store import API, error
from tests.store.orders.factories import line, make_order, on_commit, stock_of, stocked

pytestmark = pytest.mark.django_db


def pay(client, order, **body):
    return client.post(f"{API}/orders/{order.pk}/payments", body, format="json")


@pytest.fixture
def order():
    return make_order(line(stocked(price="50.00", stock=10), 1))  # 50.00


def listed(client, order) -> list[tuple[str, str]]:
    body = client.get(f"{API}/orders/{order.pk}/payments").json()
    return [(p["kind"], p["amount"]) for p in body["payments"]]


def test_a_refund_sent_negative_is_a_refund_and_listed_negative(manager_client, order):
    pay(manager_client, order, amount="20.00")
    sent = pay(manager_client, order, amount="-5.00")
    assert sent.status_code == 201, sent.content
    assert (sent.json()["kind"], sent.json()["amount"]) == ("refund", "-5.00")
    assert sent.json()["order"]["amount_refunded"] == "5.00"
    assert listed(manager_client, order) == [("payment", "20.00"), ("refund", "-5.00")]
    detail = manager_client.get(f"{API}/orders/{order.pk}").json()
    assert [p["amount"] for p in detail["payments"]] == ["20.00", "-5.00"]
    kept = sum(Decimal(amount) for _, amount in listed(manager_client, order))
    assert kept == Decimal("15.00")


def test_a_refund_read_can_be_sent_back_unchanged(manager_client, order):
    pay(manager_client, order, amount="20.00")
    refund_id = pay(manager_client, order, amount="5.00", kind="refund").json()["id"]
    url = f"{API}/payments/{refund_id}"
    read = manager_client.get(url).json()
    body = {key: read[key] for key in ("kind", "amount", "status", "method", "note")}
    again = manager_client.patch(url, body, format="json")
    assert again.status_code == 200, again.content
    assert again.json()["amount"] == "-5.00"
    assert Payment.objects.get(pk=refund_id).amount == Decimal("5.00")  # stored as a magnitude
    changed = manager_client.patch(url, {"amount": "-7.00"}, format="json")
    assert changed.json()["amount"] == "-7.00"


@pytest.mark.parametrize(
    "body",
    [
        {"amount": "-5.00", "kind": "payment"},
        {"amount": "0"},
        {"amount": "0.00", "kind": "refund"},
    ],
    ids=["negative-payment", "zero", "zero-refund"],
)
def test_a_negative_payment_or_a_zero_amount_is_refused(manager_client, order, body):
    pay(manager_client, order, amount="20.00")
    payload = error(pay(manager_client, order, **body), 400, "invalid_param")
    assert set(payload["data"]["params"]) == {"amount"}
    assert list(Payment.objects.values_list("kind", "amount")) == [("payment", Decimal("20.00"))]


def test_a_payment_cannot_be_turned_negative(manager_client, order):
    payment_id = pay(manager_client, order, amount="20.00").json()["id"]
    payload = error(
        manager_client.patch(f"{API}/payments/{payment_id}", {"amount": "-20.00"}, format="json"),
        400,
        "invalid_param",
    )
    assert set(payload["data"]["params"]) == {"amount"}
    assert Payment.objects.get(pk=payment_id).amount == Decimal("20.00")


def test_a_full_refund_recorded_by_hand_moves_the_order_to_refunded(manager_client, order):
    product = order.items.get().product
    pay(manager_client, order, amount="50.00")
    assert stock_of(product) == 9
    with on_commit():
        body = pay(manager_client, order, amount="-50.00").json()
    assert (body["order"]["payment_status"], body["order"]["status"]) == ("refunded", "refunded")
    assert stock_of(product) == 10  # the move to refunded gives the stock back


def test_a_partial_refund_keeps_the_status(manager_client, order):
    pay(manager_client, order, amount="50.00")
    body = pay(manager_client, order, amount="-10.00").json()
    assert (body["order"]["payment_status"], body["order"]["status"]) == (
        "partially_refunded",
        "pending",
    )


def test_the_settings_can_keep_the_status_of_a_full_refund(manager_client, admin_client_api, order):
    kept = admin_client_api.patch(
        f"{API}/settings/orders", {"fully_refunded_status": "keep"}, format="json"
    )
    assert kept.status_code == 200, kept.content
    pay(manager_client, order, amount="50.00")
    body = pay(manager_client, order, amount="-50.00").json()
    assert (body["order"]["payment_status"], body["order"]["status"]) == ("refunded", "pending")
    error(
        admin_client_api.patch(
            f"{API}/settings/orders", {"fully_refunded_status": "maybe"}, format="json"
        ),
        400,
        "invalid_param",
    )
    assert Order.objects.get(pk=order.pk).status == "pending"


def test_the_admin_lists_and_exports_a_refund_negative(admin_client, order):
    services.payment_create(order_id=order.pk, fields={"amount": "20.00"})
    refund = services.payment_create(order_id=order.pk, fields={"amount": "5.00", "kind": "refund"})
    changelist = reverse("admin:store_orders_payment_changelist")
    assert "-5.00" in admin_client.get(changelist).content.decode()
    assert (
        "-5.00"
        in admin_client.get(
            reverse("admin:store_orders_order_change", args=[order.pk])
        ).content.decode()
    )
    exported = admin_client.post(
        changelist,
        {"action": "export_csv", "_selected_action": [refund.pk, refund.pk - 1]},
    )
    assert exported.status_code == 200
    rows = b"".join(exported.streaming_content).decode().splitlines()
    assert rows[0].split(",")[:5] == ["order_number", "order_id", "kind", "status", "amount"]
    assert sorted(row.split(",")[4] for row in rows[1:]) == ["-5.00", "20.00"]


def test_a_csv_number_is_never_taken_for_a_formula():
    assert cell(Decimal("-5.00")) == "-5.00"
    assert cell(-3) == "-3"
    assert cell("-5") == "'-5"  # text that a spreadsheet would read as a formula
    assert cell("=SUM(A1)") == "'=SUM(A1)"
