"""The day's limit holds under concurrent calls (PostgreSQL: each thread its own connection):
the conditional UPDATE lets exactly `limit` calls through, however they interleave."""

from __future__ import annotations

import threading

import pytest
from django.db import connections
from django.test import override_settings

from tests.accounts.factories import UserFactory
from theme.mcp import services
from theme.mcp.models import McpDailyUsage

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.postgresql_only  # concurrent connections
@override_settings(THEME_MCP_CALLS_PER_MINUTE=0, THEME_MCP_CALLS_PER_DAY=5)
def test_concurrent_calls_never_pass_the_day_limit():
    user = UserFactory(email="race-mcp@example.com")
    start = threading.Barrier(12)
    outcomes: list[bool] = []
    lock = threading.Lock()

    def one_call():
        try:
            start.wait()
            refused = services.count_call(user) is not None
            with lock:
                outcomes.append(refused)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=one_call) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count(False) == 5
    assert outcomes.count(True) == 7
    assert McpDailyUsage.objects.get(user=user).calls == 5
