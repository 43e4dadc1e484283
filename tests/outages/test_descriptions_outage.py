"""The API descriptions with Redis (the cache) stopped: the gate reads the store setting
from the database, so each namespace's description still answers an administrator (and still
refuses anyone else), quickly once generated."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from store.docs.schema import CORE, STORE, THEME, schema_document
from store.settings import services as settings_services
from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.outages.conftest import timed

pytestmark = pytest.mark.django_db
REQUEST_BOUND = 2.0  # as tests/outages/test_cache_outage.py
DESCRIPTIONS = {"ec": STORE, "theme": THEME, "core": CORE}


@pytest.mark.slow(
    reason="starts a Redis of its own and generates the three descriptions where its worker has "
    "not yet (seconds each on PostgreSQL)"
)
def test_every_description_answers_with_redis_stopped(redis_cache):
    settings_services.settings_update(section="developer", values={"api_docs_enabled": True})
    for name in DESCRIPTIONS.values():
        schema_document(name)  # generated once per process, as a running service has
    admin = APIClient()
    admin.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), "manage_options")))
    shopper = APIClient()
    shopper.credentials(HTTP_AUTHORIZATION=basic_auth(UserFactory()))
    redis_cache.stop()
    for namespace in DESCRIPTIONS:
        url = f"/rest/{namespace}/v1/docs/openapi.json"
        with timed() as elapsed:
            response = admin.get(url)
        assert response.status_code == 200, (url, response.content[:300])
        assert response.json()["servers"] == [{"url": f"/rest/{namespace}/v1"}]
        assert elapsed() < REQUEST_BOUND, (url, elapsed())
        assert shopper.get(url).status_code == 403, url
