import pytest

from tests.accounts.factories import UserFactory
from tests.fixtures.store import grant


@pytest.fixture(autouse=True)
def _sandbox_allowed(settings):
    settings.COURIER_SANDBOX_ALLOWED = True
    settings.COURIER_ACS_API_URL = "https://acs.test/ACSRestServices/api/ACSAutoRest"


@pytest.fixture
def shipping_client(store_client, db):
    return store_client(grant(UserFactory(email="ship@example.com"), "ec_manage_shipping"))


@pytest.fixture
def orders_client(store_client, db):
    return store_client(grant(UserFactory(email="orders@example.com"), "ec_manage_orders"))
