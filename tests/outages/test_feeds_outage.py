"""Marketplace feeds while Redis (cache and broker) is stopped: every feed route answers
without a 5xx, a generation asked for waits in the outbox, the stored feed is still served
with its ETag (and 304), and once Redis is back the waiting generation runs."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from common import breaker, outbox
from store.feeds import services
from store.feeds.models import Feed
from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.outages.conftest import timed
from tests.outages.test_broker_outage import names, waiting, work_off
from tests.store.feeds.conftest import FEEDS, MAPPING, complete_product, enable

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.5  # as tests/outages/test_broker_outage.py


def test_feeds_answer_while_redis_is_stopped(redis_broker, django_capture_on_commit_callbacks):
    staff = APIClient()
    staff.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), "manage_options")))
    lamp = complete_product()
    mapping = {"mapping": {str(lamp.categories.get().pk): "1"}}
    enable("google")
    feed = services.generate(marketplace="google")
    etag = f'"{feed.file.etag}"'
    redis_broker.stop()

    anon = APIClient()
    url = f"{FEEDS}/google/feed.xml?token={feed.token}"
    with timed() as elapsed:
        answers = [
            staff.get(FEEDS),
            staff.get(f"{FEEDS}/google"),
            staff.get(f"{FEEDS}/google/skipped"),
            staff.patch(f"{FEEDS}/google", {"include_out_of_stock": True}, format="json"),
            staff.put(f"{MAPPING}/google", mapping, format="json"),
            staff.get(f"{MAPPING}/google"),
            anon.get(url),
        ]
    assert [a.status_code for a in answers] == [200] * 7, [a.content[:200] for a in answers]
    assert anon.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert elapsed() < 7 * REQUEST_BOUND

    with timed() as elapsed, django_capture_on_commit_callbacks(execute=True):
        asked = staff.post(f"{FEEDS}/google/generate")
    assert asked.status_code == 202, asked.content
    assert elapsed() < REQUEST_BOUND
    assert waiting("store_feeds.generate").count() == 1
    assert Feed.objects.get(marketplace="google").status == "queued"

    redis_broker.start()
    breaker.reset_all()
    assert outbox.drain() >= 1
    assert "store_feeds.generate" in names(work_off())
    status = staff.get(f"{FEEDS}/google").json()
    assert status["status"] == "ready"
    assert "g:google_product_category" in anon.get(url).content.decode()
