"""Delivery through real Celery workers over Redis, including a worker killed mid-delivery.

Needs REDIS_URL and PostgreSQL (the workers are separate processes: they read the rows this
test commits, so the test is transactional).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from django.conf import settings

from tests.fixtures import waiting
from tests.fixtures.db import current_database_url
from tests.webhooks.factories import WebhookFactory
from tests.webhooks.receiver import Receiver, Reply
from webhooks import inflight, services, tasks
from webhooks.models import Delivery, DeliveryAttempt

pytestmark = [
    pytest.mark.redis,
    pytest.mark.postgresql_only,
    pytest.mark.django_db(transaction=True),
]

CREATED = {"license_id": 1, "license_key": "EMP-AAAA-BBBB", "tier": "starter"}


class Worker:
    """`celery -A config worker` in a process group of its own."""

    def __init__(self, name: str, log_dir: Path) -> None:
        env = {
            **os.environ,
            "DATABASE_URL": current_database_url(),
            "DJANGO_SETTINGS_MODULE": "tests.webhooks.worker_settings",
            "WEBHOOKS_ALLOW_PRIVATE_URLS": "1",
        }
        self.log = log_dir / f"{name}.log"
        self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool=solo",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                f"--hostname={name}@%h",
                "--loglevel=INFO",
            ],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def kill(self) -> None:
        """SIGKILL: no warm shutdown, no ack, nothing written back."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def workers():
    started: list[Worker] = []
    with tempfile.TemporaryDirectory() as tmp:

        def start(name: str) -> Worker:
            worker = Worker(name, Path(tmp))
            started.append(worker)
            return worker

        yield start
        for worker in started:
            worker.stop()


@pytest.fixture
def receiver():
    server = Receiver().start()
    yield server
    server.stop()


def wait_until(condition, *, timeout: float, what: str, workers=()) -> None:
    """Poll until `condition` holds; at the deadline, fail with the workers' last output."""
    waiting.wait_until(
        condition,
        timeout=timeout,
        what=what,
        interval=0.1,
        details=lambda: "\n".join(w.output()[-3000:] for w in workers),
    )


@pytest.mark.slow(reason="a real Celery worker process, and the retry's back-off waited out")
def test_a_delivery_and_its_retry_go_through_a_real_worker(workers, receiver, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_URLS = True
    webhook = WebhookFactory(url=receiver.url)
    receiver.secret = webhook.secret
    receiver.replies = [Reply(500)]  # the first attempt fails; the 5 s retry succeeds
    worker = workers("one")

    (delivery,) = services.emit(webhook.account, "license.created", CREATED)  # autocommit

    wait_until(
        lambda: Delivery.objects.get(pk=delivery.pk).status == Delivery.Status.SUCCEEDED,
        timeout=40,
        what="the retried delivery to succeed",
        workers=[worker],
    )
    assert len(receiver.received) == 2
    assert all(r.verified for r in receiver.received)
    assert {r.headers["X-Hub-Delivery"] for r in receiver.received} == {str(delivery.uuid)}
    logs = list(DeliveryAttempt.objects.order_by("id").values_list("attempt", "status_code"))
    assert logs == [(1, 500), (2, 200)]
    first, second = DeliveryAttempt.objects.order_by("id")
    gap = (second.created_at - first.created_at).total_seconds()
    assert 4 <= gap <= 8  # 5 s ± 20%, plus the worker's own latency
    assert inflight.in_flight(webhook.pk) == 0  # each attempt gave its in-flight slot back


@pytest.mark.slow(reason="two real Celery worker processes, one killed mid-delivery")
def test_a_worker_killed_mid_delivery_is_redelivered_without_a_duplicate_success(
    workers, receiver, settings
):
    settings.WEBHOOKS_ALLOW_PRIVATE_URLS = True
    webhook = WebhookFactory(url=receiver.url)
    receiver.secret = webhook.secret
    hold = threading.Event()
    receiver.replies = [Reply(200, hold=hold)]  # keep the first request open
    first_worker = workers("first")
    try:
        (delivery,) = services.emit(webhook.account, "license.created", CREATED)
        assert receiver.arrived.wait(30), first_worker.output()[-3000:]
        leased = Delivery.objects.get(pk=delivery.pk)
        assert leased.locked_until is not None
        task_id = leased.claimed_by_task

        first_worker.kill()  # mid-request: the receiver has not answered
    finally:
        hold.set()
    assert Delivery.objects.get(pk=delivery.pk).status == Delivery.Status.PENDING

    second_worker = workers("second")
    wait_until(
        lambda: Delivery.objects.get(pk=delivery.pk).status == Delivery.Status.SUCCEEDED,
        timeout=40,
        what="the redelivered task to finish the delivery",
        workers=[first_worker, second_worker],
    )
    assert f"webhooks.deliver[{task_id}]" in second_worker.output()  # the same task, redelivered
    assert len(receiver.received) == 2
    assert {r.headers["X-Hub-Delivery"] for r in receiver.received} == {str(delivery.uuid)}
    assert receiver.received[0].body == receiver.received[1].body
    entries = list(
        DeliveryAttempt.objects.order_by("id").values_list("attempt", "outcome", "success")
    )
    assert entries == [(1, "interrupted", False), (2, "success", True)]

    # The same task arriving yet again (a second redelivery) sends nothing.
    tasks.deliver.apply_async(args=(delivery.pk,), task_id=task_id)
    wait_until(
        lambda: second_worker.output().count(f"webhooks.deliver[{task_id}] succeeded") >= 2,
        timeout=20,
        what="the duplicate task to run",
        workers=[second_worker],
    )
    assert f"webhooks.deliver[{task_id}] succeeded" in second_worker.output()
    assert "'skipped'" in second_worker.output()
    assert len(receiver.received) == 2
    assert DeliveryAttempt.objects.filter(success=True).count() == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Delivery.Status.SUCCEEDED, 2)
