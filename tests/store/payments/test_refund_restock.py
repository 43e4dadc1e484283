"""POST /payment/refund/{order_id} with `restock: true` and `items`: part of an order given
back to stock (store.orders' order_items_restock), its refusals, and what follows it."""

from __future__ import annotations

import pytest

from store.orders import services as order_services
from store.orders.models import Order, OrderItem, OrderRestock
from store.payments.models import GatewayRefund
from tests.fixtures.store import API, error
from tests.store.catalog.factories import make_product
from tests.store.orders.factories import line, make_order, on_commit, stock_of, stocked
from tests.store.payments.helpers import pay

pytestmark = pytest.mark.django_db


def refund(client, order, **body):
    return client.post(f"{API}/payment/refund/{order.pk}", body, format="json")


def restock(client, order, *lines: tuple, amount: str = "5.00"):
    """A partial refund giving back `lines` ((item, units), ...) to stock."""
    items = [{"item_id": item.pk, "quantity": units} for item, units in lines]
    return refund(client, order, amount=amount, restock=True, items=items)


@pytest.fixture
def paid(online, anon):
    """Paid by card: 3 lamps (10 in stock, 7 left) and 2 mugs (untracked), 40.00."""
    lamp = stocked(title="Lamp", price="10.00", stock=10)
    mug = make_product(title="Mug", regular_price="5.00")  # tracks no stock
    order = make_order(line(lamp, 3), line(mug, 2), payment_method="stripe", currency="EUR")
    pay(anon, "stripe", order)
    lamps, mugs = order.items.order_by("id")
    return order, lamp, lamps, mugs


def test_a_partial_refund_restocks_the_units_named(paid, payments_staff, manager_client):
    order, lamp, lamps, _mugs = paid
    assert stock_of(lamp) == 7
    response = refund(
        payments_staff,
        order,
        amount="20.00",
        reason="Two returned",
        restock=True,
        items=[{"item_id": lamps.pk, "quantity": 2}],
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["restocked"], body["order_status"], body["payment_status"]) == (
        True,
        "processing",
        "partially_refunded",
    )
    assert body["restocked_items"] == [{"item_id": lamps.pk, "quantity": 2}]
    assert stock_of(lamp) == 9
    detail = manager_client.get(f"{API}/orders/{order.pk}").json()
    assert [item["restocked"] for item in detail["items"]] == [2, 0]
    [entry] = [h for h in detail["status_history"] if h["field"] == "stock"]
    assert entry["to"] == "restocked"
    assert "2 x Lamp" in entry["note"]
    assert "Two returned" in entry["note"]
    # The worker's release afterwards finds nothing more to give back.
    with on_commit():
        order_services.order_stock_release(order_id=order.pk)
    assert stock_of(lamp) == 9


def test_restocking_more_than_the_line_holds_is_refused(paid, payments_staff):
    order, lamp, lamps, mugs = paid
    first = restock(payments_staff, order, (lamps, 2))
    assert first.status_code == 201, first.content
    # Twice: one unit is left to restock.
    body = error(
        restock(payments_staff, order, (lamps, 2)),
        409,
        "restock_exceeds_held",
    )
    assert "holds 1 unit(s) in stock (2 restocked before)" in body["message"]
    assert list(body["data"]["params"]) == ["items.0.quantity"]
    too_many = restock(payments_staff, order, (lamps, 4))
    error(too_many, 409, "restock_exceeds_held")
    # An item that tracks no stock holds none.
    untracked = restock(payments_staff, order, (mugs, 1))
    error(untracked, 409, "restock_exceeds_held")
    # Nothing of the refused refunds was recorded; the last unit still can be.
    assert GatewayRefund.objects.count() == 1
    assert stock_of(lamp) == 9
    last = restock(payments_staff, order, (lamps, 1))
    assert last.status_code == 201, last.content
    assert stock_of(lamp) == 10
    assert OrderItem.objects.get(pk=lamps.pk).restocked == 3


def test_an_item_of_another_order_is_a_400(paid, payments_staff):
    order, lamp, lamps, _ = paid
    other = make_order(line(stocked(title="Vase")))
    foreign = other.items.get()
    body = error(
        refund(
            payments_staff,
            order,
            amount="5.00",
            restock=True,
            items=[{"item_id": lamps.pk, "quantity": 1}, {"item_id": foreign.pk, "quantity": 1}],
        ),
        400,
        "order_item_not_found",
    )
    assert list(body["data"]["params"]) == ["items.1.item_id"]
    twice = refund(
        payments_staff,
        order,
        amount="5.00",
        restock=True,
        items=[{"item_id": lamps.pk, "quantity": 1}, {"item_id": lamps.pk, "quantity": 1}],
    )
    error(twice, 400)
    assert not GatewayRefund.objects.exists()
    assert not OrderRestock.objects.exists()
    assert stock_of(lamp) == 7


def test_items_need_restock(paid, payments_staff):
    order, _, lamps, _ = paid
    error(
        refund(payments_staff, order, amount="5.00", items=[{"item_id": lamps.pk, "quantity": 1}]),
        400,
        "restock_items_without_restock",
    )
    # restock without items still needs the full refund
    error(
        refund(payments_staff, order, amount="5.00", restock=True), 400, "restock_needs_full_refund"
    )


@pytest.mark.parametrize(
    "items",
    [
        [],
        "lamps",
        {"item_id": 1, "quantity": 1},
        [{}],
        [{"item_id": 1}],
        [{"item_id": 1, "quantity": 0}],
        [{"item_id": 1, "quantity": 10**30}],
        [{"item_id": "1 OR 1=1", "quantity": 1}],
        [{"item_id": 1, "quantity": 1, "extra": True}],
        [[1, 1]],
        [{"item_id": 1, "quantity": 1}] * 201,
    ],
)
def test_hostile_items_are_a_400(paid, payments_staff, items):
    order, lamp, _, _ = paid
    response = refund(payments_staff, order, amount="5.00", restock=True, items=items)
    error(response, 400)
    assert stock_of(lamp) == 7


def test_a_deep_or_nul_body_is_a_400(paid, payments_staff):
    order, _, lamps, _ = paid
    url = f"{API}/payment/refund/{order.pk}"
    for raw in (
        '{"restock": true, "items": ' + "[" * 500 + "]" * 500 + "}",
        f'{{"restock": true, "items": [{{"item_id": {lamps.pk}, "quantity": 1}}], '
        '"reason": "a\\u0000"}',
    ):
        response = payments_staff.post(url, raw, content_type="application/json")
        assert response.status_code == 400, response.content


def test_a_full_refund_with_items_restocks_only_those(paid, payments_staff):
    order, lamp, lamps, _ = paid
    response = refund(
        payments_staff, order, restock=True, items=[{"item_id": lamps.pk, "quantity": 1}]
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["payment_status"], body["order_status"]) == ("refunded", "processing")
    assert stock_of(lamp) == 8


def test_after_a_partial_restock_the_order_holds_the_rest(paid, payments_staff, manager_client):
    order, lamp, lamps, _ = paid
    two = [{"item_id": lamps.pk, "quantity": 2}]
    refund(payments_staff, order, amount="5.00", restock=True, items=two)
    assert stock_of(lamp) == 9
    status = f"{API}/orders/{order.pk}/status"
    # Cancelled: the rest comes back; reopened: only what was not restocked is taken again.
    with on_commit():
        manager_client.put(status, {"status": "cancelled"}, format="json")
    assert stock_of(lamp) == 10
    one = [{"item_id": lamps.pk, "quantity": 1}]
    body = error(
        refund(payments_staff, order, amount="5.00", restock=True, items=one),
        409,
        "order_stock_released",
    )
    assert "cancelled" in body["message"]
    with on_commit():
        manager_client.put(status, {"status": "processing"}, format="json")
    assert stock_of(lamp) == 9
    # The line's quantity cannot go below what was restocked.
    item_url = f"{API}/orders/{order.pk}/items/{lamps.pk}"
    error(manager_client.patch(item_url, {"quantity": 1}, format="json"), 409, "item_restocked")
    # A full refund with restock (no items) gives back everything left, as before.
    with on_commit():
        full = refund(payments_staff, order, restock=True)
    assert full.json()["order_status"] == "refunded"
    assert stock_of(lamp) == 10


def test_the_idempotency_key_restocks_once(paid, payments_staff):
    order, lamp, lamps, _ = paid
    url = f"{API}/payment/refund/{order.pk}"
    body = {"amount": "5.00", "restock": True, "items": [{"item_id": lamps.pk, "quantity": 1}]}
    first = payments_staff.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="rs-1")
    again = payments_staff.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="rs-1")
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert stock_of(lamp) == 8
    assert OrderRestock.objects.count() == 1


def test_the_service_answers_a_retry_with_the_same_key_once(paid):
    order, lamp, lamps, _ = paid
    items = [{"item_id": lamps.pk, "quantity": 1}]
    done = order_services.order_items_restock(order_id=order.pk, items=items, key="return-7")
    again = order_services.order_items_restock(order_id=order.pk, items=items, key="return-7")
    assert (done.replayed, again.replayed) == (False, True)
    assert [(item.pk, units) for item, units in again.lines] == [(lamps.pk, 1)]
    assert stock_of(lamp) == 8
    assert Order.objects.get(pk=order.pk).history.filter(field="stock").count() == 1
    from common.errors import ServiceError

    with pytest.raises(ServiceError) as refused:
        order_services.order_items_restock(
            order_id=order.pk, items=[{"item_id": lamps.pk, "quantity": 2}], key="return-7"
        )
    assert refused.value.code == "restock_key_reused"
