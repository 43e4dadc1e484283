"""store.inventory.services.stock_receive (the ERP's purchase receipts): movements at cost,
the levels' moving-average cost, refusals that change nothing."""

from decimal import Decimal

import pytest

from common.errors import Conflict, ServiceError
from store.inventory import services
from store.inventory.models import StockLevel, StockMovement
from tests.store.catalog.factories import TermFactory, make_product, make_variant

pytestmark = pytest.mark.django_db
REF = services.Reference(type="purchase_order", id="7", note="GRN00001")


def receipt(item, quantity, cost, line=None):
    if getattr(item, "product_id", None):
        return services.Receipt(item.product_id, item.pk, quantity, Decimal(cost), line)
    return services.Receipt(item.pk, None, quantity, Decimal(cost), line)


def level(item) -> StockLevel:
    return StockLevel.objects.get(product=item, variant=None)


def test_receipts_post_movements_at_cost_and_average_the_level():
    lamp = make_product(title="Lamp", sku="LAMP", stock_quantity=0)
    main = services.default_warehouse()
    movements = services.stock_receive(
        receipts=[receipt(lamp, 4, "2.00", 1), receipt(lamp, 6, "3.00", 2)],
        warehouse_id=main.pk,
        reference=REF,
        key_prefix="grn:1",
    )
    assert [(m.quantity, m.quantity_after, m.unit_cost, m.reason, m.sku) for m in movements] == [
        (4, 4, Decimal("2.0000"), "purchase_received", "LAMP"),
        (6, 10, Decimal("3.0000"), "purchase_received", "LAMP"),
    ]
    assert (level(lamp).quantity, level(lamp).unit_cost) == (10, Decimal("2.6000"))
    lamp.refresh_from_db()
    assert (lamp.stock_quantity, lamp.stock_status) == (10, "in_stock")
    posted = StockMovement.objects.filter(level=level(lamp)).values_list("quantity", flat=True)
    assert sum(posted) == 10


@pytest.mark.parametrize(
    ("quantity", "cost", "received", "received_cost", "average"),
    [
        (10, "2", 5, "3.5", "2.5000"),  # (10 x 2 + 5 x 3.5) / 15
        (0, "9", 3, "1", "1.0000"),  # nothing in stock: the receipt's cost
        (-4, "9", 3, "1", "1.0000"),  # backorders do not weigh
        (5, None, 1, "1.23456", "1.2346"),  # units of unknown cost do not weigh; 4 places
        (2, "1", 1, "0", "0.6667"),  # a free unit lowers the average
    ],
)
def test_the_moving_average_arithmetic(quantity, cost, received, received_cost, average):
    assert services.average_cost(
        quantity, None if cost is None else Decimal(cost), received, Decimal(received_cost)
    ) == Decimal(average)


def test_variants_and_stock_without_a_known_cost():
    shirt = make_product(title="Shirt", type="variable", attributes=[])
    red = make_variant(shirt, TermFactory(), sku="RED", stock_quantity=3)
    main = services.default_warehouse()
    services.stock_receive(
        receipts=[receipt(red, 2, "5.00")], warehouse_id=main.pk, reference=REF, key_prefix="g"
    )
    red_level = StockLevel.objects.get(variant=red)
    assert (red_level.quantity, red_level.unit_cost) == (5, Decimal("5.0000"))


def test_refusals_change_nothing():
    lamp = make_product(title="Lamp", sku="LAMP", stock_quantity=1)
    main = services.default_warehouse()
    with pytest.raises(ServiceError):
        services.stock_receive(
            receipts=[receipt(lamp, 0, "1")], warehouse_id=main.pk, reference=REF, key_prefix="a"
        )
    with pytest.raises(ServiceError):
        services.stock_receive(
            receipts=[receipt(lamp, 1, "-1")], warehouse_id=main.pk, reference=REF, key_prefix="a"
        )
    with pytest.raises(ServiceError):
        services.stock_receive(
            receipts=[receipt(lamp, 1, "1")], warehouse_id=999999, reference=REF, key_prefix="a"
        )
    other = services.warehouse_create(fields={"name": "Shut"})
    services.warehouse_set_active(warehouse_id=other.pk, active=False)
    with pytest.raises(ServiceError) as refused:
        services.stock_receive(
            receipts=[receipt(lamp, 1, "1")], warehouse_id=other.pk, reference=REF, key_prefix="a"
        )
    assert refused.value.code == "warehouse_inactive"
    services.stock_receive(
        receipts=[receipt(lamp, 2, "1")], warehouse_id=main.pk, reference=REF, key_prefix="once"
    )
    with pytest.raises(Conflict):
        services.stock_receive(
            receipts=[receipt(lamp, 2, "9")], warehouse_id=main.pk, reference=REF, key_prefix="once"
        )
    assert (level(lamp).quantity, level(lamp).unit_cost) == (3, Decimal("1.0000"))
    assert StockMovement.objects.filter(reason="purchase_received").count() == 1
