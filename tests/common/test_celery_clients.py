"""common.celery_fixes.reuse_clients: a broker channel keeps one Redis client per pool."""

from __future__ import annotations

import os
import uuid

import pytest
from kombu import Connection

from common import celery_fixes

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")


def test_a_channel_reuses_its_client_until_its_pool_changes_and_messages_still_flow():
    celery_fixes.reuse_clients()  # as config.celery does; idempotent
    with Connection(os.environ["REDIS_URL"]) as connection:
        channel = connection.default_channel
        first = channel._create_client()
        assert channel._create_client() is first
        assert channel._create_client(asynchronous=True) is not first
        channel._pool = None  # kombu makes a new pool after closing the old one
        renewed = channel._create_client()
        assert renewed is not first
        assert renewed.connection_pool is channel.pool
        queue = connection.SimpleQueue(f"kombu-clients-{uuid.uuid4().hex[:8]}")
        try:
            for n in range(3):
                queue.put({"n": n})
            got = []
            for _ in range(3):
                message = queue.get(timeout=5)
                got.append(message.payload["n"])
                message.ack()
            assert got == [0, 1, 2]
        finally:
            queue.queue.delete()
            queue.close()


def test_uninstalled_every_call_builds_a_client():
    celery_fixes.build_clients()
    try:
        with Connection(os.environ["REDIS_URL"]) as connection:
            channel = connection.default_channel
            assert channel._create_client() is not channel._create_client()
    finally:
        celery_fixes.reuse_clients()
