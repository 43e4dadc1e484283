"""Fixtures of the store webhooks tests: the webhooks tests' fake DNS and loopback receiver,
a staff member holding ec_manage_webhooks, and store webhooks made through the services."""

from __future__ import annotations

import pytest

from store.common.capabilities import MANAGE_WEBHOOKS
from tests.accounts.factories import UserFactory
from tests.fixtures.store import grant
from tests.webhooks.conftest import allow_private, dns, on_commit, receiver  # noqa: F401
from webhooks import services
from webhooks.models import StoreEvent

HOOKS = "/rest/ec/v1/webhooks"
URL = "https://hooks.example.com/store"


@pytest.fixture
def integrator(db):
    return grant(UserFactory(email="integrator@example.com"), MANAGE_WEBHOOKS)


@pytest.fixture
def hooks_client(store_client, integrator):
    return store_client(integrator)


def store_webhook(url: str = URL, events=None, **fields):
    return services.store_webhook_create(
        url=url, events=list(events or StoreEvent.values), **fields
    )
