"""The broker (Redis) down or frozen: checkout completes, the work waits in the outbox and is
delivered once when the broker is back.

Cache and broker are one Redis of the test's own, as in production (one REDIS_URL). After the
outage the beat's drain publishes the waiting tasks to it, and `work_off` consumes them in this
process the way a worker does (the real-worker path is covered by the `redis` tests).
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core import mail
from django.db import transaction
from django.utils import timezone
from rest_framework.test import APIClient

from common import breaker, events, outbox
from common.models import OutboxMessage
from config.celery import app as celery_app
from store.orders.models import Order
from store.settings import services as settings_services
from tests.outages.conftest import timed
from tests.store.checkout.helpers import Shop, complete, started
from tests.webhooks.factories import WebhookFactory
from tests.webhooks.receiver import Receiver
from webhooks.models import Delivery, DeliveryAttempt

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.5  # one publish attempt against a frozen broker: two 0.5 s timeouts at most


def work_off() -> list[tuple[str, list, dict]]:
    """Run every task waiting in the broker's queues (each kind's, in the settings' order), as
    workers would; answers what ran."""
    ran = []
    with celery_app.connection_for_read() as connection:
        for name in settings.CELERY_QUEUE_NAMES:
            queue = connection.SimpleQueue(name)
            try:
                while True:
                    try:
                        message = queue.get(block=False)
                    except queue.Empty:
                        break
                    args, kwargs, _embed = message.decode()
                    task, task_id = message.headers["task"], message.headers["id"]
                    celery_app.tasks[task].apply(args=args, kwargs=kwargs, task_id=task_id)
                    message.ack()
                    ran.append((task, args, kwargs))
            finally:
                queue.close()
    return ran


def names(ran) -> list[str]:
    return [name for name, _args, _kwargs in ran]


def waiting(task: str | None = None):
    rows = OutboxMessage.objects.filter(sent_at__isnull=True)
    return rows.filter(task=task) if task else rows


@pytest.fixture
def receiver():
    server = Receiver().start()
    yield server
    server.stop()


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_checkout_completes_and_its_e_mails_wait_for_the_broker(
    redis_broker, django_capture_on_commit_callbacks, kind
):
    shop = Shop()
    settings_services.settings_update(section="general", values={"store_email": "shop@example.com"})
    shopper = APIClient()
    checkout = started(shopper, shop, lamps=1, mugs=0)

    redis_broker.stop() if kind == "stopped" else redis_broker.freeze()
    with timed() as elapsed, django_capture_on_commit_callbacks(execute=True):
        response = complete(shopper, checkout["id"])
    assert response.status_code == 200, response.content  # the card was charged: say so
    assert elapsed() < REQUEST_BOUND
    body = response.json()
    assert (body["status"], body["payment_status"]) == ("processing", "paid")
    assert Order.objects.get(pk=body["order_id"]).status == "processing"
    assert shop.stock() == 4
    assert mail.outbox == []
    assert waiting("store_emails.send").count() == 2  # the shopper's and the store's
    assert all(row.attempts <= 1 for row in waiting())

    # Still down: the drain sends nothing and loses nothing.
    assert outbox.drain() == 0
    assert waiting("store_emails.send").count() == 2

    # The broker is back: the beat's drain publishes, a worker sends each e-mail once.
    if kind == "stopped":
        redis_broker.start()
    else:
        redis_broker.thaw()
    breaker.reset_all()  # the cooldown would have passed by the next beat
    OutboxMessage.objects.update(due_at=timezone.now())
    assert outbox.drain() == 2
    assert waiting().count() == 0
    ran = work_off()
    assert names(ran) == ["store_emails.send", "store_emails.send"]
    assert sorted(m.to[0] for m in mail.outbox) == ["ana@example.com", "shop@example.com"]
    assert outbox.drain() == 0
    assert work_off() == []

    # The same messages published again (a publisher that died before marking them sent) are
    # harmless: each e-mail goes once.
    for name, args, kwargs in ran:
        celery_app.tasks[name].apply_async(args=args, kwargs=kwargs)
    assert names(work_off()) == ["store_emails.send", "store_emails.send"]
    assert len(mail.outbox) == 2


def test_a_licence_webhook_waits_for_the_broker_and_is_delivered_once(
    redis_broker, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOKS_ALLOW_PRIVATE_URLS = True
    hook = WebhookFactory(url=receiver.url)
    receiver.secret = hook.secret
    redis_broker.stop()
    with (
        timed() as elapsed,
        django_capture_on_commit_callbacks(execute=True),
        transaction.atomic(),
    ):
        events.publish(account=hook.account, event="license.created", data={"license_id": 7})
    assert elapsed() < REQUEST_BOUND
    delivery = Delivery.objects.get()
    row = waiting("webhooks.deliver").get()
    assert receiver.received == []

    redis_broker.start()
    breaker.reset_all()
    assert outbox.drain() == 1
    assert names(work_off()) == ["webhooks.deliver"]
    assert len(receiver.received) == 1
    assert receiver.received[0].verified
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Delivery.Status.SUCCEEDED, 1)

    # Published twice (the row's claim lapsed after the broker took it): delivered once.
    row.refresh_from_db()
    assert row.sent_at is not None
    celery_app.tasks["webhooks.deliver"].apply_async(args=(delivery.pk,))
    assert names(work_off()) == ["webhooks.deliver"]
    assert len(receiver.received) == 1
    assert DeliveryAttempt.objects.count() == 1


def test_healthz_reports_the_broker_down_and_the_backlog(redis_broker):
    OutboxMessage.objects.create(task="common.ping", payload=b"")
    redis_broker.freeze()
    with timed() as elapsed:
        response = APIClient().get("/healthz")
    assert elapsed() < REQUEST_BOUND
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["checks"]["broker"]["status"] == "down"
    assert body["checks"]["cache"]["status"] == "down"
    assert body["checks"]["outbox"]["waiting"] == 1
