"""The outage fixtures (a Redis of the test's own, to stop and freeze) for test_outage.py."""

from tests.outages.conftest import (  # noqa: F401 - fixtures
    redis_broker,
    redis_cache,
    redis_server,
)
