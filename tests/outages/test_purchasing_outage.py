"""Purchasing while the broker refuses: sending a purchase order answers at once and its
e-mail (the PDF attached) waits in the outbox until the broker is back."""

from __future__ import annotations

import pytest
from django.core import mail
from rest_framework.test import APIClient

from common import outbox
from common.models import OutboxMessage
from erp.core import services as erp_services
from erp.purchasing.models import PurchaseOrder, PurchaseOrderEmail
from erp.purchasing.services import SEND_TASK
from tests.accounts.factories import UserFactory
from tests.erp.conftest import store_licence
from tests.erp.purchasing.conftest import BASE, PURCHASING, make_order, make_supplier, product
from tests.fixtures.store import basic_auth, grant
from tests.outages.conftest import timed
from tests.outbox import broker_down

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.0  # as tests/outages/test_cache_outage.py


def test_a_purchase_order_e_mail_waits_in_the_outbox_while_the_broker_is_down(
    django_capture_on_commit_callbacks,
):
    erp_services.erp_activate(license_key=store_licence().license_key)
    buyer_client = APIClient()
    buyer_client.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), PURCHASING)))
    order = make_order(make_supplier(), (product(), 2, "3.00"))
    with broker_down(), django_capture_on_commit_callbacks(execute=True), timed() as elapsed:
        response = buyer_client.post(f"{BASE}/purchase-orders/{order.pk}/send", {}, format="json")
    assert response.status_code == 200, response.content
    assert elapsed() < REQUEST_BOUND
    assert PurchaseOrder.objects.get(pk=order.pk).status == "sent"
    waiting = OutboxMessage.objects.get(task=SEND_TASK, sent_at__isnull=True)
    assert PurchaseOrderEmail.objects.get().status == "queued"
    assert mail.outbox == []
    # the broker is back (eager here): the drain publishes it and the e-mail leaves once
    outbox.publish([waiting.pk])
    assert [m.attachments[0][0] for m in mail.outbox] == [f"{order.number}.pdf"]
    assert PurchaseOrderEmail.objects.get().status == "sent"
    outbox.publish([waiting.pk])
    assert len(mail.outbox) == 1
