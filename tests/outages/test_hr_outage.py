"""HR while Redis (the broker and the cache) is down: hiring an employee answers at once, the
hiring waits in the outbox and is filed at the labor registry (once) when the broker is back;
HR reads and leave decisions need neither the broker nor the cache."""

from __future__ import annotations

from datetime import date

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from common import breaker, outbox
from common.models import OutboxMessage
from config.celery import app as celery_app
from erp.core import services as erp_services
from erp.hr import services as hr_services
from erp.hr.models import Employee, LaborSubmission
from store.common.capabilities import manage
from tests.accounts.factories import UserFactory
from tests.erp.conftest import store_licence
from tests.fixtures.store import API, basic_auth, grant
from tests.outages.conftest import timed
from tests.outages.test_broker_outage import REQUEST_BOUND, names, waiting, work_off

pytestmark = pytest.mark.django_db

HIRE = {
    "first_name": "Sofia",
    "last_name": "Nikolaou",
    "hire_date": "2025-06-02",
    "tax_id": "100000003",
    "social_security_number": "01013099997",
}


def _hr_client() -> APIClient:
    erp_services.erp_activate(license_key=store_licence().license_key)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(grant(UserFactory(), manage("hr"))))
    return client


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_a_hiring_waits_for_the_broker_and_is_filed_once(
    redis_broker, django_capture_on_commit_callbacks, kind
):
    client = _hr_client()
    redis_broker.stop() if kind == "stopped" else redis_broker.freeze()
    with timed() as elapsed, django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{API}/employees", HIRE, format="json")
    assert response.status_code == 201, response.content
    assert elapsed() < REQUEST_BOUND
    assert waiting("erp_hr.labor_record").count() == 1
    assert outbox.drain() == 0  # still down: nothing sent, nothing lost
    assert LaborSubmission.objects.count() == 0

    if kind == "stopped":
        redis_broker.start()
    else:
        redis_broker.thaw()
    breaker.reset_all()
    OutboxMessage.objects.update(due_at=timezone.now())
    assert outbox.drain() == 1
    with django_capture_on_commit_callbacks(execute=True):
        ran = work_off()
    assert names(ran) == ["erp_hr.labor_record"]
    with django_capture_on_commit_callbacks(execute=True):
        assert names(work_off()) == ["erp_hr.labor_submit"]
    submission = LaborSubmission.objects.get()
    assert (submission.status, submission.attempts) == ("sent", 1)
    # delivered again (a publisher that died before marking it sent): nothing twice
    for name, args, kwargs in ran:
        celery_app.tasks[name].apply_async(args=args, kwargs=kwargs)
    with django_capture_on_commit_callbacks(execute=True):
        work_off()
    assert LaborSubmission.objects.count() == 1
    submission.refresh_from_db()
    assert submission.attempts == 1


def test_reads_and_leave_decisions_work_with_redis_stopped(redis_cache):
    client = _hr_client()
    employee = Employee.objects.get(
        pk=client.post(f"{API}/employees", HIRE, format="json").json()["id"]
    )
    leave_type = hr_services.leave_type_create(
        fields={"name": "Annual", "yearly_allowance_days": 20}
    )
    leave = hr_services.leave_request_create(
        employee_id=employee.pk,
        fields={
            "leave_type_id": leave_type.pk,
            "start_date": date(2030, 12, 2),
            "end_date": date(2030, 12, 2),
        },
    )
    redis_cache.stop()
    with timed() as elapsed:
        assert client.get(f"{API}/hr/dashboard").status_code == 200
        approved = client.post(f"{API}/leave-requests/{leave.pk}/approve", {}, format="json")
    assert approved.status_code == 200, approved.content
    assert approved.json()["status"] == "approved"
    assert elapsed() < REQUEST_BOUND * 2
