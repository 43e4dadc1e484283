"""Items (totals and stock follow), payments (payment status follows the amounts paid) and
shipments (fulfilment status follows what shipped)."""

import pytest

from store.orders import services
from store.orders.models import OrderItem, Payment, Shipment
from tests.fixtures.store import API, error
from tests.store.orders.factories import line, make_order, on_commit, stock_of, stocked

pytestmark = pytest.mark.django_db


def items_url(order) -> str:
    return f"{API}/orders/{order.pk}/items"


def item_url(item) -> str:
    return f"{API}/orders/{item.order_id}/items/{item.pk}"


# --- Items --------------------------------------------------------------------------------------


def test_list_items(manager_client):
    lamp, mug = stocked(title="Lamp"), stocked(title="Mug")
    order = make_order(line(lamp, 1), line(mug, 2))
    body = manager_client.get(items_url(order)).json()
    assert [(i["title"], i["quantity"]) for i in body["items"]] == [("Lamp", 1), ("Mug", 2)]
    error(manager_client.get(f"{API}/orders/999/items"), 404, "order_not_found")


def test_add_an_item_recalculates_and_takes_stock(manager_client):
    lamp = stocked(price="10.00", stock=5)
    mug = stocked(title="Mug", price="4.00", stock=5)
    order = make_order(line(lamp, 1), shipping_total="2.00")
    response = manager_client.post(
        items_url(order), {"product_id": mug.pk, "quantity": 3, "tax": "2.88"}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["title"], body["quantity"], body["price"], body["total"]) == (
        "Mug",
        3,
        "4.00",
        "14.88",
    )
    assert (body["order"]["subtotal"], body["order"]["tax_total"], body["order"]["total"]) == (
        "22.00",
        "2.88",
        "26.88",
    )
    assert body["order"]["item_count"] == 4
    assert stock_of(mug) == 2


def test_adding_more_than_is_in_stock_is_refused(manager_client):
    lamp = stocked(stock=1)
    order = make_order()
    body = error(
        manager_client.post(
            items_url(order), {"product_id": lamp.pk, "quantity": 2}, format="json"
        ),
        409,
        "insufficient_stock",
    )
    assert body["data"]["params"] == {"quantity": "Only 1 in stock."}
    assert not OrderItem.objects.exists()
    order.refresh_from_db()
    assert order.total == 0
    assert stock_of(lamp) == 1


def test_bad_items_are_400(manager_client):
    order = make_order()
    for payload, params in (
        ({}, {"product_id"}),
        ({"product_id": 999}, {"product_id"}),
        ({"product_id": stocked().pk, "quantity": 0}, {"quantity"}),
    ):
        body = error(manager_client.post(items_url(order), payload, format="json"), 400)
        assert set(body["data"]["params"]) == params


def test_change_an_items_quantity_and_price(manager_client):
    lamp = stocked(price="10.00", stock=10)
    order = make_order(line(lamp, 2))
    item = order.items.get()
    with on_commit():
        body = manager_client.patch(
            item_url(item), {"quantity": 5, "price": "8.00"}, format="json"
        ).json()
    assert (body["quantity"], body["subtotal"], body["order"]["total"]) == (5, "40.00", "40.00")
    assert stock_of(lamp) == 5
    with on_commit():
        body = manager_client.put(item_url(item), {"quantity": 1}, format="json").json()
    assert body["order"]["total"] == "8.00"
    assert stock_of(lamp) == 9
    error(
        manager_client.patch(item_url(item), {"quantity": 20}, format="json"),
        409,
        "insufficient_stock",
    )
    item.refresh_from_db()
    assert item.quantity == 1
    assert stock_of(lamp) == 9


def test_remove_an_item_gives_its_stock_back(manager_client):
    lamp, mug = stocked(stock=5), stocked(title="Mug", price="3.00", stock=5)
    order = make_order(line(lamp, 2), line(mug, 1))
    item = order.items.get(product=lamp)
    with on_commit():
        assert manager_client.delete(item_url(item)).status_code == 204
    assert stock_of(lamp) == 5
    assert stock_of(mug) == 4
    order.refresh_from_db()
    assert (order.total, order.item_count) == (3, 1)


def test_an_item_of_another_order_is_404(manager_client):
    item = make_order(line(stocked())).items.get()
    other = make_order()
    wrong = f"{API}/orders/{other.pk}/items/{item.pk}"
    for method in ("get", "patch", "delete"):
        error(
            getattr(manager_client, method)(wrong, {}, format="json"), 404, "order_item_not_found"
        )
    assert OrderItem.objects.filter(pk=item.pk).exists()


def test_items_of_orders_past_processing_cannot_change(manager_client):
    lamp = stocked(stock=5)
    for status in ("shipped", "completed", "cancelled", "refunded", "failed"):
        order = make_order(line(lamp, 1), status=status)
        item = order.items.get()
        error(
            manager_client.post(items_url(order), {"product_id": lamp.pk}, format="json"),
            409,
            "order_not_editable",
        )
        error(
            manager_client.patch(item_url(item), {"quantity": 2}, format="json"),
            409,
            "order_not_editable",
        )
        error(manager_client.delete(item_url(item)), 409, "order_not_editable")
        assert order.items.count() == 1


def test_shipped_items_cannot_go_below_what_shipped(manager_client):
    order = make_order(line(stocked(), 3))
    item = order.items.get()
    services.shipment_create(
        order_id=order.pk, fields={"items": [{"order_item_id": item.pk, "quantity": 2}]}
    )
    error(manager_client.patch(item_url(item), {"quantity": 1}, format="json"), 409, "item_shipped")
    error(manager_client.delete(item_url(item)), 409, "item_shipped")
    assert manager_client.patch(item_url(item), {"quantity": 2}, format="json").status_code == 200


# --- Payments -----------------------------------------------------------------------------------


def pay(client, order, **body):
    return client.post(f"{API}/orders/{order.pk}/payments", body, format="json")


def test_the_payment_status_follows_the_amounts_paid(manager_client):
    order = make_order(line(stocked(price="50.00")), payment_method="card")
    steps = [
        ({"amount": "20.00"}, "partially_paid", "20.00", "0.00"),
        ({"amount": "30.00", "transaction_id": "tx-2"}, "paid", "50.00", "0.00"),
        ({"amount": "10.00", "kind": "refund"}, "partially_refunded", "50.00", "10.00"),
        ({"amount": "40.00", "kind": "refund"}, "refunded", "50.00", "50.00"),
    ]
    for body, status, paid, refunded in steps:
        response = pay(manager_client, order, **body)
        assert response.status_code == 201, response.content
        data = response.json()
        assert (data["method"], data["status"], data["currency"]) == ("card", "completed", "EUR")
        assert (
            data["order"]["payment_status"],
            data["order"]["amount_paid"],
            data["order"]["amount_refunded"],
        ) == (status, paid, refunded)
    order.refresh_from_db()
    assert order.paid_at is not None
    history = list(order.history.filter(field="payment_status").values_list("to_value", flat=True))
    assert history == ["partially_paid", "paid", "partially_refunded", "refunded"]


def test_pending_and_failed_payments_do_not_count(manager_client):
    order = make_order(line(stocked(price="50.00")))
    pay(manager_client, order, amount="50.00", status="pending")
    pay(manager_client, order, amount="50.00", status="failed")
    order.refresh_from_db()
    assert (order.payment_status, order.amount_paid) == ("unpaid", 0)
    payment = Payment.objects.filter(status="pending").get()
    body = manager_client.patch(
        f"{API}/payments/{payment.pk}", {"status": "completed"}, format="json"
    ).json()
    assert (body["status"], body["order"]["payment_status"]) == ("completed", "paid")


def test_refunds_cannot_exceed_what_was_paid(manager_client):
    order = make_order(line(stocked(price="50.00")))
    pay(manager_client, order, amount="20.00")
    body = error(
        pay(manager_client, order, amount="20.01", kind="refund"), 400, "refund_exceeds_paid"
    )
    assert set(body["data"]["params"]) == {"amount"}
    assert Payment.objects.count() == 1
    pay(manager_client, order, amount="20.00", kind="refund")
    payment = Payment.objects.get(kind="payment")
    error(manager_client.delete(f"{API}/payments/{payment.pk}"), 400, "refund_exceeds_paid")
    assert Payment.objects.count() == 2


def test_update_and_delete_a_payment(manager_client):
    order = make_order(line(stocked(price="50.00")))
    payment_id = pay(manager_client, order, amount="50.00").json()["id"]
    body = manager_client.get(f"{API}/payments/{payment_id}").json()
    assert body["order"]["payment_status"] == "paid"
    body = manager_client.put(
        f"{API}/payments/{payment_id}", {"amount": "25.00", "note": "corrected"}, format="json"
    ).json()
    assert (body["amount"], body["note"], body["order"]["payment_status"]) == (
        "25.00",
        "corrected",
        "partially_paid",
    )
    assert manager_client.delete(f"{API}/payments/{payment_id}").status_code == 204
    order.refresh_from_db()
    assert (order.payment_status, order.amount_paid) == ("unpaid", 0)
    error(manager_client.get(f"{API}/payments/{payment_id}"), 404, "payment_not_found")


def test_payment_bodies_are_validated(manager_client):
    order = make_order(line(stocked()))
    for body, params in (
        ({}, {"amount"}),
        ({"amount": "0"}, {"amount"}),
        ({"amount": "-5", "kind": "payment"}, {"amount"}),
        ({"amount": "5", "kind": "gift"}, {"kind"}),
        ({"amount": "5", "status": "maybe"}, {"status"}),
    ):
        payload = error(pay(manager_client, order, **body), 400, "invalid_param")
        assert set(payload["data"]["params"]) == params
    assert not Payment.objects.exists()
    error(pay(manager_client, type("O", (), {"pk": 999})(), amount="5"), 404, "order_not_found")


def test_a_manual_payment_status_follows_the_amounts_again_at_the_next_payment(manager_client):
    order = make_order(line(stocked(price="50.00")))
    services.order_payment_status_set(order_id=order.pk, payment_status="paid")
    body = pay(manager_client, order, amount="10.00").json()
    assert body["order"]["payment_status"] == "partially_paid"


def test_payments_list(manager_client):
    order = make_order(line(stocked(price="50.00")))
    pay(manager_client, order, amount="10.00")
    pay(manager_client, order, amount="5.00", kind="refund")
    body = manager_client.get(f"{API}/orders/{order.pk}/payments").json()
    assert [(p["kind"], p["amount"]) for p in body["payments"]] == [
        ("payment", "10.00"),
        ("refund", "-5.00"),  # money going back is negative: the list sums to what was kept
    ]


# --- Shipments ----------------------------------------------------------------------------------


def ship(client, order, **body):
    return client.post(f"{API}/orders/{order.pk}/shipments", body, format="json")


def test_the_fulfilment_status_follows_what_shipped(manager_client):
    order = make_order(line(stocked(title="Lamp"), 2), line(stocked(title="Mug"), 1))
    lamp, mug = order.items.order_by("id")
    first = ship(
        manager_client,
        order,
        items=[{"order_item_id": lamp.pk, "quantity": 1}],
        carrier="ACS",
        tracking_number="T-1",
        tracking_url="https://track.example.com/T-1",
    )
    assert first.status_code == 201, first.content
    body = first.json()
    assert (body["status"], body["carrier"], body["items"]) == (
        "shipped",
        "ACS",
        [{"order_item_id": lamp.pk, "quantity": 1}],
    )
    assert body["shipped_at"] is not None
    assert body["order"]["fulfillment_status"] == "partially_fulfilled"
    rest = ship(manager_client, order).json()  # every unit not yet in a shipment
    assert sorted((i["order_item_id"], i["quantity"]) for i in rest["items"]) == [
        (lamp.pk, 1),
        (mug.pk, 1),
    ]
    assert rest["order"]["fulfillment_status"] == "fulfilled"
    error(ship(manager_client, order), 400, "nothing_to_ship")


def test_a_shipment_cannot_claim_more_than_was_ordered(manager_client):
    order = make_order(line(stocked(), 2))
    item = order.items.get()
    body = error(
        ship(manager_client, order, items=[{"order_item_id": item.pk, "quantity": 3}]),
        400,
        "shipment_exceeds_order",
    )
    assert set(body["data"]["params"]) == {"items.0.quantity"}
    other = make_order(line(stocked(title="Other"))).items.get()
    body = error(
        ship(manager_client, order, items=[{"order_item_id": other.pk, "quantity": 1}]), 400
    )
    assert set(body["data"]["params"]) == {"items.0.order_item_id"}
    assert not Shipment.objects.exists()


def test_pending_shipments_claim_units_without_fulfilling(manager_client):
    order = make_order(line(stocked(), 1))
    body = ship(manager_client, order, status="pending").json()
    assert (body["order"]["fulfillment_status"], body["shipped_at"]) == ("unfulfilled", None)
    error(ship(manager_client, order), 400, "nothing_to_ship")
    body = manager_client.patch(
        f"{API}/shipments/{body['id']}", {"status": "delivered"}, format="json"
    ).json()
    assert body["order"]["fulfillment_status"] == "fulfilled"
    assert body["delivered_at"] is not None


def test_returned_and_cancelled_shipments(manager_client):
    order = make_order(line(stocked(), 1))
    shipment = ship(manager_client, order).json()
    body = manager_client.patch(
        f"{API}/shipments/{shipment['id']}", {"status": "returned"}, format="json"
    ).json()
    assert body["order"]["fulfillment_status"] == "returned"
    again = ship(manager_client, order).json()  # returned units may ship again
    assert again["order"]["fulfillment_status"] == "fulfilled"
    # The returned shipment cannot come back while the units are out again.
    error(
        manager_client.patch(
            f"{API}/shipments/{shipment['id']}", {"status": "shipped"}, format="json"
        ),
        400,
        "shipment_exceeds_order",
    )
    assert manager_client.delete(f"{API}/shipments/{again['id']}").status_code == 204
    order.refresh_from_db()
    assert order.fulfillment_status == "returned"
    error(manager_client.get(f"{API}/shipments/{again['id']}"), 404, "shipment_not_found")


def test_closed_orders_ship_nothing(manager_client):
    order = make_order(line(stocked()), status="cancelled")
    error(ship(manager_client, order), 409, "order_closed")


def test_shipments_list_and_read(manager_client):
    order = make_order(line(stocked()))
    created = ship(manager_client, order, tracking_number="T-9").json()
    body = manager_client.get(f"{API}/orders/{order.pk}/shipments").json()
    assert [s["tracking_number"] for s in body["shipments"]] == ["T-9"]
    read = manager_client.get(f"{API}/shipments/{created['id']}").json()
    assert (read["id"], read["order_id"], read["order"]["fulfillment_status"]) == (
        created["id"],
        order.pk,
        "fulfilled",
    )


def test_a_new_item_makes_a_fulfilled_order_partial_again(manager_client):
    lamp = stocked()
    order = make_order(line(lamp))
    ship(manager_client, order)
    body = manager_client.post(items_url(order), {"product_id": lamp.pk}, format="json").json()
    assert body["order"]["fulfillment_status"] == "partially_fulfilled"


def test_lines_need_the_orders_capability(anon, customer_client):
    order = make_order(line(stocked()))
    item = order.items.get()
    payment = services.payment_create(order_id=order.pk, fields={"amount": "1.00"})
    shipment = services.shipment_create(order_id=order.pk, fields={})
    for client, status in ((anon, 401), (customer_client, 403)):
        error(client.get(items_url(order)), status)
        error(client.post(items_url(order), {"product_id": item.product_id}, format="json"), status)
        error(client.patch(item_url(item), {"quantity": 3}, format="json"), status)
        error(client.delete(item_url(item)), status)
        error(client.get(f"{API}/orders/{order.pk}/payments"), status)
        error(pay(client, order, amount="5.00"), status)
        error(client.patch(f"{API}/payments/{payment.pk}", {"amount": "9"}, format="json"), status)
        error(client.delete(f"{API}/payments/{payment.pk}"), status)
        error(client.get(f"{API}/orders/{order.pk}/shipments"), status)
        error(ship(client, order), status)
        error(
            client.patch(f"{API}/shipments/{shipment.pk}", {"status": "returned"}, format="json"),
            status,
        )
        error(client.delete(f"{API}/shipments/{shipment.pk}"), status)
    assert (order.items.count(), Payment.objects.count(), Shipment.objects.count()) == (1, 1, 1)
    item.refresh_from_db()
    payment.refresh_from_db()
    shipment.refresh_from_db()
    assert (item.quantity, str(payment.amount), shipment.status) == (1, "1.00", "shipped")
