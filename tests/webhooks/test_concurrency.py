"""Real concurrent transactions (PostgreSQL): the limit, the claim and the log cap hold."""

import pytest
from django.db import connection
from django.utils import timezone

from common.errors import ServiceError
from tests.accounts.factories import ResellerFactory
from tests.concurrency import race
from tests.webhooks.factories import WebhookFactory
from tests.webhooks.receiver import Reply
from webhooks import services, signing
from webhooks.models import Delivery, DeliveryAttempt, Webhook

pytestmark = [pytest.mark.postgresql_only, pytest.mark.django_db(transaction=True)]


def test_parallel_creates_cannot_pass_ten_webhooks():
    reseller = ResellerFactory()
    for _ in range(8):
        WebhookFactory(account=reseller)

    def create():
        return services.webhook_create(
            account=reseller, url="https://hooks.example.com/x", events=["license.created"]
        )

    results = race(*[create for _ in range(4)])
    created = [r for r in results if isinstance(r, Webhook)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(created) == 2
    assert len(refused) == 2
    assert {r.code for r in refused} == {"webhook_limit_reached"}
    assert Webhook.objects.filter(account=reseller).count() == 10


def test_parallel_tasks_for_one_delivery_send_it_once(allow_private, receiver, settings):
    settings.WEBHOOK_MAX_IN_FLIGHT = 5  # the claim, not the cap, keeps the five tasks apart
    webhook = WebhookFactory(url=receiver.url)
    receiver.secret = webhook.secret
    receiver.default = Reply(200, delay=0.3)  # long enough for every task to try its claim
    delivery = Delivery.objects.create(
        webhook=webhook,
        event="license.created",
        body=signing.build_body(event="license.created", moment=timezone.now(), data={}),
        next_attempt_at=timezone.now(),
    )
    results = race(
        *[
            (lambda n=n: services.delivery_attempt(delivery_id=delivery.pk, task_id=f"t{n}"))
            for n in range(5)
        ]
    )
    assert sorted(results) == ["skipped"] * 4 + ["success"]
    assert len(receiver.received) == 1
    assert DeliveryAttempt.objects.filter(success=True).count() == 1


def test_parallel_log_inserts_never_keep_more_than_100(allow_private, receiver):
    webhook = WebhookFactory(url=receiver.url)
    receiver.secret = webhook.secret
    now = timezone.now()
    deliveries = [
        Delivery(
            webhook=webhook,
            event="license.created",
            body=signing.build_body(event="license.created", moment=now, data={"n": n}),
            next_attempt_at=now,
        )
        for n in range(110)
    ]
    Delivery.objects.bulk_create(deliveries)
    ids = list(Delivery.objects.order_by("id").values_list("id", flat=True))

    def worker(chunk):
        def run():
            for delivery_id in chunk:
                services.delivery_attempt(delivery_id=delivery_id, task_id=str(delivery_id))
            return len(chunk)

        return run

    results = race(*[worker(ids[n::4]) for n in range(4)])
    assert sum(results) == 110, results
    assert len(receiver.received) == 110
    assert DeliveryAttempt.objects.filter(webhook=webhook).count() == 100
    assert connection.vendor == "postgresql"
