"""Within an HTTP request the store settings are read once (store.settings.selectors): the
first read keeps them for the rest of the request, a write in the request drops them, and
outside a request every read goes to the cache."""

from unittest import mock

import pytest
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection
from django.test.utils import CaptureQueriesContext

from store.settings import selectors, services
from tests.fixtures.store import API

pytestmark = pytest.mark.django_db


@pytest.fixture
def in_request():
    """Inside a request, as the signals mark it (the test's connection kept open, as the test
    client keeps it)."""
    request_finished.disconnect(close_old_connections)
    request_started.disconnect(close_old_connections)
    request_started.send(sender=None)
    try:
        yield
    finally:
        request_finished.send(sender=None)
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def cache_reads():
    return mock.patch.object(cache, "get", wraps=cache.get)


def test_a_request_reads_the_settings_once(in_request):
    cache.clear()
    with cache_reads() as reads, CaptureQueriesContext(connection) as queries:
        first = selectors.get_all()
        assert selectors.get_value("inventory", "low_stock_threshold") == 2
        assert selectors.get_section("products") == first["products"]
    assert reads.call_count == 1  # the first read only: missed, then loaded
    assert len(queries) == 1


def test_outside_a_request_every_read_goes_to_the_cache():
    selectors.get_all()
    with cache_reads() as reads:
        selectors.get_all()
        selectors.get_value("inventory", "low_stock_threshold")
    assert reads.call_count == 2


def test_the_next_request_reads_again(in_request):
    kept = selectors.get_all()
    request_finished.send(sender=None)
    request_started.send(sender=None)
    with cache_reads() as reads:
        assert selectors.get_all() is not kept
    assert reads.call_count == 1


def test_a_write_in_the_request_is_read_back_at_once(in_request):
    assert selectors.get_value("inventory", "low_stock_threshold") == 2
    services.settings_update(section="inventory", values={"low_stock_threshold": 9}, user=None)
    assert selectors.get_value("inventory", "low_stock_threshold") == 9


def test_a_product_list_reads_the_settings_from_the_cache_once(anon):
    """Cold: one query for them; a second read of the request would be a second cache read."""
    cache.clear()
    with cache_reads() as reads:
        assert anon.get(f"{API}/products").status_code == 200
    settings_reads = [c for c in reads.call_args_list if selectors.CACHE_KEY in str(c.args[0])]
    assert len(settings_reads) == 1
