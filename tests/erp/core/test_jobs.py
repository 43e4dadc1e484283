"""/erp/migrate-data/* and /erp/inventory/backfill/*: one resumable job mechanism
(erp.core.services.jobs) — batches, progress, cancel, duplicates, failures, a crashed worker."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.utils import timezone

from common.models import OutboxMessage
from erp.core import services, tasks
from erp.core.models import (
    ErpImportedCustomer,
    ErpImportedOrder,
    ErpJob,
    ErpOpeningStock,
    JobState,
)
from erp.core.services import jobs
from store.customers import services as customer_services
from store.inventory.models import StockLevel
from tests.erp.core.helpers import BACKFILL, MIGRATE
from tests.fixtures.store import error
from tests.store.catalog.factories import make_product
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss(admin_client_api):
    return admin_client_api


@pytest.fixture
def shop(db):
    """Three customers (one erased; the guest's made by their order), three orders, three stock
    levels."""
    ann = customer_services.customer_create(
        fields={"email": "ann@example.com", "first_name": "Ann", "last_name": "Lee"}
    )
    gone = customer_services.customer_create(fields={"email": "gone@example.com"})
    type(gone).objects.filter(pk=gone.pk).update(anonymised_at=timezone.now())
    lamp, mug = stocked("Lamp", 10, price="20.00"), stocked("Mug", 5, price="8.00")
    stocked("Tray", 3, price="12.00")
    orders = [
        make_order(line(lamp, 2), status="processing", customer_id=ann.pk),
        make_order(line(mug, 1), status="completed", customer_id=ann.pk),
        make_order(line(lamp, 1), billing_address={"email": "guest@example.com"}),
    ]
    return {"ann": ann, "orders": orders, "lamp": lamp}


def start(client, path=MIGRATE, body=None):
    response = client.post(f"{path}/start", body or {}, format="json")
    assert response.status_code == 202, response.content
    return response.json()


def drive(job_id: int) -> ErpJob:
    """Run the job's batches here as the worker would, one task after the other."""
    return services.job_run_inline(job_id=job_id)


def test_the_import_writes_the_registers(
    boss, admin_user, shop, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        body = start(boss)
    assert (body["state"], body["total"], body["progress"]) == ("queued", 3 + 3 + 3, 0)
    status = boss.get(f"{MIGRATE}/status").json()
    assert (status["state"], status["progress"], status["processed"]) == ("completed", 100, 9)
    assert status["counts"] == {
        "customers": {"imported": 2, "skipped": 1},
        "orders": {"imported": 3},
        "stock": {"imported": 3, "without_cost": 3},
    }
    assert status["started_by"] == admin_user.email
    assert boss.get(f"{MIGRATE}/{body['id']}").json()["state"] == "completed"

    ann = ErpImportedCustomer.objects.get(customer=shop["ann"])
    assert (ann.email, ann.name, ann.order_count) == ("ann@example.com", "Ann Lee", 2)
    first = shop["orders"][0]
    imported = ErpImportedOrder.objects.get(order=first)
    assert (imported.order_number, imported.total, imported.customer_id) == (
        first.order_number,
        Decimal("40.00"),
        shop["ann"].pk,
    )
    assert ErpImportedOrder.objects.get(order=shop["orders"][2]).email == "guest@example.com"
    lamp = ErpOpeningStock.objects.get(product=shop["lamp"])
    assert (lamp.quantity, lamp.unit_cost, lamp.value) == (7, None, None)

    # Importing again refreshes the registers; nothing doubles.
    StockLevel.objects.filter(product=shop["lamp"]).update(unit_cost=Decimal("9.5"))
    with django_capture_on_commit_callbacks(execute=True):
        start(boss, body={"include": ["stock"]})
    assert ErpOpeningStock.objects.count() == 3
    assert ErpOpeningStock.objects.get(product=shop["lamp"]).value == Decimal("66.50")
    assert ErpImportedOrder.objects.count() == 3


def test_progress_moves_batch_by_batch_and_a_second_delivery_does_nothing(boss, shop, monkeypatch):
    monkeypatch.setattr(jobs, "BATCH_SIZE", 2)
    job = start(boss)
    assert services.job_run_batch(job_id=job["id"], batch=0) == "running"
    status = boss.get(f"{MIGRATE}/status").json()
    assert (status["processed"], status["progress"], status["phase"]) == (2, 22, "customers")
    assert services.job_run_batch(job_id=job["id"], batch=0) == "duplicate"  # redelivered
    assert services.job_run_batch(job_id=job["id"], batch=7) == "duplicate"
    assert boss.get(f"{MIGRATE}/status").json()["processed"] == 2
    assert drive(job["id"]).state == JobState.COMPLETED
    assert ErpImportedOrder.objects.count() == 3
    # One outbox row per batch, each named by its batch (a double enqueue joins it).
    keys = set(OutboxMessage.objects.values_list("dedupe_key", flat=True))
    assert f"erp_core.run_job:{job['id']}:0" in keys


def test_a_crashed_worker_s_job_goes_on_from_its_last_row(boss, shop, monkeypatch):
    monkeypatch.setattr(jobs, "BATCH_SIZE", 2)
    job_id = start(boss)["id"]
    services.job_run_batch(job_id=job_id, batch=0)
    services.job_run_batch(job_id=job_id, batch=1)  # customers done: the orders' phase next
    services.job_run_batch(job_id=job_id, batch=2)
    job = ErpJob.objects.get(pk=job_id)
    assert (job.phase, job.last_id, job.processed) == ("orders", shop["orders"][1].pk, 5)
    # The worker dies with the next batch's task: the outbox row is gone, nothing runs.
    OutboxMessage.objects.all().delete()
    assert services.jobs_resume_stalled() == 0  # not stalled yet
    with time_machine.travel(timezone.now() + jobs.STALL_AFTER + timedelta(seconds=1)):
        assert tasks.resume_stalled_jobs() == 1
    waiting = OutboxMessage.objects.get(sent_at__isnull=True)
    assert waiting.dedupe_key == f"erp_core.run_job:{job_id}:3"
    assert drive(job_id).state == JobState.COMPLETED
    assert ErpImportedOrder.objects.count() == 3
    assert ErpImportedCustomer.objects.count() == 2
    assert ErpJob.objects.get(pk=job_id).processed == 9


def test_a_batch_that_raises_is_rolled_back_retried_and_fails_the_job_at_the_limit(
    boss, shop, monkeypatch
):
    job_id = start(boss, body={"include": ["orders"]})["id"]
    real = jobs.migrate.PHASES[1].process

    def broken(job, rows, params):
        real(job, rows, params)  # writes the registers, then dies: the batch is rolled back
        raise RuntimeError("disk on fire")

    phase = jobs.migrate.PHASES[1]
    OutboxMessage.objects.update(sent_at=timezone.now())  # the first batch's task was sent
    monkeypatch.setitem(jobs.PHASES, "migrate_data", (type(phase)(phase.name, phase.rows, broken),))
    assert services.job_run_batch(job_id=job_id, batch=0) == "failed"
    assert ErpImportedOrder.objects.count() == 0
    job = ErpJob.objects.get(pk=job_id)
    assert (job.state, job.failures, job.batch, job.error_count) == ("queued", 1, 0, 1)
    assert "RuntimeError" in job.errors[0]["message"]
    retry = OutboxMessage.objects.filter(sent_at__isnull=True).order_by("-id").first()
    assert retry.due_at > timezone.now()  # later, not at once
    services.job_run_batch(job_id=job_id, batch=0)
    services.job_run_batch(job_id=job_id, batch=0)
    job.refresh_from_db()
    assert (job.state, job.failures) == ("failed", 3)
    assert job.finished_at is not None
    # A failed job lets a new one start.
    monkeypatch.setitem(jobs.PHASES, "migrate_data", jobs.migrate.PHASES)
    assert drive(start(boss)["id"]).state == "completed"


def test_a_row_that_cannot_be_imported_is_named_and_skipped(boss, shop):
    type(shop["orders"][0]).objects.filter(pk=shop["orders"][0].pk).update(order_number=None)
    job = drive(start(boss, body={"include": ["orders"]})["id"])
    assert job.state == "completed"
    assert job.counts["orders"] == {"imported": 2, "errors": 1}
    assert job.errors == [
        {"phase": "orders", "id": shop["orders"][0].pk, "message": "The order has no number."}
    ]


def test_one_job_of_a_kind_at_a_time_and_cancel(boss, shop):
    job = start(boss)
    error(boss.post(f"{MIGRATE}/start", {}, format="json"), 409, "erp_job_running")
    # The other kind is independent.
    other = start(boss, BACKFILL)
    assert other["kind"] == "inventory_backfill"

    response = boss.post(f"{MIGRATE}/cancel")
    assert response.status_code == 200, response.content
    assert (response.json()["state"], response.json()["id"]) == ("cancelled", job["id"])
    assert response.json()["finished_at"]
    assert services.job_run_batch(job_id=job["id"], batch=0) == "gone"
    assert ErpImportedCustomer.objects.count() == 0
    error(boss.post(f"{MIGRATE}/cancel"), 409, "erp_job_not_running")
    assert boss.post(f"{BACKFILL}/cancel").json()["state"] == "cancelled"
    error(boss.post(f"{BACKFILL}/cancel"), 409, "erp_job_not_running")
    assert start(boss)["id"] != job["id"]


def test_status_and_job_refusals(boss, anon, store_client, manager):
    error(boss.get(f"{MIGRATE}/status"), 404, "erp_job_not_found")
    error(boss.get(f"{BACKFILL}/status"), 404, "erp_job_not_found")
    backfill = start(boss, BACKFILL)
    error(boss.get(f"{MIGRATE}/{backfill['id']}"), 404, "erp_job_not_found")
    error(boss.get(f"{MIGRATE}/0"), 404)
    error(boss.get(f"{MIGRATE}/99999999999999999999999"), 404)
    for body in (
        {"include": []},
        {"include": ["invoices"]},
        {"include": "orders"},
        {"include": [{"a": 1}]},
    ):
        error(boss.post(f"{MIGRATE}/start", body, format="json"), 400)
    client = store_client(manager)
    for path in (f"{MIGRATE}/start", f"{MIGRATE}/cancel", f"{BACKFILL}/start"):
        error(client.post(path, {}, format="json"), 403, "insufficient_capability")
        error(anon.post(path, {}, format="json"), 401)
    error(client.get(f"{MIGRATE}/status"), 403)
    assert ErpJob.objects.count() == 1


# --- The inventory backfill -----------------------------------------------------------------------


def test_the_backfill_fills_only_what_is_missing(boss, monkeypatch):
    monkeypatch.setattr(jobs, "BATCH_SIZE", 2)
    lamp = stocked("Lamp", 10, price="20.00", low_stock_threshold=3)
    mug = stocked("Mug", 5, price="8.00")
    costed = stocked("Costed", 4, price="50.00")
    free = make_product(title="Free", regular_price=None, stock_quantity=2)
    StockLevel.objects.filter(product=costed).update(unit_cost=Decimal("7"), reorder_point=1)
    job = start(boss, BACKFILL, {"cost_ratio": "0.5", "reorder_quantity": 12})
    assert job["params"] == {"cost_ratio": "0.5", "reorder_point": 5, "reorder_quantity": 12}
    assert drive(job["id"]).state == "completed"
    level = {lvl.product_id: lvl for lvl in StockLevel.objects.all()}
    assert (level[lamp.pk].unit_cost, level[lamp.pk].reorder_point) == (Decimal("10"), 3)
    assert (level[mug.pk].unit_cost, level[mug.pk].reorder_point) == (Decimal("4"), 5)
    assert level[mug.pk].reorder_quantity == 12
    assert (level[costed.pk].unit_cost, level[costed.pk].reorder_point) == (Decimal("7"), 1)
    assert level[costed.pk].reorder_quantity == 12  # it had none
    assert level.get(free.pk) is None or level[free.pk].unit_cost is None
    status = boss.get(f"{BACKFILL}/status").json()
    assert status["progress"] == 100
    assert status["counts"]["levels"]["costed"] == 2

    # A second run changes nothing that has a value.
    StockLevel.objects.filter(product=mug).update(unit_cost=Decimal("3.33"))
    drive(start(boss, BACKFILL, {"cost_ratio": 1})["id"])
    assert StockLevel.objects.get(product=mug).unit_cost == Decimal("3.33")


def test_the_backfill_s_options_are_checked(boss):
    for body in (
        {"cost_ratio": 0},
        {"cost_ratio": "1.5"},
        {"cost_ratio": "abc"},
        {"cost_ratio": True},
        {"cost_ratio": "NaN"},
        {"cost_ratio": "1e400"},
        {"reorder_point": -1},
        {"reorder_point": 10**30},
        {"reorder_point": "5"},
        {"reorder_quantity": 0},
        {"reorder_quantity": 1.5},
        {"other": 1},
    ):
        response = boss.post(f"{BACKFILL}/start", body, format="json")
        # every bad value, and a key the body does not take, is refused by name
        assert set(error(response, 400)["data"]["params"]) == set(body)
    job = start(boss, BACKFILL, {"reorder_point": None})
    assert job["params"]["reorder_point"] is None
