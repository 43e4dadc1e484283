"""The CRM while Redis (the cache and the broker) is stopped or frozen: contacts, leads,
their moves and conversion, activities, the dashboard and the RFM scores answer quickly from
the database (the CRM needs neither the cache nor the broker; the gate's verdict was cached
before the outage, and a cache that answers nothing only makes the gate ask again)."""

from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from erp.core import services as erp_services
from erp.crm.models import Contact, Lead
from tests.accounts.factories import UserFactory
from tests.erp.conftest import store_licence
from tests.erp.crm.conftest import CRM, make_customer, paid_order
from tests.fixtures.store import API, basic_auth, grant
from tests.outages.conftest import timed

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.0  # as tests/outages/test_cache_outage.py


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_the_crm_works_while_redis_is_out(redis_broker, kind):
    erp_services.erp_activate(license_key=store_licence().license_key)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), CRM)))
    paid_order(make_customer("ada@example.com", first_name="Ada"), "40.00")
    assert client.get(f"{API}/contacts").status_code == 200  # the gate's verdict cached

    redis_broker.stop() if kind == "stopped" else redis_broker.freeze()

    def call(method, path, body=None, status=200):
        with timed() as elapsed:
            response = getattr(client, method)(f"{API}{path}", body or {}, format="json")
        assert (response.status_code, elapsed() < REQUEST_BOUND) == (status, True), (
            path,
            response.content,
        )
        return response.json()

    assert call("post", "/contacts/import-customers") == {
        "created": 1,
        "updated": 0,
        "skipped": 0,
    }
    lead = call("post", "/leads", {"title": "Deal", "email": "new@example.com"}, status=201)
    call("post", f"/leads/{lead['id']}/move-stage", {"stage": "qualified"})
    converted = call("post", f"/leads/{lead['id']}/convert", {"create_customer": True})
    assert converted["customer_created"] is True
    call(
        "post",
        "/activities",
        {
            "kind": "call",
            "subject": "Ring",
            "due_at": timezone.now().isoformat(),
            "lead_id": lead["id"],
        },
        status=201,
    )
    assert call("get", "/crm/dashboard")["leads"]["open"] == 1
    assert call("get", "/crm/rfm")["total"] == 1
    assert call("get", "/leads/pipeline")["stages"][1]["count"] == 1
    assert Contact.objects.count() == 2
    assert Lead.objects.get().stage == "qualified"
