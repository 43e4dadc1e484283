import pytest

from tests.store.checkout.helpers import Shop


@pytest.fixture
def shop(db):
    return Shop()
