"""Redis (the cache and the broker) down: accounting needs neither. An invoice issued, a
payment recorded and goods received post their entries at the commit of their change
(no task, no broker), the requests answer at once, and the reports answer."""

from __future__ import annotations

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from erp.accounting.models import AutoPosting
from erp.core import services as erp_services
from erp.purchasing import services as purchasing
from store.common.capabilities import manage
from store.orders import services as order_services
from tests.accounts.factories import UserFactory
from tests.erp.conftest import store_licence
from tests.erp.invoicing.helpers import INVOICES, configure, draft_body
from tests.erp.purchasing.conftest import make_supplier, product, sent_order
from tests.fixtures.store import API, basic_auth, grant
from tests.outages.conftest import timed
from tests.outages.test_broker_outage import REQUEST_BOUND
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_business_events_post_and_reports_answer_with_redis_down(
    redis_broker, django_capture_on_commit_callbacks, kind
):
    erp_services.erp_activate(license_key=store_licence().license_key)
    configure()
    user = grant(UserFactory(), manage("invoicing"), manage("accounting"))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=basic_auth(user))
    invoice = api.post(INVOICES, draft_body(), format="json").json()
    order = make_order(line(stocked(price="10.00"), 1), status="processing")
    supplier = make_supplier()
    po = sent_order(supplier, (product("Nut"), 4, "1.50"))

    redis_broker.stop() if kind == "stopped" else redis_broker.freeze()
    with timed() as elapsed, django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"{INVOICES}/{invoice['id']}/issue")
    assert response.status_code == 200, response.content
    assert elapsed() < REQUEST_BOUND
    with django_capture_on_commit_callbacks(execute=True):
        order_services.payment_create(order_id=order.pk, fields={"amount": Decimal("10.00")})
        purchasing.purchase_order_receive(order_id=po.pk)
    assert sorted(AutoPosting.objects.values_list("source_type", "status")) == [
        ("goods_received", "posted"),
        ("invoice", "posted"),
        ("payment", "posted"),
    ]
    with timed() as elapsed:
        report = api.get(f"{API}/reports/trial-balance")
        sheet = api.get(f"{API}/reports/balance-sheet")
    assert elapsed() < REQUEST_BOUND
    assert report.status_code == 200, report.content
    assert report.json()["balanced"] is True
    assert sheet.json()["balanced"] is True
    assert sheet.json()["total_assets"] == str(
        Decimal(invoice["gross_total"]) + Decimal("10.00") - Decimal("10.00") + Decimal("6.00")
    )
