"""The ERP's config routes while Redis is out: the broker down when a job starts (it starts
later, through the outbox, and runs once); the cache down (the routes answer from the
database)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from common import breaker, outbox
from common.models import OutboxMessage
from config.celery import app as celery_app
from erp.core.models import ErpImportedOrder, ErpJob
from tests.erp.core.helpers import CHECKLIST, MIGRATE, PORTAL, ROLES, USERS
from tests.outages.conftest import timed
from tests.outages.test_broker_outage import names, work_off
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.5  # as tests/outages/test_broker_outage.py


def test_a_job_started_while_the_broker_is_down_runs_once_it_is_back(
    redis_broker, admin_client_api, django_capture_on_commit_callbacks
):
    lamp = stocked("Lamp", 5)
    make_order(line(lamp, 1), status="processing")
    redis_broker.stop()
    with timed() as elapsed, django_capture_on_commit_callbacks(execute=True):
        response = admin_client_api.post(f"{MIGRATE}/start", {}, format="json")
    assert response.status_code == 202, response.content
    assert elapsed() < REQUEST_BOUND
    assert ErpJob.objects.get().state == "queued"
    assert OutboxMessage.objects.filter(task="erp_core.run_job", sent_at__isnull=True).count() == 1
    with timed() as elapsed:
        status = admin_client_api.get(f"{MIGRATE}/status")
    assert (status.status_code, status.json()["state"]) == (200, "queued")
    assert elapsed() < REQUEST_BOUND

    redis_broker.start()
    breaker.reset_all()
    OutboxMessage.objects.update(due_at=timezone.now())
    assert outbox.drain() == 1
    ran = []
    for _ in range(10):  # each batch sends the next through the outbox, at its commit
        with django_capture_on_commit_callbacks(execute=True):
            done = work_off()
        ran += done
        if not done:
            break
    assert set(names(ran)) == {"erp_core.run_job"}
    job = ErpJob.objects.get()
    assert (job.state, job.progress) == ("completed", 100)
    assert ErpImportedOrder.objects.count() == 1
    # The first task delivered again (a publisher that died before marking it sent): nothing.
    name, args, kwargs = ran[0]
    celery_app.tasks[name].apply(args=args, kwargs=kwargs)
    assert ErpJob.objects.get().batch == job.batch


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_the_config_routes_answer_while_redis_is_out(redis_cache, admin_client_api, erp_on, kind):
    redis_cache.stop() if kind == "stopped" else redis_cache.freeze()
    for path in (USERS, ROLES, CHECKLIST, PORTAL, f"{MIGRATE}/status"):
        with timed() as elapsed:
            response = admin_client_api.get(path)
        assert response.status_code in (200, 404), (path, response.content)
        assert elapsed() < REQUEST_BOUND
    with timed() as elapsed:
        response = admin_client_api.patch(PORTAL, {"welcome_text": "Hi"}, format="json")
    assert (response.status_code, elapsed() < REQUEST_BOUND) == (200, True)
