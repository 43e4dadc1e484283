from __future__ import annotations

import pytest

from store.common.capabilities import manage
from tests.accounts.factories import UserFactory
from tests.fixtures.store import grant


@pytest.fixture
def clerk(db):
    return grant(UserFactory(email="clerk@example.com"), manage("invoicing"))


@pytest.fixture
def api(erp_on, store_client, clerk):
    """A client with ec_manage_invoicing, the ERP on."""
    return store_client(clerk)
