"""Warehouses: one default, always present and active."""

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from common.errors import ServiceError
from store.inventory import services
from store.inventory.models import StockLevel, StockMovement, Warehouse
from tests.store.catalog.factories import make_product

pytestmark = pytest.mark.django_db


def test_the_default_warehouse_exists_after_migrate():
    default = Warehouse.objects.get(is_default=True)
    assert (default.code, default.is_active) == ("main", True)
    assert services.default_warehouse() == default


def test_a_missing_default_is_made_again():
    Warehouse.objects.all().delete()
    assert services.default_warehouse().is_default is True
    assert Warehouse.objects.filter(is_default=True).count() == 1


def test_the_database_allows_one_default_only_and_keeps_it_active():
    with pytest.raises(IntegrityError), transaction.atomic():
        Warehouse.objects.create(name="Other", code="other", is_default=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        Warehouse.objects.filter(is_default=True).update(is_active=False)


def test_moving_the_default():
    old = services.default_warehouse()
    depot = services.warehouse_create(fields={"name": "Depot"})
    services.warehouse_set_default(warehouse_id=depot.pk)
    assert services.default_warehouse() == depot
    old.refresh_from_db()
    assert old.is_default is False


def test_an_inactive_warehouse_cannot_become_the_default():
    depot = services.warehouse_create(fields={"name": "Depot", "is_active": False})
    with pytest.raises(ServiceError) as caught:
        services.warehouse_set_default(warehouse_id=depot.pk)
    assert caught.value.code == "warehouse_inactive"


def test_the_default_cannot_be_deactivated_or_deleted():
    default = services.default_warehouse()
    for call in (
        lambda: services.warehouse_set_active(warehouse_id=default.pk, active=False),
        lambda: services.warehouse_delete(warehouse_id=default.pk),
    ):
        with pytest.raises(ServiceError) as caught:
            call()
        assert caught.value.code == "default_warehouse"
    default.refresh_from_db()
    assert default.is_active is True


def test_a_warehouse_with_stock_history_is_deactivated_not_deleted():
    lamp = make_product(title="Lamp", stock_quantity=0)
    depot = services.warehouse_create(fields={"name": "Depot"})
    empty = services.warehouse_create(fields={"name": "Empty"})
    services.stock_set(product_id=lamp.pk, quantity=2, warehouse_id=depot.pk)
    with pytest.raises(ServiceError) as caught:
        services.warehouse_delete(warehouse_id=depot.pk)
    assert caught.value.code == "warehouse_in_use"
    services.warehouse_delete(warehouse_id=empty.pk)
    assert not Warehouse.objects.filter(pk=empty.pk).exists()
    assert StockLevel.objects.filter(warehouse=depot).exists()


def test_codes_are_unique_and_made_from_the_name():
    first = services.warehouse_create(fields={"name": "North Depot"})
    second = services.warehouse_create(fields={"name": "North Depot"})
    assert (first.code, second.code) == ("north-depot", "north-depot-2")
    with pytest.raises(ServiceError):
        services.warehouse_create(fields={"name": "X", "code": "north-depot"})
    with pytest.raises(ServiceError):
        services.warehouse_update(warehouse_id=second.pk, fields={"code": "north-depot"})


def test_deactivating_and_activating_moves_the_totals():
    lamp = make_product(title="Lamp", stock_quantity=1)
    depot = services.warehouse_create(fields={"name": "Depot"})
    services.stock_set(product_id=lamp.pk, quantity=4, warehouse_id=depot.pk)
    services.warehouse_update(warehouse_id=depot.pk, fields={"is_active": False})
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 1
    services.warehouse_set_active(warehouse_id=depot.pk, active=True)
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 5


# --- Admin --------------------------------------------------------------------------------------


def test_stock_levels_and_movements_are_read_only_in_the_admin(admin_client):
    make_product(title="Lamp", stock_quantity=3)
    level, movement = StockLevel.objects.get(), StockMovement.objects.get()
    for model, obj in ((StockLevel, level), (StockMovement, movement)):
        name = model._meta.model_name
        assert (
            admin_client.get(reverse(f"admin:store_inventory_{name}_changelist")).status_code == 200
        )
        change = reverse(f"admin:store_inventory_{name}_change", args=[obj.pk])
        page = admin_client.get(change)
        assert page.status_code == 200
        assert admin_client.get(reverse(f"admin:store_inventory_{name}_add")).status_code == 403
    movement_change = reverse("admin:store_inventory_stockmovement_change", args=[movement.pk])
    assert b"_save" not in admin_client.get(movement_change).content
    assert admin_client.post(movement_change, {"quantity": 99}).status_code == 403
    # A level's reorder settings are editable (through the service); its quantity not.
    admin_client.post(
        reverse("admin:store_inventory_stocklevel_change", args=[level.pk]), {"quantity": 99}
    )
    level.refresh_from_db()
    assert level.quantity == 3


def test_warehouses_in_the_admin_go_through_the_services(admin_client):
    add = reverse("admin:store_inventory_warehouse_add")
    response = admin_client.post(
        add, {"name": "Depot", "code": "", "priority": 5, "is_active": "on"}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    depot = Warehouse.objects.get(name="Depot")
    assert depot.code == "depot"
    changelist = reverse("admin:store_inventory_warehouse_changelist")
    admin_client.post(changelist, {"action": "make_default", "_selected_action": [depot.pk]})
    depot.refresh_from_db()
    assert depot.is_default is True
    # The default refuses deactivation; the admin reports it instead of failing.
    response = admin_client.post(
        changelist, {"action": "deactivate", "_selected_action": [depot.pk]}, follow=True
    )
    assert b"cannot be deactivated" in response.content
    depot.refresh_from_db()
    assert depot.is_active is True
