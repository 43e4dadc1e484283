"""The broker (Redis) down when an invoice is sent to the tax authority: the request answers
202 at once, the transmission waits in the outbox, and goes (once) when the broker is back."""

from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from common import breaker, outbox
from common.models import OutboxMessage
from config.celery import app as celery_app
from erp.core import services as erp_services
from erp.invoicing.models import Transmission
from store.common.capabilities import manage
from tests.accounts.factories import UserFactory
from tests.erp.conftest import store_licence
from tests.erp.invoicing.helpers import INVOICES, configure, draft_body
from tests.fixtures.store import basic_auth, grant
from tests.outages.conftest import timed
from tests.outages.test_broker_outage import REQUEST_BOUND, names, waiting, work_off

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_a_transmission_waits_for_the_broker_and_goes_once(
    redis_broker, django_capture_on_commit_callbacks, kind
):
    erp_services.erp_activate(license_key=store_licence().license_key)
    configure()
    clerk = grant(UserFactory(), manage("invoicing"))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=basic_auth(clerk))
    invoice = api.post(INVOICES, draft_body(), format="json").json()
    assert api.post(f"{INVOICES}/{invoice['id']}/issue").status_code == 200

    redis_broker.stop() if kind == "stopped" else redis_broker.freeze()
    with timed() as elapsed, django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"{INVOICES}/{invoice['id']}/transmit")
    assert response.status_code == 202, response.content
    assert elapsed() < REQUEST_BOUND
    assert response.json()["status"] == "pending"
    assert waiting("erp_invoicing.transmit").count() == 1
    assert outbox.drain() == 0  # still down: nothing sent, nothing lost
    assert Transmission.objects.get(invoice_id=invoice["id"]).status == "pending"

    if kind == "stopped":
        redis_broker.start()
    else:
        redis_broker.thaw()
    breaker.reset_all()
    OutboxMessage.objects.update(due_at=timezone.now())
    assert outbox.drain() == 1
    ran = work_off()
    assert names(ran) == ["erp_invoicing.transmit"]
    sent = Transmission.objects.get(invoice_id=invoice["id"])
    assert (sent.status, sent.attempts) == ("sent", 1)
    mark = sent.mark
    # Delivered again (a publisher that died before marking it sent): nothing is sent twice.
    for name, args, kwargs in ran:
        celery_app.tasks[name].apply_async(args=args, kwargs=kwargs)
    assert names(work_off()) == ["erp_invoicing.transmit"]
    sent.refresh_from_db()
    assert (sent.mark, sent.attempts) == (mark, 1)
