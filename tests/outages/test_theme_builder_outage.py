"""The page builder with Redis (the cache) stopped: layouts, templates and presets live in the
database and the package, so every builder route still answers, quickly, without a 5xx, and
what is written during the outage is read back."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from store.common.capabilities import EDIT_POSTS
from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.outages.conftest import timed
from theme.builder.models import Layout, LayoutTemplate

pytestmark = pytest.mark.django_db
BASE = "/rest/theme/v1"
REQUEST_BOUND = 2.0  # as tests/outages/test_cache_outage.py
HEADING = {"type": "heading", "settings": {"text": "Up", "level": 2}}


def test_every_builder_route_answers_with_redis_stopped(redis_cache):
    editor = APIClient()
    editor.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), EDIT_POSTS)))
    guest = APIClient()
    redis_cache.stop()

    def call(method, path, body=None, client=editor, **headers):
        with timed() as elapsed:
            response = getattr(client, method)(f"{BASE}/{path}", body, format="json", **headers)
        assert response.status_code < 500, (path, response.status_code, response.content[:300])
        assert elapsed() < REQUEST_BOUND, (path, elapsed())
        return response

    body = {"blocks": [HEADING], "version": 0, "status": "published"}
    assert call("post", "builder/layout/8", body, HTTP_IDEMPOTENCY_KEY="o-1").status_code == 201
    assert call("get", "builder/layout/8", client=guest).json()["layout"]["version"] == 1
    stale = call("post", "builder/layout/8", body)
    assert stale.status_code == 409
    assert "Up" in call("get", "builder/preview/8").json()["html"]
    assert "Up" in call("post", "builder/preview/8", {"blocks": [HEADING]}).json()["html"]
    assert "Up" in call("post", "builder/render", {"blocks": [HEADING]}).json()["html"]
    assert call("get", "builder/blocks").status_code == 200
    created = call("post", "builder/templates", {"name": "T", "blocks": [HEADING]})
    assert created.status_code == 201
    template_id = created.json()["template"]["id"]
    assert call("get", "builder/templates").json()["total"] == 1
    patched = call("patch", f"builder/templates/{template_id}", {"name": "T2"})
    assert patched.json()["template"]["version"] == 2
    assert call("get", f"builder/templates/{template_id}").json()["template"]["name"] == "T2"
    assert call("get", "presets", client=guest).status_code == 200
    assert call("get", "presets/hero/centered", client=guest).status_code == 200
    assert call("delete", f"builder/templates/{template_id}").status_code == 200
    assert Layout.objects.get().version == 1
    assert not LayoutTemplate.objects.exists()
