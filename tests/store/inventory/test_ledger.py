"""The inventory ledger: every stock change is a movement; the catalog's stock fields follow."""

import pytest
from django.apps import apps
from django.db import connection

from common.errors import Conflict, ServiceError
from store.catalog.models import Product, Variant
from store.inventory import selectors, services
from store.inventory.choices import MovementReason
from store.inventory.models import StockLevel, StockMovement
from tests.fixtures.store import API, error
from tests.store.catalog.factories import TermFactory, make_product, make_variant

pytestmark = pytest.mark.django_db


def levels_of(item) -> dict[str, int]:
    query = StockLevel.objects.filter(product_id=getattr(item, "product_id", item.pk))
    query = query.filter(variant=item) if isinstance(item, Variant) else query.filter(variant=None)
    return {level.warehouse.code: level.quantity for level in query.select_related("warehouse")}


def test_a_product_created_with_stock_gets_a_level_and_a_movement(manager_client, manager):
    body = manager_client.post(
        f"{API}/products", {"title": "Lamp", "stock_quantity": 7}, format="json"
    ).json()
    product = Product.objects.get(pk=body["id"])
    assert (body["stock_quantity"], body["stock_status"]) == (7, "in_stock")
    assert levels_of(product) == {"main": 7}
    movement = StockMovement.objects.get()
    assert (movement.quantity, movement.quantity_after, movement.reason) == (
        7,
        7,
        MovementReason.MANUAL_ADJUSTMENT,
    )
    assert (movement.reference_type, movement.reference_id, movement.actor) == (
        "product",
        str(product.pk),
        manager,
    )


def test_an_update_of_the_quantity_is_a_movement_of_the_difference(manager_client):
    product = make_product(title="Lamp", stock_quantity=7)
    body = manager_client.patch(
        f"{API}/products/{product.pk}", {"stock_quantity": 3}, format="json"
    ).json()
    assert body["stock_quantity"] == 3
    assert list(StockMovement.objects.order_by("id").values_list("quantity", "quantity_after")) == [
        (7, 7),
        (-4, 3),
    ]
    manager_client.patch(f"{API}/products/{product.pk}", {"stock_quantity": 3}, format="json")
    manager_client.patch(f"{API}/products/{product.pk}", {"title": "Desk lamp"}, format="json")
    assert StockMovement.objects.count() == 2  # no change, no movement


def test_zero_stock_makes_no_movement_and_is_out_of_stock(manager_client):
    body = manager_client.post(
        f"{API}/products", {"title": "Mug", "stock_quantity": 0}, format="json"
    ).json()
    assert (body["stock_quantity"], body["stock_status"]) == (0, "out_of_stock")
    assert not StockMovement.objects.exists()


def test_variants_have_their_own_levels_and_the_product_sums_them(manager_client):
    shirt = make_product(title="Shirt", type="variable")
    red, blue = TermFactory(), TermFactory()
    a = make_variant(shirt, red, stock_quantity=4)
    b = make_variant(shirt, blue, stock_quantity=0)
    assert (a.stock_quantity, a.stock_status) == (4, "in_stock")
    assert (b.stock_quantity, b.stock_status) == (0, "out_of_stock")
    shirt.refresh_from_db()
    assert (shirt.stock_quantity, shirt.stock_status) == (4, "in_stock")
    manager_client.patch(f"{API}/variants/{b.pk}", {"stock_quantity": 6}, format="json")
    shirt.refresh_from_db()
    assert shirt.stock_quantity == 10
    assert levels_of(b) == {"main": 6}
    assert StockMovement.objects.filter(variant=b).get().quantity == 6


def test_the_total_counts_active_warehouses_and_a_set_total_adjusts_the_default():
    lamp = make_product(title="Lamp", stock_quantity=5)
    depot = services.warehouse_create(fields={"name": "Depot"})
    services.stock_set(product_id=lamp.pk, quantity=4, warehouse_id=depot.pk)
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 9
    services.stock_set(product_id=lamp.pk, quantity=6)  # the total: the default takes 2
    assert levels_of(lamp) == {"main": 2, "depot": 4}
    services.warehouse_set_active(warehouse_id=depot.pk, active=False)
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 2


def test_a_total_below_the_other_warehouses_is_refused(manager_client):
    lamp = make_product(title="Lamp", stock_quantity=1)
    depot = services.warehouse_create(fields={"name": "Depot"})
    services.stock_set(product_id=lamp.pk, quantity=5, warehouse_id=depot.pk)
    body = error(
        manager_client.patch(
            f"{API}/products/{lamp.pk}", {"stock_quantity": 3, "title": "New"}, format="json"
        ),
        400,
        "stock_in_other_warehouses",
    )
    assert "stock_quantity" in body["data"]["params"]
    lamp.refresh_from_db()
    assert (lamp.title, lamp.stock_quantity) == ("Lamp", 6)  # nothing changed
    assert levels_of(lamp) == {"main": 1, "depot": 5}


def test_an_idempotency_key_changes_stock_once():
    lamp = make_product(title="Lamp", stock_quantity=1)
    first = services.stock_set(product_id=lamp.pk, quantity=9, idempotency_key="count-2026-01")
    again = services.stock_set(product_id=lamp.pk, quantity=4, idempotency_key="count-2026-01")
    assert first is not None
    assert again is None
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 9


def test_the_database_refuses_a_movement_key_twice():
    lamp = make_product(title="Lamp", stock_quantity=1)
    level = StockLevel.objects.get(product=lamp)
    services._post(level, 1, reason="manual_adjustment", reference=services.Reference(), key="k1")
    with pytest.raises(Conflict) as caught:
        services._post(
            level, 1, reason="manual_adjustment", reference=services.Reference(), key="k1"
        )
    assert caught.value.code == "duplicate_stock_movement"


def test_negative_stock_cannot_be_set():
    lamp = make_product(title="Lamp", stock_quantity=1)
    with pytest.raises(ServiceError):
        services.stock_set(product_id=lamp.pk, quantity=-1)


def test_deleting_products_and_variants_writes_their_stock_out_of_the_ledger(manager_client):
    lamp = make_product(title="Lamp", sku="LAMP", stock_quantity=3)
    shirt = make_product(title="Shirt", type="variable")
    variant = make_variant(shirt, TermFactory(), sku="SHIRT-R", stock_quantity=2)
    assert manager_client.delete(f"{API}/variants/{variant.pk}").status_code == 204
    assert manager_client.delete(f"{API}/products/{lamp.pk}").status_code == 204
    out = StockMovement.objects.filter(reason=MovementReason.ITEM_DELETED).order_by("id")
    assert list(out.values_list("sku", "quantity", "quantity_after")) == [
        ("SHIRT-R", -2, 0),
        ("LAMP", -3, 0),
    ]
    assert not StockLevel.objects.exists()
    assert StockMovement.objects.count() == 4  # the history stays


def test_a_duplicate_holds_no_stock(manager_client):
    lamp = make_product(title="Lamp", sku="L", stock_quantity=8)
    copy = manager_client.post(f"{API}/products/{lamp.pk}/duplicate").json()
    assert (copy["stock_quantity"], copy["stock_status"]) == (0, "out_of_stock")
    assert StockMovement.objects.count() == 1


def test_the_manual_status_of_untracked_items_goes_through_the_inventory(manager_client):
    lamp = make_product(title="Lamp")
    body = manager_client.patch(
        f"{API}/products/{lamp.pk}", {"stock_status": "on_backorder"}, format="json"
    ).json()
    assert body["stock_status"] == "on_backorder"
    tracked = make_product(title="Tracked", stock_quantity=1)
    with pytest.raises(ServiceError):
        services.stock_status_set(product_id=tracked.pk, status="out_of_stock")


def test_backorders_turn_the_status_when_stock_runs_out(manager_client):
    lamp = make_product(title="Lamp", stock_quantity=0)
    body = manager_client.patch(
        f"{API}/products/{lamp.pk}", {"allow_backorders": True}, format="json"
    ).json()
    assert body["stock_status"] == "on_backorder"


def test_stock_is_taken_from_the_default_first_then_by_priority_and_given_back_last_first():
    lamp = make_product(title="Lamp", stock_quantity=2)
    far = services.warehouse_create(fields={"name": "Far", "priority": 20})
    near = services.warehouse_create(fields={"name": "Near", "priority": 10})
    services.stock_set(product_id=lamp.pk, quantity=3, warehouse_id=far.pk)
    services.stock_set(product_id=lamp.pk, quantity=3, warehouse_id=near.pk)
    reference = services.Reference(type="test", id="1")
    need = services.Need(line=1, product_id=lamp.pk, variant_id=None, quantity=6)
    services.stock_take(needs=[need], reason="order_placed", reference=reference, key_prefix="t1")
    assert levels_of(lamp) == {"main": 0, "near": 0, "far": 2}
    assert services.held_by(reference_type="test", reference_id="1") == {
        1: {
            StockLevel.objects.get(product=lamp, warehouse__code=code).pk: units
            for code, units in (("main", 2), ("near", 3), ("far", 1))
        }
    }
    services.stock_release(reference=reference, keep={1: 2}, reason="order_edited", key_prefix="t2")
    assert levels_of(lamp) == {"main": 0, "near": 3, "far": 3}  # the default's 2 are kept
    services.stock_release(reference=reference, keep={}, reason="order_cancelled", key_prefix="t3")
    assert levels_of(lamp) == {"main": 2, "near": 3, "far": 3}
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 8


def test_taking_more_than_there_is_refuses_everything():
    lamp = make_product(title="Lamp", stock_quantity=2)
    mug = make_product(title="Mug", stock_quantity=5)
    needs = [
        services.Need(line=1, product_id=mug.pk, variant_id=None, quantity=1),
        services.Need(line=2, product_id=lamp.pk, variant_id=None, quantity=2, label="Lamp"),
        services.Need(line=3, product_id=lamp.pk, variant_id=None, quantity=1, label="Lamp"),
    ]
    with pytest.raises(services.InsufficientStock) as caught:
        services.stock_take(
            needs=needs, reason="order_placed", reference=services.Reference(), key_prefix="x"
        )
    assert [s.need.line for s in caught.value.shortages] == [2, 3]
    assert caught.value.code == "insufficient_stock"
    assert (levels_of(lamp), levels_of(mug)) == ({"main": 2}, {"main": 5})


def test_an_item_that_allows_backorders_goes_below_zero():
    lamp = make_product(title="Lamp", stock_quantity=1, allow_backorders=True)
    need = services.Need(
        line=1, product_id=lamp.pk, variant_id=None, quantity=3, allow_backorders=True
    )
    services.stock_take(
        needs=[need], reason="order_placed", reference=services.Reference(), key_prefix="b"
    )
    lamp.refresh_from_db()
    assert (lamp.stock_quantity, lamp.stock_status) == (-2, "on_backorder")


def test_inactive_warehouses_are_not_taken_from():
    lamp = make_product(title="Lamp", stock_quantity=0)
    depot = services.warehouse_create(fields={"name": "Depot"})
    services.stock_set(product_id=lamp.pk, quantity=5, warehouse_id=depot.pk)
    services.warehouse_set_active(warehouse_id=depot.pk, active=False)
    need = services.Need(line=1, product_id=lamp.pk, variant_id=None, quantity=1)
    with pytest.raises(services.InsufficientStock):
        services.stock_take(
            needs=[need], reason="order_placed", reference=services.Reference(), key_prefix="i"
        )


def test_the_lookup_answers_the_stock_of_the_warehouse_asked_for(manager_client):
    ean = "4006381333931"
    lamp = make_product(title="Lamp", ean=ean, stock_quantity=4)
    depot = services.warehouse_create(fields={"name": "Depot"})
    services.stock_set(product_id=lamp.pk, quantity=9, warehouse_id=depot.pk)
    answers = {
        warehouse_id: manager_client.get(
            f"{API}/products/lookup", {"barcode": ean, "warehouse_id": warehouse_id}
        ).json()
        for warehouse_id in (0, depot.pk)
    }
    assert answers[0]["stock_quantity"] == 4
    assert (answers[depot.pk]["warehouse_id"], answers[depot.pk]["stock_quantity"]) == (
        depot.pk,
        9,
    )
    assert selectors.stock_elsewhere(product_id=lamp.pk, variant_id=None) == 9


def test_the_opening_balance_migration_accounts_for_stock_made_before_the_ledger():
    from importlib import import_module

    migration = import_module("store.inventory.migrations.0001_initial")
    lamp = Product.objects.create(title="Old", slug="old", track_inventory=True)
    Product.objects.filter(pk=lamp.pk).update(stock_quantity=12)  # as an older version stored it
    migration.opening_stock(apps, connection.schema_editor())
    movement = StockMovement.objects.get(product=lamp)
    assert (movement.quantity, movement.reason, movement.reference_type) == (
        12,
        "initial_stock",
        "migration",
    )
    assert levels_of(lamp) == {"main": 12}


@pytest.mark.parametrize("compiled_up_to", [64, 0], ids=["compiled", "built-each-time"])
def test_the_lock_of_products_and_levels_answers_the_same_compiled_or_built(
    monkeypatch, compiled_up_to, django_assert_num_queries
):
    """The stock lock is compiled once per shape up to a bound of parameters; a larger shape
    is built each time. Both take and give back the same stock, own items and variants alike."""
    from store.inventory.services import _ledger

    monkeypatch.setattr(_ledger, "COMPILED_LOCK_PARAMETERS", compiled_up_to)
    lamp = make_product(title="Lamp", sku="LAMP", stock_quantity=5)
    shirt = make_product(title="Shirt", type="variable")
    red = make_variant(shirt, TermFactory(), sku="SHIRT-RED", stock_quantity=4)
    reference = services.Reference(type="test", id="lock")
    needs = [
        services.Need(line=1, product_id=lamp.pk, variant_id=None, quantity=2),
        services.Need(line=2, product_id=shirt.pk, variant_id=red.pk, quantity=3),
    ]
    services.stock_take(needs=needs, reason="order_placed", reference=reference, key_prefix="k1")
    assert (levels_of(lamp), levels_of(red)) == ({"main": 3}, {"main": 1})
    lamp_level = StockLevel.objects.get(product=lamp, variant=None)
    red_level = StockLevel.objects.get(variant=red)
    locked = _ledger._lock_stock(
        [lamp.pk, shirt.pk], level_ids=[red_level.pk, lamp_level.pk], with_skus=True
    )
    assert [(lv.pk, lv.warehouse.code, lv.product_sku) for lv in locked] == sorted(
        [(lamp_level.pk, "main", "LAMP"), (red_level.pk, "main", shirt.sku)]
    )
    with django_assert_num_queries(0):
        assert _ledger._lock_stock([lamp.pk]) == []  # no level asked for
    services.stock_release(reference=reference, keep={}, reason="order_cancelled", key_prefix="k2")
    assert (levels_of(lamp), levels_of(red)) == ({"main": 5}, {"main": 4})
    red.refresh_from_db()
    assert red.stock_quantity == 4
