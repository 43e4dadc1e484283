"""POST /purchase-orders/{id}/receive and /goods-received: notes, stock at cost, the ledger."""

from __future__ import annotations

from decimal import Decimal

import pytest

from erp.purchasing import services
from erp.purchasing.models import GoodsReceivedNote, PurchaseOrder
from store.inventory.models import StockLevel, StockMovement
from store.inventory.services import warehouse_create, warehouse_set_active
from tests.erp.purchasing.conftest import (
    BASE,
    ledger_sum,
    level_of,
    make_order,
    make_supplier,
    product,
    sent_order,
)
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db


def receive(client, order, lines=None, **extra):
    body = dict(extra)
    if lines is not None:
        body["lines"] = lines
    return client.post(f"{BASE}/purchase-orders/{order.pk}/receive", body, format="json")


def line_ids(order):
    return [line.pk for line in order.lines.order_by("position")]


def test_receive_in_parts_then_the_rest(buyer_client):
    acme = make_supplier()
    widget, gadget = product("Widget", stock=4), product("Gadget")
    order = sent_order(acme, (widget, 10, "2.00"), (gadget, 5, "7.50"))
    first, second = line_ids(order)
    response = receive(
        buyer_client,
        order,
        [{"line_id": first, "quantity": 6}, {"line_id": second, "quantity": 5}],
        supplier_reference="DN-1",
    )
    assert response.status_code == 201, response.content
    note = response.json()
    assert note["number"] == f"GRN{note['id']:05d}"
    assert note["purchase_order"] == {"id": order.pk, "number": order.number}
    assert [(ln["sku"], ln["quantity"], ln["unit_cost"]) for ln in note["lines"]] == [
        ("WIDGET", 6, "2.0000"),
        ("GADGET", 5, "7.5000"),
    ]
    body = buyer_client.get(f"{BASE}/purchase-orders/{order.pk}").json()
    assert body["status"] == "partially_received"
    assert [(ln["quantity_received"], ln["quantity_outstanding"]) for ln in body["lines"]] == [
        (6, 4),
        (5, 0),
    ]
    widget.refresh_from_db()
    assert widget.stock_quantity == 10
    # the rest: no lines means everything outstanding
    rest = receive(buyer_client, order).json()
    assert [(ln["order_line_id"], ln["quantity"]) for ln in rest["lines"]] == [(first, 4)]
    body = buyer_client.get(f"{BASE}/purchase-orders/{order.pk}").json()
    assert (body["status"], bool(body["received_at"])) == ("received", True)
    assert [r["number"] for r in body["receipts"]] == [note["number"], rest["number"]]
    widget.refresh_from_db()
    assert widget.stock_quantity == 14
    movements = StockMovement.objects.filter(reason="purchase_received").order_by("id")
    assert [(m.sku, m.quantity, m.unit_cost, m.reference_id) for m in movements] == [
        ("WIDGET", 6, Decimal("2.0000"), str(order.pk)),
        ("GADGET", 5, Decimal("7.5000"), str(order.pk)),
        ("WIDGET", 4, Decimal("2.0000"), str(order.pk)),
    ]
    for item in (widget, gadget):
        level = level_of(item)
        assert ledger_sum(level) == level.quantity
    error(receive(buyer_client, order), 409, "purchase_order_not_receivable")


def test_over_receiving_is_refused_and_changes_nothing(buyer_client):
    acme = make_supplier()
    widget = product("Widget", stock=1)
    order = sent_order(acme, (widget, 3, "1.00"))
    [line] = line_ids(order)
    assert receive(buyer_client, order, [{"line_id": line, "quantity": 2}]).status_code == 201
    body = error(
        receive(buyer_client, order, [{"line_id": line, "quantity": 1}] * 2),
        409,
        "over_receipt",
    )
    assert "2 received, 1 outstanding" in body["message"]
    error(receive(buyer_client, order, [{"line_id": line, "quantity": 2}]), 409, "over_receipt")
    assert GoodsReceivedNote.objects.count() == 1
    assert PurchaseOrder.objects.get(pk=order.pk).status == "partially_received"
    widget.refresh_from_db()
    assert widget.stock_quantity == 3
    other = sent_order(acme, (widget, 1, "1.00"))
    params = error(
        receive(buyer_client, order, [{"line_id": line_ids(other)[0], "quantity": 1}]), 400
    )["data"]["params"]
    assert list(params) == ["lines.0.line_id"]
    error(receive(buyer_client, order, [{"line_id": line, "quantity": 0}]), 400)
    error(receive(buyer_client, order, []), 400)
    error(receive(buyer_client, order, {"line_id": line}), 422, "invalid_shape")
    error(receive(buyer_client, order, [{"line_id": line, "quantity": 10**20}]), 400)


def test_receipt_moves_the_moving_average_cost(buyer_client):
    acme = make_supplier()
    widget = product("Widget")
    first = sent_order(acme, (widget, 10, "2.00"))
    receive(buyer_client, first)
    assert level_of(widget).unit_cost == Decimal("2.0000")
    second = sent_order(acme, (widget, 5, "3.50"))
    receive(buyer_client, second)
    # (10 x 2.00 + 5 x 3.50) / 15 = 2.5
    level = level_of(widget)
    assert (level.quantity, level.unit_cost) == (15, Decimal("2.5000"))
    third = sent_order(acme, (widget, 3, "1.00"))
    receive(buyer_client, third)
    # (15 x 2.50 + 3 x 1.00) / 18 = 2.25
    assert level_of(widget).unit_cost == Decimal("2.2500")
    fourth = sent_order(acme, (widget, 7, "1.3333"))
    receive(buyer_client, fourth)
    # (18 x 2.25 + 7 x 1.3333) / 25 = 1.993324 -> 1.9933
    assert level_of(widget).unit_cost == Decimal("1.9933")


def test_a_foreign_currency_order_posts_cost_in_the_stores_currency(buyer_client):
    acme = make_supplier(currency="USD")
    widget = product("Widget")
    order = make_order(acme, (widget, 4, "10.00"), exchange_rate=Decimal("0.9"))
    assert order.currency == "USD"
    services.purchase_order_send(order_id=order.pk, email=False)
    note = receive(buyer_client, order).json()
    assert [(ln["unit_cost"], ln["stock_unit_cost"]) for ln in note["lines"]] == [
        ("10.0000", "9.0000")
    ]
    assert level_of(widget).unit_cost == Decimal("9.0000")
    error(
        buyer_client.post(
            f"{BASE}/purchase-orders",
            {"supplier_id": make_supplier(name="Local").pk, "exchange_rate": "2", "lines": []},
            format="json",
        ),
        400,
        "invalid_param",
    )


def test_receive_into_another_warehouse(buyer_client):
    acme = make_supplier()
    widget = product("Widget")
    north = warehouse_create(fields={"name": "North"})
    order = sent_order(acme, (widget, 2, "1.00"))
    note = receive(buyer_client, order, warehouse_id=north.pk).json()
    assert note["warehouse"] == {"id": north.pk, "name": "North"}
    assert level_of(widget, north).quantity == 2
    shut = warehouse_create(fields={"name": "Shut"})
    warehouse_set_active(warehouse_id=shut.pk, active=False)
    order = sent_order(acme, (widget, 2, "1.00"))
    error(receive(buyer_client, order, warehouse_id=shut.pk), 409, "warehouse_inactive")
    error(receive(buyer_client, order, warehouse_id=999999), 400, "invalid_param")
    assert not GoodsReceivedNote.objects.filter(purchase_order=order).exists()
    assert not StockLevel.objects.filter(warehouse=shut).exists()


def test_ledger_equals_levels_after_any_sequence(buyer_client):
    acme = make_supplier()
    items = [product(f"Item {i}", stock=i) for i in range(3)]
    orders = [sent_order(acme, *[(item, 5 + i, "1.00") for item in items]) for i in range(3)]
    for step, order in enumerate(orders):
        ids = line_ids(order)
        receive(buyer_client, order, [{"line_id": ids[step % 3], "quantity": 2}])
        receive(buyer_client, order)
    for item in items:
        level = level_of(item)
        assert ledger_sum(level) == level.quantity
        item.refresh_from_db()
        assert item.stock_quantity == level.quantity


def test_goods_received_list_and_detail(buyer_client, django_assert_max_num_queries):
    acme, globex = make_supplier(name="Acme"), make_supplier(name="Globex")
    widget = product("Widget")
    a = sent_order(acme, (widget, 2, "1.00"))
    g = sent_order(globex, (widget, 2, "1.00"))
    receive(buyer_client, a)
    receive(buyer_client, g)
    url = f"{BASE}/goods-received"
    with django_assert_max_num_queries(12) as few:
        listing = buyer_client.get(url).json()
    baseline = len(few.captured_queries)
    assert listing["total"] == 2
    assert (
        buyer_client.get(url, {"supplier_id": acme.pk}).json()["goods_received"][0][
            "purchase_order"
        ]["number"]
        == a.number
    )
    assert buyer_client.get(url, {"purchase_order_id": g.pk}).json()["total"] == 1
    assert buyer_client.get(url, {"date_to": "2000-01-01"}).json()["total"] == 0
    one = listing["goods_received"][0]
    assert buyer_client.get(f"{url}/{one['id']}").json() == one
    received = StockMovement.objects.get(reference_type="purchase_order", reference_id=str(g.pk))
    assert one["lines"][0]["movement_id"] == received.pk
    error(buyer_client.get(f"{url}/999999"), 404, "goods_received_note_not_found")
    for _ in range(10):
        order = sent_order(acme, (widget, 1, "1.00"), (product(), 1, "2.00"))
        receive(buyer_client, order)
    with django_assert_max_num_queries(baseline):
        assert buyer_client.get(url).json()["total"] == 12
