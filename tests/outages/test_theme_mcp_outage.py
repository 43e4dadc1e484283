"""The AI tool endpoint with Redis (the cache) stopped: the database is the truth, so every
ability still answers through the SDK's client, quickly; the per-minute limit (cache,
best-effort) is not enforced, the per-day limit (database) still is."""

from __future__ import annotations

import pytest
from django.test import override_settings
from mcp import MCPError

from tests.outages.conftest import timed
from tests.store.orders.factories import line, make_order, stocked
from tests.theme.mcp.conftest import (  # noqa: F401 - fixtures
    admin_auth,
    licensed,
    run_session,
    url,
)
from theme.mcp.models import McpDailyUsage
from theme.mcp.services import RATE_LIMITED

pytestmark = pytest.mark.django_db(transaction=True)
SESSION_BOUND = 10.0  # connect (server/discover) + 8 calls, each its own HTTP request


@override_settings(THEME_MCP_CALLS_PER_MINUTE=1, THEME_MCP_CALLS_PER_DAY=7)
def test_every_ability_answers_with_redis_stopped(redis_cache, url, admin_auth, licensed):  # noqa: F811
    lamp = stocked(title="Desk lamp", stock=1, low_stock_threshold=5)
    order = make_order(line(lamp, 1), status="processing")
    redis_cache.stop()

    async def work(client):
        calls = [
            ("search_products", {"query": "lamp"}),
            ("get_product", {"product_id": lamp.pk}),
            ("list_orders", {}),
            ("get_order", {"order_id": order.pk}),
            ("store_stats", {}),
            ("low_stock", {}),
            ("customer_summaries", {}),
        ]
        results = {name: await client.call_tool(name, args) for name, args in calls}
        with pytest.raises(MCPError) as caught:
            await client.call_tool("low_stock", {})
        return results, caught.value.error

    with timed() as elapsed:
        results, error = run_session(url, admin_auth, work)
    assert elapsed() < SESSION_BOUND, elapsed()
    for name, result in results.items():
        assert not result.is_error, (name, result.content)
    assert results["get_order"].structured_content["id"] == order.pk
    # seven calls passed a per-minute limit of one (the cache is down: not enforced) and the
    # eighth met the day's limit, counted in the database
    assert error.code == RATE_LIMITED
    assert error.data["window"] == "day"
    assert McpDailyUsage.objects.get().calls == 7
