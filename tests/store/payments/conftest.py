import pytest

from tests.store.payments.helpers import enable


@pytest.fixture
def online(db, settings):
    """The online gateways on, served by the sandbox (allowed, as in development)."""
    settings.PAYMENT_SANDBOX_ALLOWED = True
    enable("stripe", "paypal", "bank_redirect")


@pytest.fixture
def payments_staff(store_client, db):
    from tests.accounts.factories import UserFactory
    from tests.fixtures.store import grant

    return store_client(grant(UserFactory(), "ec_manage_payments"))
