"""POST /purchase-orders/auto-reorder."""

from __future__ import annotations

from decimal import Decimal

import pytest

from erp.purchasing.models import PurchaseOrder
from store.inventory.models import StockLevel
from store.inventory.services import default_warehouse, warehouse_create
from tests.erp.purchasing.conftest import (
    BASE,
    level_of,
    make_price,
    make_supplier,
    product,
    sent_order,
)

pytestmark = pytest.mark.django_db
URL = f"{BASE}/purchase-orders/auto-reorder"


def reorder_at(item, point, quantity=None, warehouse=None):
    level, _made = StockLevel.objects.get_or_create(
        warehouse=warehouse or default_warehouse(), product=item, variant=None
    )
    StockLevel.objects.filter(pk=level.pk).update(reorder_point=point, reorder_quantity=quantity)
    return level


def test_drafts_from_the_cheapest_price_per_supplier(buyer_client):
    acme, globex, gone = (
        make_supplier(name="Acme"),
        make_supplier(name="Globex"),
        make_supplier(name="Gone", is_active=False),
    )
    widget = product("Widget", stock=2)  # point 5, no reorder quantity: up to 10 -> 8
    gadget = product("Gadget", stock=1)  # point 3, reorder quantity 20
    bolt = product("Bolt", stock=0)  # point 0: at least one... min quantity 50 raises it
    full = product("Full", stock=9)  # above its point: not ordered
    orphan = product("Orphan", stock=0)  # no price at all
    for item, point, quantity in ((widget, 5, None), (gadget, 3, 20), (bolt, 0, None)):
        reorder_at(item, point, quantity)
    reorder_at(full, 4)
    reorder_at(orphan, 1)
    make_price(acme, widget, "3.00")
    make_price(globex, widget, "2.80")
    make_price(globex, widget, "1.00", min_quantity=100)  # a break 8 units do not reach
    make_price(gone, widget, "0.10")  # an inactive supplier
    make_price(acme, widget, "0.50", currency="USD")  # another currency
    make_price(acme, gadget, "4.00")
    make_price(globex, gadget, "4.50")
    make_price(acme, bolt, "0.20", min_quantity=50)
    make_price(globex, bolt, "0.30", min_quantity=60)
    response = buyer_client.post(URL)
    assert response.status_code == 200, response.content
    body = response.json()
    orders = {o["supplier"]["name"]: o for o in body["created"]}
    assert set(orders) == {"Acme", "Globex"}
    assert [(ln["sku"], ln["quantity"], ln["unit_cost"]) for ln in orders["Acme"]["lines"]] == [
        ("GADGET", 20, "4.0000"),
        ("BOLT", 50, "0.2000"),
    ]
    assert [(ln["sku"], ln["quantity"], ln["unit_cost"]) for ln in orders["Globex"]["lines"]] == [
        ("WIDGET", 8, "2.8000")
    ]
    assert {o["status"] for o in body["created"]} == {"draft"}
    assert {o["origin"] for o in body["created"]} == {"auto-reorder"}
    assert [(s["sku"], s["reason"]) for s in body["skipped"]] == [("ORPHAN", "no_supplier_price")]
    # idempotent: everything is on order now
    again = buyer_client.post(URL).json()
    assert again["created"] == []
    assert sorted((s["sku"], s["reason"]) for s in again["skipped"]) == [
        ("BOLT", "on_order"),
        ("GADGET", "on_order"),
        ("ORPHAN", "no_supplier_price"),
        ("WIDGET", "on_order"),
    ]
    assert PurchaseOrder.objects.count() == 2


def test_an_open_order_covers_an_item_and_a_received_one_does_not(buyer_client):
    acme = make_supplier()
    widget = product("Widget", stock=1)
    reorder_at(widget, 2, 5)
    make_price(acme, widget, "1.00")
    order = sent_order(acme, (widget, 3, "1.00"))
    body = buyer_client.post(URL).json()
    assert body["created"] == []
    assert body["skipped"][0]["reason"] == "on_order"
    assert order.number in body["skipped"][0]["message"]
    # received: 4 in stock, above the point of 2; sell down to 2 and it is ordered again
    buyer_client.post(f"{BASE}/purchase-orders/{order.pk}/receive", {}, format="json")
    assert buyer_client.post(URL).json() == {"created": [], "skipped": []}
    StockLevel.objects.filter(pk=level_of(widget).pk).update(quantity=2)
    created = buyer_client.post(URL).json()["created"]
    assert [(ln["quantity"], ln["unit_cost"]) for ln in created[0]["lines"]] == [(5, "1.0000")]
    assert created[0]["total"] == "5.00"


def test_levels_of_another_warehouse_get_their_own_order(buyer_client):
    acme = make_supplier()
    widget = product("Widget", stock=1)
    north = warehouse_create(fields={"name": "North"})
    reorder_at(widget, 1, 4)
    reorder_at(widget, 1, 6, warehouse=north)
    make_price(acme, widget, Decimal("1.50"))
    created = buyer_client.post(URL).json()["created"]
    assert sorted(
        ((o["warehouse"] or {}).get("name", ""), o["lines"][0]["quantity"]) for o in created
    ) == [("", 4), ("North", 6)]
    assert buyer_client.post(URL).json()["created"] == []
