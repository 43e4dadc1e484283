"""Callers of the debug namespace: an administrator (manage_options), a shop manager, a
customer, anonymous; entries made directly."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone
from rest_framework.test import APIClient

from debugtools import handler
from debugtools.choices import Level, Source
from debugtools.models import LogEntry
from store.common.capabilities import MANAGE_OPTIONS, SHOP_MANAGER_ROLE
from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant

BASE = "/rest/core/v1/debug"


@pytest.fixture(autouse=True)
def _default_recording_level():
    """The recording level is held in memory per process: every test starts from the default."""
    handler.note_level(handler.DEFAULT_LEVEL)
    yield
    handler.note_level(handler.DEFAULT_LEVEL)


def client_of(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(user))
    return client


@pytest.fixture
def admin(db):
    return grant(UserFactory(email="debug-admin@example.com"), MANAGE_OPTIONS)


@pytest.fixture
def admin_api(admin):
    return client_of(admin)


@pytest.fixture
def callers(db):
    """The callers refused everywhere but js-log: anonymous, a customer, a shop manager."""
    manager = UserFactory(email="debug-manager@example.com")
    manager.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    return {
        "anonymous": (APIClient(), 401),
        "customer": (client_of(UserFactory(email="debug-customer@example.com")), 403),
        "shop_manager": (client_of(manager), 403),
    }


def entry(
    message="something happened",
    *,
    level=Level.WARNING,
    logger="store.orders",
    request_id="",
    source=Source.SERVER,
    age=timedelta(0),
    context=None,
) -> LogEntry:
    return LogEntry.objects.create(
        message=message,
        level=level,
        logger=logger,
        request_id=request_id,
        source=source,
        context=context or {},
        created_at=timezone.now() - age,
    )
