"""Real concurrent transfers (PostgreSQL): no level goes below zero, opposite transfers do not
deadlock, a deactivation and a transfer into the warehouse do not both succeed."""

from __future__ import annotations

import pytest
from django.db.models import Sum

from common.errors import ServiceError
from store.inventory import services
from store.inventory.models import StockLevel, StockMovement, Warehouse
from store.inventory.services import StockLine, Transfer
from tests.concurrency import race
from tests.store.catalog.factories import make_product

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def tracked(title="Lamp", stock=0):
    return make_product(title=title, track_inventory=True, stock_quantity=stock)


def depot(code):
    return services.warehouse_create(fields={"name": code.title(), "code": code})


def quantity(warehouse, product) -> int:
    level = StockLevel.objects.filter(warehouse=warehouse, product=product).first()
    return level.quantity if level else 0


def ledger(warehouse, product) -> int:
    rows = StockMovement.objects.filter(warehouse=warehouse, product=product)
    return rows.aggregate(total=Sum("quantity"))["total"] or 0


def move(source, target, *lines):
    return lambda: services.stock_transfer(
        from_warehouse_id=source.pk, to_warehouse_id=target.pk, lines=list(lines)
    )


def test_two_transfers_from_one_level_never_take_it_below_zero():
    lamp = tracked(stock=10)
    main = services.default_warehouse()
    north, south = depot("north"), depot("south")
    results = race(
        move(main, north, StockLine(lamp.pk, None, 7)),
        move(main, south, StockLine(lamp.pk, None, 7)),
    )
    assert sum(isinstance(r, Transfer) for r in results) == 1, results
    assert [r.code for r in results if isinstance(r, ServiceError)] == ["insufficient_stock"]
    assert quantity(main, lamp) == 3
    assert quantity(north, lamp) + quantity(south, lamp) == 7
    for warehouse in (main, north, south):
        assert quantity(warehouse, lamp) == ledger(warehouse, lamp)
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 10


def test_opposite_transfers_of_several_items_do_not_deadlock():
    lamp, mug = tracked(stock=20), tracked("Mug", stock=20)
    main, north = services.default_warehouse(), depot("north")
    services.stock_transfer(
        from_warehouse_id=main.pk,
        to_warehouse_id=north.pk,
        lines=[StockLine(lamp.pk, None, 10), StockLine(mug.pk, None, 10)],
    )
    calls = [
        move(main, north, StockLine(lamp.pk, None, 1), StockLine(mug.pk, None, 1)),
        move(north, main, StockLine(mug.pk, None, 1), StockLine(lamp.pk, None, 1)),
    ] * 3
    results = race(*calls)
    assert all(isinstance(r, Transfer) for r in results), results
    assert (quantity(main, lamp), quantity(north, lamp)) == (10, 10)
    assert (quantity(main, mug), quantity(north, mug)) == (10, 10)


def test_a_deactivation_and_a_transfer_in_do_not_both_succeed():
    lamp = tracked(stock=5)
    main, north = services.default_warehouse(), depot("north")
    results = race(
        move(main, north, StockLine(lamp.pk, None, 2)),
        lambda: services.warehouse_deactivate(warehouse_id=north.pk),
    )
    north = Warehouse.objects.get(pk=north.pk)
    if north.is_active:
        assert isinstance(results[0], Transfer)
        assert results[1].code == "warehouse_has_stock"
        assert quantity(north, lamp) == 2
    else:
        assert results[0].code == "warehouse_inactive"
        assert quantity(north, lamp) == 0
