"""The ledger's ERP operations (store.inventory.services): receive at cost, adjust,
transfer, stocktake, reorder settings, deactivation; the ledger and the catalog's stock fields
stay right after any sequence of them."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db.models import Sum
from hypothesis import given, settings
from hypothesis import strategies as st

from common.errors import ServiceError
from store.catalog.models import Product, Variant
from store.inventory import services
from store.inventory.choices import MovementReason
from store.inventory.models import StockLevel, StockMovement, Warehouse
from store.inventory.services import Reference, StockLine
from tests.fixtures.properties import examples
from tests.store.catalog.factories import TermFactory, make_product, make_variant

pytestmark = pytest.mark.django_db


def tracked(title="Lamp", stock=0, **fields) -> Product:
    return make_product(title=title, track_inventory=True, stock_quantity=stock, **fields)


def depot(code="depot", **fields) -> Warehouse:
    return services.warehouse_create(fields={"name": code.title(), "code": code, **fields})


def receive(warehouse, item, quantity, cost, key=None):
    product_id, variant_id = (
        (item.product_id, item.pk) if isinstance(item, Variant) else (item.pk, None)
    )
    return services.stock_add_at_cost(
        warehouse_id=warehouse.pk,
        lines=[StockLine(product_id, variant_id, quantity, Decimal(cost))],
        reference=Reference(type="test", id="r"),
        key_prefix=key or f"test:{StockMovement.objects.count()}",
    )


def level(warehouse, product, variant=None) -> StockLevel:
    return StockLevel.objects.get(warehouse=warehouse, product=product, variant=variant)


# --- Average cost --------------------------------------------------------------------------------


def test_average_cost_is_the_moving_average_of_receipts():
    assert services.average_cost(0, None, 10, Decimal("2")) == Decimal("2.0000")
    assert services.average_cost(10, Decimal("2"), 10, Decimal("4")) == Decimal("3.0000")
    assert services.average_cost(3, Decimal("1"), 0, Decimal("9")) == Decimal("1")
    assert services.average_cost(-5, Decimal("1"), 5, Decimal("7")) == Decimal("7.0000")
    assert services.average_cost(5, Decimal("1"), 5, None) == Decimal("1")
    assert services.average_cost(2, Decimal("1"), 1, Decimal("0")) == Decimal("0.6667")


def test_a_receipt_posts_movements_at_cost_and_moves_the_average():
    lamp = tracked()
    main = services.default_warehouse()
    receive(main, lamp, 10, "2.00", key="po:1")
    receive(main, lamp, 30, "4.00", key="po:2")
    assert level(main, lamp).unit_cost == Decimal("3.5000")
    assert list(
        StockMovement.objects.order_by("id").values_list("reason", "quantity", "unit_cost")
    ) == [
        (MovementReason.PURCHASE_RECEIVED, 10, Decimal("2.0000")),
        (MovementReason.PURCHASE_RECEIVED, 30, Decimal("4.0000")),
    ]
    lamp.refresh_from_db()
    assert (lamp.stock_quantity, lamp.stock_status) == (40, "in_stock")
    with pytest.raises(ServiceError) as refused:
        receive(main, lamp, 10, "2.00", key="po:1")
    assert refused.value.code == "duplicate_stock_movement"
    assert level(main, lamp).quantity == 40


# --- Adjust --------------------------------------------------------------------------------------


def test_adjust_by_a_delta_or_to_a_quantity_with_a_reason():
    lamp = tracked(stock=5)
    main = services.default_warehouse()
    moved = services.stock_adjust(
        product_id=lamp.pk, warehouse_id=0, quantity=-2, reason="damaged", note="dropped"
    )
    assert (moved.quantity, moved.quantity_after, moved.reason) == (-2, 3, "manual_adjustment")
    assert (moved.reference_type, moved.reference_id, moved.note) == (
        "adjustment",
        "damaged",
        "dropped",
    )
    moved = services.stock_adjust(
        product_id=lamp.pk, warehouse_id=main.pk, new_quantity=8, reason="found"
    )
    assert moved.quantity == 5
    assert (
        services.stock_adjust(
            product_id=lamp.pk, warehouse_id=main.pk, new_quantity=8, reason="found"
        )
        is None
    )
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 8


def test_adjust_refusals_change_nothing():
    lamp = tracked(stock=2)
    before = StockMovement.objects.count()
    cases = [
        ({"quantity": -3, "reason": "lost"}, "insufficient_stock"),
        ({"quantity": 1, "reason": "because"}, "invalid_param"),
        ({"quantity": 0, "reason": "lost"}, "invalid_param"),
        ({"quantity": 1, "new_quantity": 1, "reason": "lost"}, "invalid_param"),
        ({"quantity": -1, "reason": "lost", "unit_cost": Decimal(1)}, "invalid_param"),
        ({"quantity": 1, "reason": "lost", "warehouse_id": 10**9}, "warehouse_not_found"),
        ({"quantity": 1, "reason": "lost", "variant_id": 10**9}, "variant_not_found"),
    ]
    for extra, code in cases:
        fields = {"product_id": lamp.pk, "warehouse_id": 0, **extra}
        with pytest.raises(ServiceError) as refused:
            services.stock_adjust(**fields)
        assert refused.value.code == code, extra
    assert StockMovement.objects.count() == before


def test_backorders_let_an_adjustment_go_below_zero():
    lamp = tracked(stock=1, allow_backorders=True)
    services.stock_adjust(product_id=lamp.pk, warehouse_id=0, quantity=-3, reason="correction")
    lamp.refresh_from_db()
    assert (lamp.stock_quantity, lamp.stock_status) == (-2, "on_backorder")


def test_adding_at_a_cost_moves_the_average_taking_carries_it():
    lamp = tracked()
    main = services.default_warehouse()
    receive(main, lamp, 4, "10.00")
    added = services.stock_adjust(
        product_id=lamp.pk, warehouse_id=0, quantity=4, reason="found", unit_cost=Decimal(20)
    )
    assert added.unit_cost == Decimal(20)
    assert level(main, lamp).unit_cost == Decimal("15.0000")
    taken = services.stock_adjust(product_id=lamp.pk, warehouse_id=0, quantity=-1, reason="theft")
    assert StockMovement.objects.get(pk=taken.pk).unit_cost == Decimal("15.0000")
    assert level(main, lamp).unit_cost == Decimal("15.0000")


# --- Transfer ------------------------------------------------------------------------------------


def test_a_transfer_moves_units_at_the_average_cost():
    lamp, mug = tracked(), tracked("Mug")
    main, other = services.default_warehouse(), depot()
    receive(main, lamp, 10, "3.00")
    receive(other, lamp, 10, "5.00")
    receive(main, mug, 2, "1.00")
    transfer = services.stock_transfer(
        from_warehouse_id=0,
        to_warehouse_id=other.pk,
        lines=[StockLine(lamp.pk, None, 10), StockLine(mug.pk, None, 2)],
        note="rebalance",
    )
    assert [(m.reason, m.quantity, m.unit_cost) for m in transfer.out] == [
        ("transfer_out", -10, Decimal("3.0000")),
        ("transfer_out", -2, Decimal("1.0000")),
    ]
    assert [(m.reason, m.quantity, m.unit_cost) for m in transfer.into] == [
        ("transfer_in", 10, Decimal("3.0000")),
        ("transfer_in", 2, Decimal("1.0000")),
    ]
    assert {m.reference_id for m in (*transfer.out, *transfer.into)} == {transfer.reference}
    assert (level(main, lamp).quantity, level(other, lamp).quantity) == (0, 20)
    assert level(other, lamp).unit_cost == Decimal("4.0000")
    assert level(other, mug).unit_cost == Decimal("1.0000")
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 20


def test_a_transfer_with_one_short_line_changes_nothing():
    lamp, mug = tracked(stock=5), tracked("Mug", stock=1)
    other = depot()
    before = list(StockLevel.objects.values_list("pk", "quantity", "unit_cost"))
    movements = StockMovement.objects.count()
    with pytest.raises(ServiceError) as refused:
        services.stock_transfer(
            from_warehouse_id=0,
            to_warehouse_id=other.pk,
            lines=[StockLine(lamp.pk, None, 5), StockLine(mug.pk, None, 2)],
        )
    assert refused.value.code == "insufficient_stock"
    assert set(refused.value.errors) == {"lines.1.quantity"}
    assert list(StockLevel.objects.values_list("pk", "quantity", "unit_cost")) == before
    assert StockMovement.objects.count() == movements
    # two lines of one item are checked together
    with pytest.raises(ServiceError):
        services.stock_transfer(
            from_warehouse_id=0,
            to_warehouse_id=other.pk,
            lines=[StockLine(lamp.pk, None, 3), StockLine(lamp.pk, None, 3)],
        )
    assert StockMovement.objects.count() == movements


def test_transfer_refusals():
    lamp = tracked(stock=5, allow_backorders=True)
    other = depot()
    inactive = depot("closed")
    services.warehouse_set_active(warehouse_id=inactive.pk, active=False)
    cases = [
        ({"to_warehouse_id": 0}, "invalid_param"),
        ({"to_warehouse_id": inactive.pk}, "warehouse_inactive"),
        ({"to_warehouse_id": 10**9}, "warehouse_not_found"),
        ({"lines": []}, "invalid_param"),
        ({"lines": [StockLine(lamp.pk, None, 0)]}, "invalid_param"),
        ({"lines": [StockLine(lamp.pk, None, 6)]}, "insufficient_stock"),  # never backorders
        ({"lines": [StockLine(10**9, None, 1)]}, "product_not_found"),
    ]
    for extra, code in cases:
        fields = {
            "from_warehouse_id": 0,
            "to_warehouse_id": other.pk,
            "lines": [StockLine(lamp.pk, None, 1)],
            **extra,
        }
        with pytest.raises(ServiceError) as refused:
            services.stock_transfer(**fields)
        assert refused.value.code == code, extra
    assert StockMovement.objects.filter(reason__startswith="transfer").count() == 0


def test_transfer_of_variants_keeps_the_product_totals():
    shirt = make_product(title="Shirt", type="variable")
    red = make_variant(shirt, TermFactory(), track_inventory=True, stock_quantity=6)
    other = depot()
    services.stock_transfer(
        from_warehouse_id=0, to_warehouse_id=other.pk, lines=[StockLine(shirt.pk, red.pk, 4)]
    )
    red.refresh_from_db()
    shirt.refresh_from_db()
    assert (red.stock_quantity, shirt.stock_quantity) == (6, 6)
    assert level(other, shirt, red).quantity == 4
    with pytest.raises(ServiceError) as refused:
        services.stock_transfer(
            from_warehouse_id=0,
            to_warehouse_id=other.pk,
            lines=[StockLine(tracked("Mug").pk, red.pk, 1)],  # not the mug's variant
        )
    assert refused.value.code == "variant_not_found"


# --- Stocktake -----------------------------------------------------------------------------------


def test_a_stocktake_posts_the_differences_and_leaves_the_rest():
    lamp, mug, vase = tracked(stock=5), tracked("Mug", stock=3), tracked("Vase", stock=9)
    result = services.stock_stocktake(
        warehouse_id=0,
        counts=[StockLine(lamp.pk, None, 4), StockLine(mug.pk, None, 3)],
        note="year end",
    )
    assert [(c.expected, c.counted, c.difference) for c in result.counts] == [(5, 4, -1), (3, 3, 0)]
    assert result.counts[1].movement is None
    stocktake = StockMovement.objects.get(reason=MovementReason.STOCKTAKE)
    assert (stocktake.quantity, stocktake.reference_id, stocktake.note) == (
        -1,
        result.reference,
        "year end",
    )
    vase.refresh_from_db()
    assert vase.stock_quantity == 9  # not counted, untouched
    fresh = tracked("Plate")  # no level yet: counted 2 makes one
    services.stock_stocktake(warehouse_id=0, counts=[StockLine(fresh.pk, None, 2)])
    fresh.refresh_from_db()
    assert fresh.stock_quantity == 2


def test_stocktake_refusals_change_nothing():
    lamp = tracked(stock=5)
    movements = StockMovement.objects.count()
    for counts, code in [
        ([], "invalid_param"),
        ([StockLine(lamp.pk, None, 1), StockLine(lamp.pk, None, 2)], "invalid_param"),
        ([StockLine(lamp.pk, None, -1)], "invalid_param"),
        ([StockLine(lamp.pk, None, 1), StockLine(10**9, None, 1)], "product_not_found"),
    ]:
        with pytest.raises(ServiceError) as refused:
            services.stock_stocktake(warehouse_id=0, counts=counts)
        assert refused.value.code == code
    assert StockMovement.objects.count() == movements


# --- Reorder settings and deactivation -----------------------------------------------------------


def test_reorder_settings():
    lamp = tracked(stock=5)
    main = services.default_warehouse()
    saved = services.stock_reorder_set(
        level_id=level(main, lamp).pk, fields={"reorder_point": 5, "reorder_quantity": 20}
    )
    assert (saved.reorder_point, saved.reorder_quantity) == (5, 20)
    services.stock_reorder_set(level_id=saved.pk, fields={"reorder_point": None})
    assert level(main, lamp).reorder_point is None
    with pytest.raises(ServiceError):
        services.stock_reorder_set(level_id=10**9, fields={})


def test_an_inactive_warehouse_takes_no_stock_in():
    lamp = tracked(stock=2)
    closed = depot("closed")
    services.warehouse_set_active(warehouse_id=closed.pk, active=False)
    for call in (
        lambda: receive(closed, lamp, 1, "1.00"),
        lambda: services.stock_adjust(
            product_id=lamp.pk, warehouse_id=closed.pk, quantity=1, reason="found"
        ),
    ):
        with pytest.raises(ServiceError) as refused:
            call()
        assert (refused.value.code, refused.value.status_code) == ("warehouse_inactive", 409)
    assert not StockLevel.objects.filter(warehouse=closed).exists()


def test_a_warehouse_holding_stock_cannot_be_deactivated():
    lamp = tracked()
    other = depot()
    receive(other, lamp, 3, "1.00")
    with pytest.raises(ServiceError) as refused:
        services.warehouse_deactivate(warehouse_id=other.pk)
    assert (refused.value.code, refused.value.status_code) == ("warehouse_has_stock", 409)
    services.stock_transfer(
        from_warehouse_id=other.pk, to_warehouse_id=0, lines=[StockLine(lamp.pk, None, 3)]
    )
    assert services.warehouse_deactivate(warehouse_id=other.pk).is_active is False
    with pytest.raises(ServiceError) as refused:
        services.warehouse_deactivate(warehouse_id=services.default_warehouse().pk)
    assert refused.value.code == "default_warehouse"


# --- The invariant -------------------------------------------------------------------------------

OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["receive", "transfer", "adjust", "set", "stocktake", "sell"]),
        st.integers(0, 2),  # item
        st.integers(0, 2),  # warehouse
        st.integers(0, 2),  # other warehouse
        st.integers(-6, 12),  # quantity
    ),
    min_size=1,
    max_size=25,
)


def check_ledger(items, warehouses) -> None:
    """Each level is the sum of its movements; each item's stock fields the sum of its levels in
    active warehouses; no level below zero (no item here allows backorders)."""
    for level_row in StockLevel.objects.filter(product__in=[p for p, _ in items]):
        posted = level_row.movements.aggregate(total=Sum("quantity"))["total"] or 0
        assert level_row.quantity == posted, level_row
        assert level_row.quantity >= 0, level_row
    for product, variant in items:
        row = variant or product
        row.refresh_from_db()
        query = StockLevel.objects.filter(product=product, variant=variant)
        active = query.filter(warehouse__is_active=True).aggregate(t=Sum("quantity"))["t"] or 0
        assert row.stock_quantity == active, row


def run(step, items, warehouses) -> None:
    kind, item_index, wh, other, quantity = step
    product, variant = items[item_index]
    variant_id = variant.pk if variant else None
    source, target = warehouses[wh], warehouses[other]
    if kind == "receive":
        services.stock_add_at_cost(
            warehouse_id=source.pk,
            lines=[StockLine(product.pk, variant_id, abs(quantity) + 1, Decimal("2.50"))],
            reference=Reference(type="test"),
            key_prefix=f"prop:{StockMovement.objects.count()}:{source.pk}",
        )
    elif kind == "transfer":
        services.stock_transfer(
            from_warehouse_id=source.pk,
            to_warehouse_id=target.pk,
            lines=[StockLine(product.pk, variant_id, abs(quantity) or 1)],
        )
    elif kind == "adjust":
        services.stock_adjust(
            product_id=product.pk,
            variant_id=variant_id,
            warehouse_id=source.pk,
            quantity=quantity or 1,
            reason="correction",
        )
    elif kind == "set":
        services.stock_adjust(
            product_id=product.pk,
            variant_id=variant_id,
            warehouse_id=source.pk,
            new_quantity=abs(quantity),
            reason="correction",
        )
    elif kind == "stocktake":
        services.stock_stocktake(
            warehouse_id=source.pk,
            counts=[StockLine(p.pk, v.pk if v else None, abs(quantity)) for p, v in items[:2]],
        )
    else:  # an order's take, from active warehouses
        services.stock_take(
            needs=[services.Need(1, product.pk, variant_id, abs(quantity) or 1)],
            reason=MovementReason.ORDER_PLACED,
            reference=Reference(type="order", id=str(StockMovement.objects.count())),
            key_prefix=f"order:{StockMovement.objects.count()}",
        )


@settings(max_examples=examples(20))
@given(steps=OPERATIONS)
def test_stock_always_equals_the_ledger_sum(steps):
    shirt = make_product(title="Shirt", type="variable")
    items = [
        (tracked(), None),
        (tracked("Mug", stock=3), None),
        (shirt, make_variant(shirt, TermFactory(), track_inventory=True, stock_quantity=2)),
    ]
    main = services.default_warehouse()
    count = Warehouse.objects.count()
    warehouses = [main, depot(f"a{count}"), depot(f"b{count}")]
    services.warehouse_set_active(warehouse_id=warehouses[2].pk, active=False)
    for step in steps:
        snapshot = list(StockLevel.objects.order_by("pk").values_list("pk", "quantity"))
        try:
            run(step, items, warehouses)
        except ServiceError:  # a refusal changes nothing
            after = list(StockLevel.objects.order_by("pk").values_list("pk", "quantity"))
            assert after == snapshot
        check_ledger(items, warehouses)


# --- Admin ---------------------------------------------------------------------------------------


def test_the_admin_sets_reorder_points_and_shows_the_erp_movements(admin_client):
    lamp = tracked(stock=4)
    other = depot()
    services.stock_transfer(
        from_warehouse_id=0, to_warehouse_id=other.pk, lines=[StockLine(lamp.pk, None, 1)]
    )
    level_row = level(services.default_warehouse(), lamp)
    url = f"/admin/store_inventory/stocklevel/{level_row.pk}/change/"
    assert admin_client.get(url).status_code == 200
    response = admin_client.post(
        url, {"reorder_point": "3", "reorder_quantity": "12", "quantity": "999"}
    )
    assert response.status_code == 302, response.content
    level_row.refresh_from_db()
    assert (level_row.reorder_point, level_row.reorder_quantity, level_row.quantity) == (3, 12, 3)
    listed = admin_client.get("/admin/store_inventory/stockmovement/?reason=transfer_in")
    assert listed.status_code == 200
    assert b"Transferred in" in listed.content
    assert admin_client.get("/admin/store_inventory/stocklevel/add/").status_code == 403
