"""The ERP's licence gate while Redis (the cache) is stopped or frozen: the verdict is read from
the database, quickly, and a revoke still closes the ERP."""

from __future__ import annotations

import pytest
from rest_framework.test import APIRequestFactory, force_authenticate

from erp.core import gate
from erp.core import services as erp_services
from licensing.services.lifecycle import license_revoke
from tests.accounts.factories import UserFactory
from tests.erp.conftest import store_licence
from tests.erp.test_gate import GatedView
from tests.fixtures.store import API, basic_auth
from tests.outages.conftest import timed

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.0  # as tests/outages/test_cache_outage.py


def gated(user):
    request = APIRequestFactory().get("/rest/ec/v1/invoices")
    force_authenticate(request, user=user)
    return GatedView.as_view()(request)


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_the_gate_reads_the_database_while_redis_is_out(redis_cache, kind, client):
    admin = UserFactory(is_superuser=True, is_staff=True)
    licence = store_licence()
    erp_services.erp_activate(license_key=licence.license_key)
    assert gated(admin).status_code == 200
    assert gate.current().open  # cached in Redis

    redis_cache.stop() if kind == "stopped" else redis_cache.freeze()
    with timed() as elapsed:
        response = gated(admin)
    assert (response.status_code, elapsed() < REQUEST_BOUND) == (200, True)
    with timed() as elapsed:
        status = client.get(f"{API}/erp/status", HTTP_AUTHORIZATION=basic_auth(admin))
    assert (status.status_code, status.json()["available"], elapsed() < REQUEST_BOUND) == (
        200,
        True,
        True,
    )
    license_revoke(user=licence.owner, license_id=licence.pk)
    with timed() as elapsed:
        response = gated(admin)
    assert (response.status_code, response.data["code"]) == (403, "erp_license_required")
    assert elapsed() < REQUEST_BOUND
