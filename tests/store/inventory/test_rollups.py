"""The stock rollups (store.inventory.rollups) stay equal to a recount of the movements, and the
period sums read from them equal those read from every movement, after any sequence of stock
moves and closings.

Each example moves the clock forward across some days and, through the services, receives
goods at a cost, adjusts stock up and down, transfers between warehouses, places orders and
cancels and reopens them (their stock taken and given back), and runs the hourly task or closes
days up to a given day, in any order; a write the services refuse changes nothing. At the end:

- **The rollups are a recount**: StockDayRollup equals the movements of the closed days summed
  per warehouse and UTC day (counted here in Python), and what `rebuild` makes;
- **The period sums do not depend on the rollups**: `flows` and the ERP's stock stats answer,
  for periods before, across and after the watermark, per warehouse and in all, what they
  answer from the movements alone (no day closed) and what the movements sum to in Python.

Each example runs in a savepoint rolled back at its end.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from io import StringIO

import pytest
import time_machine
from django.apps import apps as global_apps
from django.core.management import call_command
from django.db import transaction
from django.db.migrations.loader import MigrationLoader
from hypothesis import given, settings
from hypothesis import strategies as st

from common.errors import ServiceError
from erp.inventory import selectors as erp_selectors
from store.inventory import rollups, services, tasks
from store.inventory.choices import SALE_REASONS, AdjustmentReason, MovementReason
from store.inventory.models import StockDayRollup, StockMovement, StockRollupWatermark
from store.inventory.services import Reference, StockLine
from store.orders import services as order_services
from store.orders.models import Order
from tests.fixtures.properties import examples
from tests.store.orders.factories import line, on_commit, stocked

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
DAY0 = START.date()
PICK = st.integers(0, 50)

OPERATION = st.one_of(
    st.tuples(st.just("later"), st.integers(1, 40)),  # hours forward
    st.tuples(st.just("later"), st.integers(1, 40)),
    st.tuples(st.just("receive"), st.integers(0, 2), st.integers(0, 1), st.integers(1, 20)),
    st.tuples(st.just("adjust"), st.integers(0, 2), st.integers(0, 1), st.integers(-15, 15)),
    st.tuples(st.just("transfer"), st.integers(0, 2), st.integers(1, 5)),
    st.tuples(
        st.just("order"),
        st.lists(st.tuples(st.integers(0, 2), st.integers(1, 4)), min_size=1, max_size=3),
        st.sampled_from(("processing", "pending")),
    ),
    st.tuples(st.just("status"), PICK, st.sampled_from(("cancelled", "processing", "refunded"))),
    st.tuples(st.just("task")),
    st.tuples(st.just("close"), st.integers(0, 12)),
)


@pytest.fixture
def world():
    """Made the day before the examples' clock starts (the ledger's first movements)."""
    with time_machine.travel(START - timedelta(days=1), tick=False):
        return _world()


def _world() -> dict:
    main = services.default_warehouse()
    depot = services.warehouse_create(fields={"name": "Depot", "code": "depot"})
    return {
        "products": [stocked(title, stock=30) for title in ("Lamp", "Desk", "Mug")],
        "warehouses": [main, depot],
    }


def apply(operation: tuple, world: dict, clock: list) -> None:
    kind, *args = operation
    products, warehouses = world["products"], world["warehouses"]
    if kind == "later":
        now = clock[1] + timedelta(hours=args[0], minutes=7)
        clock[0].stop()
        clock[0], clock[1] = time_machine.travel(now, tick=False), now
        clock[0].start()
    elif kind == "receive":
        product, warehouse, quantity = products[args[0]], warehouses[args[1]], args[2]
        services.stock_add_at_cost(
            warehouse_id=warehouse.pk,
            lines=[StockLine(product.pk, None, quantity, Decimal("2.50"))],
            reference=Reference(type="purchase_order", id="1"),
            key_prefix=f"po:{StockMovement.objects.count()}",
        )
    elif kind == "adjust":
        product, warehouse, quantity = products[args[0]], warehouses[args[1]], args[2]
        if quantity:
            services.stock_adjust(
                product_id=product.pk,
                warehouse_id=warehouse.pk,
                reason=AdjustmentReason.CORRECTION,
                quantity=quantity,
            )
    elif kind == "transfer":
        services.stock_transfer(
            from_warehouse_id=warehouses[0].pk,
            to_warehouse_id=warehouses[1].pk,
            lines=[StockLine(products[args[0]].pk, None, args[1])],
        )
    elif kind == "order":
        lines, status = args
        with on_commit():
            order_services.order_create(
                items=[line(products[index], quantity) for index, quantity in lines],
                status=status,
                billing_address={"email": "guest@example.com"},
            )
    elif kind == "status":
        orders = list(Order.objects.order_by("pk").values_list("pk", flat=True))
        if orders:
            with on_commit():
                order_services.order_status_set(
                    order_id=orders[args[0] % len(orders)], status=args[1]
                )
    elif kind == "task":
        tasks.close_stock_days()
    elif kind == "close":
        rollups.close_days(DAY0 + timedelta(days=args[0]))


# --- What the rows say ---------------------------------------------------------------------------


def recount(until: date | None) -> dict:
    """The movements of the days before `until`, summed per (day, warehouse) in Python."""
    sums: dict = defaultdict(lambda: [0, 0, 0])
    if until is None:
        return {}
    for moment, warehouse_id, quantity, reason in StockMovement.objects.values_list(
        "created_at", "warehouse_id", "quantity", "reason"
    ):
        day = moment.astimezone(UTC).date()
        if day < until:
            entry = sums[(day, warehouse_id)]
            entry[0] += quantity
            entry[1] += quantity if reason in SALE_REASONS else 0
            entry[2] += 1
    return {key: tuple(values) for key, values in sums.items()}


def rollup_rows() -> dict:
    return {
        (row.day, row.warehouse_id): (row.quantity, row.sales_quantity, row.movements)
        for row in StockDayRollup.objects.all()
    }


def rebuilt(until: date | None) -> dict:
    with transaction.atomic():
        rollups.rebuild(until or DAY0 - timedelta(days=400))
        if until is None:
            StockRollupWatermark.objects.filter(pk=1).update(closed_until=None)
        rows = rollup_rows()
        transaction.set_rollback(True)
    return rows


def flows_of_rows(date_from: date, date_to: date, warehouse_id: int | None) -> rollups.Flows:
    sold = within = after = 0
    movements = StockMovement.objects.all()
    if warehouse_id is not None:
        movements = movements.filter(warehouse_id=warehouse_id)
    for moment, quantity, reason in movements.values_list("created_at", "quantity", "reason"):
        day = moment.astimezone(UTC).date()
        if date_from <= day <= date_to:
            within += quantity
            sold -= quantity if reason in SALE_REASONS else 0
        elif day > date_to:
            after += quantity
    return rollups.Flows(sold=sold, within=within, after=after)


def periods(today: date) -> list[tuple[date, date]]:
    return [
        (DAY0, DAY0),
        (DAY0, DAY0 + timedelta(days=2)),
        (DAY0 + timedelta(days=1), DAY0 + timedelta(days=3)),
        (today - timedelta(days=29), today),
        (today - timedelta(days=1), today - timedelta(days=1)),
        (today, today),
        (DAY0 - timedelta(days=30), DAY0 - timedelta(days=1)),
        (today + timedelta(days=1), today + timedelta(days=3)),
    ]


def answers(world: dict) -> dict:
    today = datetime.now(UTC).date()
    out = {}
    for date_from, date_to in periods(today):
        for warehouse in (None, *world["warehouses"]):
            warehouse_id = warehouse.pk if warehouse else None
            out[("flows", date_from, date_to, warehouse_id)] = rollups.flows(
                date_from, date_to, warehouse_id
            )
            query = {"date_from": date_from, "date_to": date_to, "warehouse_id": warehouse_id}
            out[("stats", date_from, date_to, warehouse_id)] = erp_selectors.stock_stats(query)[
                "turnover"
            ]
    return out


def answers_from_rows(world: dict) -> dict:
    with transaction.atomic():
        StockRollupWatermark.objects.all().delete()
        out = answers(world)
        transaction.set_rollback(True)
    return out


@pytest.mark.slow(reason="thirty histories of stock moves through the services, each recounted")
@settings(max_examples=examples(10), deadline=None)
@given(operations=st.lists(OPERATION, min_size=1, max_size=12))
def test_the_rollups_are_a_recount_and_the_figures_do_not_depend_on_them(world, operations):
    clock = [time_machine.travel(START, tick=False), START]
    clock[0].start()
    try:
        with transaction.atomic():
            for operation in operations:
                try:
                    with transaction.atomic():
                        apply(operation, world, clock)
                except ServiceError:
                    pass
            tasks.close_stock_days()  # at least one closing per example...
            apply(("later", 30), world, clock)
            apply(("adjust", 0, 0, 5), world, clock)  # ...and movements after it
            watermark = rollups.closed_until()
            assert rollup_rows() == recount(watermark)
            assert rollup_rows() == rebuilt(watermark)
            got = answers(world)
            assert got == answers_from_rows(world)
            for (kind, date_from, date_to, warehouse_id), answer in got.items():
                if kind == "flows":
                    assert answer == flows_of_rows(date_from, date_to, warehouse_id)
            transaction.set_rollback(True)
    finally:
        clock[0].stop()


# --- Closing -------------------------------------------------------------------------------------

NOON = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


def movements_on(days: list[int], per_day: int = 2) -> None:
    """A product stocked on the first day, adjusted on the days NOON + day (clock frozen)."""
    with time_machine.travel(NOON + timedelta(days=min(days)), tick=False):
        lamp = stocked(stock=100)
    for day in days:
        with time_machine.travel(NOON + timedelta(days=day), tick=False):
            for n in range(per_day):
                services.stock_adjust(
                    product_id=lamp.pk,
                    warehouse_id=services.default_warehouse().pk,
                    reason=AdjustmentReason.FOUND,
                    quantity=n + 1,
                )


def test_the_task_closes_the_days_that_ended_a_margin_ago():
    movements_on([-3, -1])
    days = {(NOON + timedelta(days=d)).date() for d in (-3, -1)}
    just_after = datetime.combine(NOON.date(), datetime.min.time(), tzinfo=UTC)
    with time_machine.travel(just_after + timedelta(minutes=9), tick=False):
        assert tasks.close_stock_days() == (NOON - timedelta(days=1)).date().isoformat()
        assert {row.day for row in StockDayRollup.objects.all()} == {min(days)}
    with time_machine.travel(just_after + timedelta(minutes=11), tick=False):
        assert tasks.close_stock_days() == NOON.date().isoformat()
        assert {row.day for row in StockDayRollup.objects.all()} == days


def test_closing_is_idempotent_and_never_closes_a_day_still_running(
    django_assert_max_num_queries,
):
    movements_on([-5, -2, 0])
    with time_machine.travel(NOON, tick=False):
        assert rollups.close_days() == NOON.date()
        first = rollup_rows()
        assert first == recount(NOON.date())
        assert sum(movements for _q, _s, movements in first.values()) == 4 + 1  # + the initial
        with django_assert_max_num_queries(4):  # the watermark's lock (get), and done
            assert rollups.close_days() == NOON.date()
        tasks.close_stock_days()
        # a day after the cutoff asked for: closed only to the cutoff
        assert rollups.close_days(NOON.date() + timedelta(days=5)) == NOON.date()
        assert rollup_rows() == first
        assert rollups.closed_until() == NOON.date()


def test_the_rollups_count_sales_apart():
    with time_machine.travel(NOON - timedelta(days=2), tick=False):
        lamp = stocked(stock=20)
    with time_machine.travel(NOON - timedelta(days=1), tick=False):
        order = order_services.order_create(
            items=[line(lamp, 3)], status="processing", billing_address={"email": "a@ex.com"}
        )
        for status in ("cancelled", "processing"):
            with on_commit():
                order_services.order_status_set(order_id=order.pk, status=status)
    with time_machine.travel(NOON, tick=False):
        rollups.close_days()
    rows = {
        day: (quantity, sales) for (day, _warehouse), (quantity, sales, _n) in rollup_rows().items()
    }
    reasons = set(StockMovement.objects.values_list("reason", flat=True))
    assert {MovementReason.ORDER_CANCELLED, MovementReason.ORDER_REOPENED} <= reasons
    yesterday = (NOON - timedelta(days=1)).date()
    stocked_day = StockMovement.objects.earliest("id").created_at.astimezone(UTC).date()
    assert rows[yesterday][1] == -3
    assert sum(quantity for quantity, _sales in rows.values()) == 20 - 3
    assert stocked_day in rows


# --- Rebuilding ----------------------------------------------------------------------------------


def test_the_rebuild_command_recounts_rows_written_straight_into_the_table():
    movements_on([-4, -1])
    with time_machine.travel(NOON, tick=False):
        rollups.close_days()
        # movements imported into closed days, and a rollup row gone wrong
        template = StockMovement.objects.earliest("id")
        StockMovement.objects.bulk_create(
            [
                StockMovement(
                    warehouse_id=template.warehouse_id,
                    product_id=template.product_id,
                    quantity=7,
                    quantity_after=0,
                    reason=MovementReason.ORDER_DELETED,
                    idempotency_key=f"import:{n}",
                    created_at=NOON - timedelta(days=10 + n),
                )
                for n in range(3)
            ]
        )
        StockDayRollup.objects.filter(pk=StockDayRollup.objects.earliest("pk").pk).update(
            quantity=999
        )
        assert rollup_rows() != recount(NOON.date())
        out = StringIO()
        call_command("rebuild_stock_rollups", stdout=out)
        assert "days before 2026-06-15 closed" in out.getvalue()
        assert rollup_rows() == recount(NOON.date())
        call_command("rebuild_stock_rollups", stdout=StringIO())  # again: the same
        assert rollup_rows() == recount(NOON.date())


MIGRATION = ("store_inventory", "0005_stock_day_rollups")


@pytest.fixture
def loader(settings):
    """The project's migrations (SQLite's test database is built without them)."""
    settings.MIGRATION_MODULES = {}
    return MigrationLoader(None, ignore_no_migrations=True)


def back_fill_of(loader):
    migration = loader.get_migration(*MIGRATION)
    return next(op.code for op in migration.operations if getattr(op, "code", None))


def test_the_migration_back_fills_with_its_own_models(loader):
    movements_on([-2])
    historical = loader.project_state(MIGRATION).apps
    assert historical.get_model("store_inventory", "StockDayRollup") is not StockDayRollup
    with time_machine.travel(NOON, tick=False):
        back_fill_of(loader)(historical, None)
    assert rollups.closed_until() == NOON.date()
    assert rollup_rows() == recount(NOON.date())


def test_a_shop_without_movements_is_left_to_the_task(loader):
    assert not StockMovement.objects.exists()
    back_fill_of(loader)(global_apps, None)
    assert rollups.closed_until() is None
