import pytest

from tests.store.orders.factories import stocked


@pytest.fixture
def lamp(db):
    return stocked(title="Lamp", stock=10, price="10.40", sku="LAMP-1")
