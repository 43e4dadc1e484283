"""The status moves answer from the order they moved (no read back): the body is the one a
GET answers right after, field for field, whatever the move and whatever the order has
(customer, lines, payments, shipments, history)."""

import pytest

from store.orders import services
from tests.fixtures.store import API
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, on_commit, stocked

pytestmark = pytest.mark.django_db


def _full_order():
    lamp, mug = stocked(stock=20), stocked(title="Mug", stock=20)
    order = make_order(
        line(lamp, 2),
        line(mug, 1),
        status="processing",
        customer=CustomerFactory(email="ana@example.com"),
        billing_address={"email": "ana@example.com", "first_name": "Ana"},
        shipping_total="4.50",
    )
    services.payment_create(order_id=order.pk, fields={"amount": "5.00"})
    services.shipment_create(order_id=order.pk, fields={"tracking_number": "T1"})
    return order


@pytest.mark.parametrize(
    ("kind", "moves"),
    [
        ("status", ["cancelled", "processing", "completed"]),
        ("payment-status", ["paid", "unpaid"]),
        ("fulfillment-status", ["fulfilled", "unfulfilled"]),
    ],
)
def test_a_move_answers_what_a_read_answers(manager_client, kind, moves):
    order = _full_order()
    field = kind.replace("-", "_")
    for value in moves:
        with on_commit():
            response = manager_client.patch(
                f"{API}/orders/{order.pk}/{kind}", {field: value, "note": "N."}, format="json"
            )
        assert response.status_code == 200, response.content
        answered = response.json()
        assert answered[field] == value
        assert answered == manager_client.get(f"{API}/orders/{order.pk}").json()


def test_the_same_status_again_answers_the_order_too(manager_client):
    order = _full_order()
    response = manager_client.patch(
        f"{API}/orders/{order.pk}/status", {"status": "processing"}, format="json"
    )
    assert response.status_code == 200
    assert response.json() == manager_client.get(f"{API}/orders/{order.pk}").json()


@pytest.mark.parametrize(
    "fields",
    [
        {"status": "cancelled", "customer_note": "Call first."},
        {"status": "on_hold", "payment_status": "paid", "fulfillment_status": "unfulfilled"},
        {"shipping_total": "7.00", "status": "completed"},
    ],
)
def test_an_update_that_moves_the_status_answers_what_a_read_answers(manager_client, fields):
    order = _full_order()
    before = len(manager_client.get(f"{API}/orders/{order.pk}").json()["status_history"])
    with on_commit():
        response = manager_client.patch(f"{API}/orders/{order.pk}", fields, format="json")
    assert response.status_code == 200, response.content
    answered = response.json()
    assert answered["status"] == fields["status"]
    assert answered == manager_client.get(f"{API}/orders/{order.pk}").json()
    # each move keeps its own history row, as through its own endpoint
    moved = [h["field"] for h in answered["status_history"][before:]]
    assert moved == [
        name for name in ("status", "payment_status", "fulfillment_status") if name in fields
    ]
