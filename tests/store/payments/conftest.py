import pytest
import requests
from requests.adapters import HTTPAdapter

from tests.store.payments.helpers import enable


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """No request leaves the machine: a provider call that no recorded exchange (`responses`,
    which patches over this while active) answers fails as an unreachable provider would."""

    def refuse(self, request, **kwargs):
        raise requests.ConnectionError(f"No network in the tests: {request.method} {request.url}")

    monkeypatch.setattr(HTTPAdapter, "send", refuse)


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
