"""Deliveries in batches: one fan-out task per event batch, a few queries per delivery, pooled
connections to each receiver (still opened to checked addresses only)."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from common.models import OutboxMessage
from tests.accounts.factories import ResellerFactory
from tests.licensing.factories import PackFactory, ProductFactory
from tests.webhooks.factories import WebhookFactory
from webhooks import services, signing, tasks
from webhooks.models import Delivery, DeliveryAttempt

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_private")]


def pending(webhooks, count):
    now = timezone.now()
    rows = [
        Delivery(
            webhook=webhooks[n % len(webhooks)],
            event="license.created",
            body=signing.build_body(event="license.created", moment=now, data={"n": n}),
            next_attempt_at=now,
            dispatched_at=now,
        )
        for n in range(count)
    ]
    return [d.pk for d in Delivery.objects.bulk_create(rows)]


def hooks_to(receiver, account, count=3):
    made = [WebhookFactory(account=account, url=f"{receiver.url}/{n}") for n in range(count)]
    receiver.secret = made[0].secret
    for webhook in made[1:]:
        webhook.secret = made[0].secret  # one secret: the receiver verifies every signature
        webhook.save(update_fields=["secret"])
    return made


def test_bulk_create_of_100_licences_enqueues_one_task(
    client_for, receiver, django_capture_on_commit_callbacks, monkeypatch
):
    reseller = ResellerFactory()
    hooks_to(receiver, reseller, 3)
    product = ProductFactory()
    PackFactory(owner=reseller, size=100)
    published = []
    real = tasks.deliver.apply_async
    monkeypatch.setattr(
        tasks.deliver, "apply_async", lambda *a, **k: published.append(k) or real(*a, **k)
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(reseller).post(
            "/api/v1/portal/licenses/bulk", {"product_id": product.pk, "count": 100}, format="json"
        )
        assert response.status_code == 201
        # Before the commit: 300 deliveries, one outbox row (one task) for all of them.
        assert Delivery.objects.count() == 300
        assert OutboxMessage.objects.filter(task="webhooks.deliver").count() == 1
    # At the commit, one broker round trip from the request; the task then hands the chunks
    # beyond its first to other workers (here, eagerly, in the same process).
    assert len(published[0]["args"][0]) == 300
    assert len(published) == 300 // services.DELIVER_CHUNK
    assert len(receiver.received) == 300
    assert Delivery.objects.filter(status="succeeded").count() == 300


@pytest.mark.parametrize("count", [12, 48])
def test_a_batch_costs_at_most_three_queries_per_delivery(receiver, count):
    webhooks = hooks_to(receiver, ResellerFactory(), 3)
    ids = pending(webhooks, count)
    with CaptureQueriesContext(connection) as context:
        outcomes = tasks.deliver.apply(args=(ids,)).get()
    assert outcomes == dict.fromkeys(ids, "success")
    assert len(context.captured_queries) <= 3 * count
    # Claim (2), lock webhooks and deliveries (2), insert the log and update the deliveries
    # (2; SQLite may split a long INSERT), prune each webhook's log (3), and the savepoints of
    # the test's transaction (4): per round of 50 deliveries, not per delivery.
    assert len(context.captured_queries) <= 16
    assert DeliveryAttempt.objects.filter(success=True).count() == count


def test_connections_to_a_receiver_are_reused_and_opened_to_checked_addresses(dns, receiver):
    [webhook] = hooks_to(receiver, ResellerFactory(), 1)
    webhook.url = f"http://receiver.test:{receiver.port}/hook"
    webhook.save(update_fields=["url"])
    ids = pending([webhook], 20)
    dns.queries.clear()
    tasks.deliver.apply(args=(ids[:10],))
    tasks.deliver.apply(args=(ids[10:],))
    assert len(receiver.received) == 20
    assert dns.queries == ["receiver.test"]  # one connection, checked when it was opened
    # The name now resolves inside: a new connection is refused (the pooled one is dropped).
    from common import net

    net.close_sessions()
    dns.table["receiver.test"] = ["10.0.0.7"]
    ids = pending([webhook], 1)
    assert tasks.deliver.apply(args=(ids,)).get() == {ids[0]: "blocked"}


def test_a_batch_out_of_time_hands_the_rest_to_a_new_task(receiver, monkeypatch, on_commit):
    webhooks = hooks_to(receiver, ResellerFactory(), 1)
    ids = pending(webhooks, 5)
    monkeypatch.setattr(services, "SEND_BUDGET", dt.timedelta(seconds=10))  # 0 s to spare
    seen = []
    real = tasks.deliver.apply_async
    monkeypatch.setattr(
        tasks.deliver, "apply_async", lambda *a, **k: seen.append(k["args"]) or real(*a, **k)
    )
    with on_commit():
        outcomes = tasks.deliver.apply(args=(ids,)).get()
    assert list(outcomes) == ids[:1]  # one send, then the budget is spent
    assert seen[0] == [ids[1:]]  # the rest, released, went to a new task (which sent them)
    assert len(receiver.received) == 5
    assert set(Delivery.objects.values_list("status", "attempts")) == {("succeeded", 1)}
