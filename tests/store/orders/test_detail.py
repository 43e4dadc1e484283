"""GET, PUT/PATCH and DELETE /orders/{id}, and POST /orders/bulk."""

import pytest

from common.errors import ServiceError
from store.inventory.models import StockMovement
from store.orders import services
from store.orders.models import Order, OrderItem, OrderStatusChange, Payment, Shipment
from tests.fixtures.store import API, error
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, on_commit, stock_of, stocked

pytestmark = pytest.mark.django_db


def url(order_or_id) -> str:
    return f"{API}/orders/{getattr(order_or_id, 'pk', order_or_id)}"


def test_the_full_order(manager_client):
    lamp = stocked(price="10.00")
    order = make_order(line(lamp, 2), shipping_total="4.50", payment_method="card")
    services.payment_create(order_id=order.pk, fields={"amount": "5.00"})
    services.shipment_create(order_id=order.pk, fields={"tracking_number": "T1"})
    body = manager_client.get(url(order)).json()
    assert set(body) >= {
        "id",
        "order_number",
        "status",
        "payment_status",
        "fulfillment_status",
        "currency",
        "customer_id",
        "customer",
        "billing_address",
        "shipping_address",
        "payment_method",
        "payment_method_title",
        "shipping_method",
        "shipping_method_title",
        "customer_note",
        "admin_note",
        "subtotal",
        "discount_total",
        "shipping_total",
        "shipping_tax",
        "tax_total",
        "total",
        "amount_paid",
        "amount_refunded",
        "balance_due",
        "items",
        "payments",
        "shipments",
        "status_history",
        "order_key",
        "created_at",
    }
    assert (body["total"], body["amount_paid"], body["balance_due"]) == ("24.50", "5.00", "19.50")
    assert body["payment_status"] == "partially_paid"
    assert body["fulfillment_status"] == "fulfilled"
    assert [p["amount"] for p in body["payments"]] == ["5.00"]
    assert body["shipments"][0]["tracking_number"] == "T1"
    assert [(h["field"], h["to"]) for h in body["status_history"]] == [
        ("status", "pending"),
        ("payment_status", "partially_paid"),
        ("fulfillment_status", "fulfilled"),
    ]


def test_a_missing_order_is_404_order_not_found(manager_client):
    for method in ("get", "patch", "put", "delete"):
        error(getattr(manager_client, method)(url(999), {}, format="json"), 404, "order_not_found")


def test_the_general_update(manager_client):
    customer = CustomerFactory()
    order = make_order(line(stocked(price="10.00"), 2))
    body = manager_client.patch(
        url(order),
        {
            "customer_id": customer.pk,
            "billing": {"city": "Athens", "country": "GR"},
            "shipping_address": {"city": "Patras"},
            "payment_method": "cod",
            "shipping_method_title": "Pick-up",
            "customer_note": "Hi",
            "admin_note": "Checked",
            "shipping_total": "3.00",
            "shipping_tax": "0.72",
            "discount_total": "1.00",
            "currency": "usd",
        },
        format="json",
    ).json()
    assert body["customer_id"] == customer.pk
    assert (body["billing_address"]["city"], body["shipping_address"]["city"]) == (
        "Athens",
        "Patras",
    )
    assert (body["payment_method"], body["shipping_method_title"]) == ("cod", "Pick-up")
    assert (body["customer_note"], body["admin_note"], body["currency"]) == ("Hi", "Checked", "USD")
    assert (body["tax_total"], body["total"]) == ("0.72", "22.72")  # 20 - 1 + 3 + 0.72
    body = manager_client.put(url(order), {"customer_id": None}, format="json").json()
    assert body["customer"] is None
    assert body["total"] == "22.72"  # a partial update: the rest stays


def test_a_status_in_the_general_update_moves_like_the_status_endpoint(manager_client):
    lamp = stocked(stock=5)
    order = make_order(line(lamp, 2))
    with on_commit():
        body = manager_client.patch(
            url(order), {"status": "cancelled", "note": "Customer asked"}, format="json"
        ).json()
    assert body["status"] == "cancelled"
    assert body["status_history"][-1]["note"] == "Customer asked"
    assert stock_of(lamp) == 5
    error(
        manager_client.patch(url(order), {"status": "completed"}, format="json"),
        409,
        "invalid_status_transition",
    )
    body = manager_client.patch(
        url(order), {"payment_status": "refunded", "fulfillment_status": "returned"}, format="json"
    ).json()
    assert (body["payment_status"], body["fulfillment_status"]) == ("refunded", "returned")


def test_a_refused_general_update_changes_nothing(manager_client):
    lamp = stocked(stock=2)
    order = make_order(line(lamp, 2), status="cancelled", admin_note="before")
    make_order(line(lamp, 1))
    error(
        manager_client.patch(
            url(order), {"admin_note": "after", "status": "processing"}, format="json"
        ),
        409,
        "insufficient_stock",
    )
    order.refresh_from_db()
    assert (order.admin_note, order.status) == ("before", "cancelled")
    error(manager_client.patch(url(order), {"discount_total": "99"}, format="json"), 400)
    error(manager_client.patch(url(order), {"customer_id": 999}, format="json"), 400)


def test_addresses_follow_the_stores_one_address_rule(manager_client):
    order = make_order(line(stocked(price="10.00")), billing_address={"city": "Athens"})
    body = manager_client.patch(
        url(order),
        {"billing_address": {"country": "gr", "state": "GR-I", "email": " Ana@Example.COM "}},
        format="json",
    ).json()
    assert {
        key: body["billing_address"][key] for key in ("country", "region", "email", "city")
    } == {
        "country": "GR",
        "region": "I",
        "email": "ana@example.com",  # e-mail addresses are kept lower-case, as at the checkout
        "city": "",  # an address replaces the stored one
    }
    order.refresh_from_db()
    assert order.billing_address == {"country": "GR", "state": "I", "email": "ana@example.com"}
    for address, param in (
        ({"country": "GR", "state": "Attica"}, "billing_address.state"),
        ({"state": "I"}, "billing_address.country"),
        ({"postcode": "10431!"}, "billing_address.postcode"),
    ):
        body = error(
            manager_client.patch(
                url(order), {"billing_address": address, "admin_note": "x"}, format="json"
            ),
            400,
            "invalid_param",
        )
        assert set(body["data"]["params"]) == {param}
    order.refresh_from_db()
    assert order.billing_address == {"country": "GR", "state": "I", "email": "ana@example.com"}
    assert order.admin_note == ""


def test_the_order_services_check_addresses_themselves():
    order = make_order(line(stocked()))
    with pytest.raises(ServiceError) as caught:
        services.order_update(
            order_id=order.pk, fields={"shipping_address": {"country": "GR", "state": "Nowhere"}}
        )
    assert set(caught.value.errors) == {"shipping_address.state"}
    with pytest.raises(ServiceError):
        services.order_create(items=[], billing_address={"country": "XX"})
    assert Order.objects.count() == 1


def test_the_currency_is_locked_once_payments_are_recorded(manager_client):
    order = make_order(line(stocked()))
    services.payment_create(order_id=order.pk, fields={"amount": "1.00"})
    body = error(
        manager_client.patch(url(order), {"currency": "USD"}, format="json"), 400, "currency_locked"
    )
    assert set(body["data"]["params"]) == {"currency"}
    assert manager_client.patch(url(order), {"currency": "eur"}, format="json").status_code == 200


def test_delete_gives_the_stock_back_first(manager_client):
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 4), status="processing")
    services.payment_create(order_id=order.pk, fields={"amount": "1.00"})
    services.shipment_create(order_id=order.pk, fields={})
    assert manager_client.delete(url(order)).status_code == 204
    assert not Order.objects.exists()
    assert not OrderItem.objects.exists()
    assert not Payment.objects.exists()
    assert not Shipment.objects.exists()
    assert stock_of(lamp) == 10
    deleted = StockMovement.objects.filter(reason="order_deleted").get()
    assert (deleted.quantity, deleted.reference_id) == (4, str(order.pk))


def test_deleting_a_terminal_order_moves_no_stock(manager_client):
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 4))
    with on_commit():
        services.order_status_set(order_id=order.pk, status="cancelled")
    assert manager_client.delete(url(order)).status_code == 204
    assert stock_of(lamp) == 10
    assert not StockMovement.objects.filter(reason="order_deleted").exists()


def test_deleting_a_cancelled_order_before_the_worker_ran_restores_once(manager_client):
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 4))
    services.order_status_set(order_id=order.pk, status="cancelled")  # the task waits for commit
    assert stock_of(lamp) == 6
    assert manager_client.delete(url(order)).status_code == 204
    assert stock_of(lamp) == 10
    services.order_stock_release(order_id=order.pk)  # the worker finds nothing
    assert stock_of(lamp) == 10


def test_reads_writes_and_deletes_need_the_orders_capability(anon, customer_client):
    lamp = stocked(stock=5)
    order = make_order(line(lamp, 2))
    for client, status in ((anon, 401), (customer_client, 403)):
        error(client.get(url(order)), status)
        error(client.patch(url(order), {"admin_note": "x"}, format="json"), status)
        error(client.delete(url(order)), status)
    order.refresh_from_db()
    assert order.admin_note == ""
    assert stock_of(lamp) == 3


# --- Bulk ---------------------------------------------------------------------------------------

BULK = f"{API}/orders/bulk"


def test_bulk_status_each_order_on_its_own(manager_client):
    lamp = stocked(stock=10)
    a = make_order(line(lamp, 1))
    b = make_order(line(lamp, 2), status="processing")
    done = make_order(line(lamp, 3), status="completed")
    with on_commit():
        response = manager_client.post(
            BULK, {"ids": [a.pk, b.pk, done.pk, 999, a.pk], "action": "pending"}, format="json"
        )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["success"], body["failed"], body["succeeded"]) == (1, 3, [a.pk])
    assert [(e["id"], e["code"]) for e in body["errors"]] == [
        (b.pk, "invalid_status_transition"),
        (done.pk, "invalid_status_transition"),
        (999, "order_not_found"),
    ]
    assert all(e["message"] for e in body["errors"])
    with on_commit():
        body = manager_client.post(
            BULK, {"ids": [a.pk, b.pk, done.pk], "action": "cancelled"}, format="json"
        ).json()
    assert (body["success"], body["failed"]) == (3, 0)
    assert stock_of(lamp) == 10
    with on_commit():
        body = manager_client.post(
            BULK, {"ids": [a.pk, b.pk, done.pk], "action": "processing"}, format="json"
        ).json()
    assert stock_of(lamp) == 4


def test_bulk_reopening_refuses_only_the_orders_without_stock(manager_client):
    lamp = stocked(stock=3)
    first = make_order(line(lamp, 2), status="cancelled")
    second = make_order(line(lamp, 2), status="cancelled")
    body = manager_client.post(
        BULK, {"ids": [first.pk, second.pk], "action": "processing"}, format="json"
    ).json()
    assert (body["succeeded"], [e["code"] for e in body["errors"]]) == (
        [first.pk],
        ["insufficient_stock"],
    )
    second.refresh_from_db()
    assert second.status == "cancelled"
    assert stock_of(lamp) == 1


def test_bulk_delete_restores_per_order(manager_client):
    lamp = stocked(stock=10)
    orders = [make_order(line(lamp, 2)) for _ in range(3)]
    body = manager_client.post(
        BULK, {"ids": [o.pk for o in orders], "action": "DELETE"}, format="json"
    ).json()
    assert (body["success"], body["failed"]) == (3, 0)
    assert stock_of(lamp) == 10
    assert not Order.objects.exists()


@pytest.mark.parametrize(
    ("body", "params"),
    [
        ({"action": "cancelled"}, {"ids"}),
        ({"ids": [], "action": "cancelled"}, {"ids"}),
        ({"ids": list(range(1, 102)), "action": "cancelled"}, {"ids"}),
        ({"ids": ["a"], "action": "cancelled"}, {"ids.0"}),
        ({"ids": [1]}, {"action"}),
        ({"ids": [1], "action": "archive"}, {"action"}),
    ],
)
def test_bulk_refusals_change_nothing(manager_client, body, params):
    order = make_order()
    payload = error(manager_client.post(BULK, body, format="json"), 400, "invalid_param")
    assert set(payload["data"]["params"]) == params
    order.refresh_from_db()
    assert order.status == "pending"
    assert OrderStatusChange.objects.count() == 1


def test_a_hundred_ids_are_accepted(manager_client):
    orders = [make_order() for _ in range(3)]
    ids = [o.pk for o in orders] + list(range(10_000, 10_097))
    body = manager_client.post(BULK, {"ids": ids, "action": "on_hold"}, format="json").json()
    assert (body["success"], body["failed"]) == (3, 97)


def test_bulk_needs_the_orders_capability(anon, customer_client):
    order = make_order()
    for client, status in ((anon, 401), (customer_client, 403)):
        error(client.post(BULK, {"ids": [order.pk], "action": "delete"}, format="json"), status)
    assert Order.objects.filter(pk=order.pk).exists()
