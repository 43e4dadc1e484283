"""The unit of work: one task per event batch at commit, split by the first worker into
receivers' small batches (at most DELIVER_BATCH deliveries of one webhook per task), each
claimed and recorded in a few queries and sent over one kept-alive connection (still opened to
checked addresses only)."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from common import net
from common.models import OutboxMessage
from tests.accounts.factories import ResellerFactory
from tests.licensing.factories import PackFactory, ProductFactory
from tests.webhooks.factories import WebhookFactory, due_deliveries
from tests.webhooks.receiver import Reply
from webhooks import services, tasks
from webhooks.models import Delivery, DeliveryAttempt

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_private")]


def hooks_to(receiver, account, count=3):
    made = [WebhookFactory(account=account, url=f"{receiver.url}/{n}") for n in range(count)]
    receiver.secret = made[0].secret
    for webhook in made[1:]:
        webhook.secret = made[0].secret  # one secret: the receiver verifies every signature
        webhook.save(update_fields=["secret"])
    return made


@pytest.fixture
def published(monkeypatch):
    """The argument lists of every `webhooks.deliver` handed to the broker, in order."""
    seen = []
    real = tasks.deliver.apply_async
    monkeypatch.setattr(
        tasks.deliver, "apply_async", lambda *a, **k: seen.append(k["args"][0]) or real(*a, **k)
    )
    return seen


def webhook_of(delivery_ids):
    return set(Delivery.objects.filter(pk__in=delivery_ids).values_list("webhook_id", flat=True))


def test_bulk_create_of_100_licences_enqueues_one_task_that_splits_into_receivers_batches(
    client_for, receiver, django_capture_on_commit_callbacks, published
):
    reseller = ResellerFactory()
    hooks = hooks_to(receiver, reseller, 3)
    product = ProductFactory()
    PackFactory(owner=reseller, size=100)
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(reseller).post(
            "/api/v1/portal/licenses/bulk", {"product_id": product.pk, "count": 100}, format="json"
        )
        assert response.status_code == 201
        # Before the commit: 300 deliveries, one outbox row (one task) for all of them.
        assert Delivery.objects.count() == 300
        assert OutboxMessage.objects.filter(task="webhooks.deliver").count() == 1
    # At the commit, one broker round trip from the request: the whole list. Its task keeps
    # one receiver's batch and hands the other 59 to the workers, one task each.
    assert len(published[0]) == 300
    batches = published[1:]
    assert len(batches) == 300 // services.DELIVER_BATCH - 1
    assert all(len(batch) == services.DELIVER_BATCH for batch in batches)
    assert all(len(webhook_of(batch)) == 1 for batch in batches)  # one receiver per task
    # The receivers take turns: the first tasks handed on go to every webhook, not to one.
    assert set().union(*(webhook_of(batch) for batch in batches[:3])) == {h.pk for h in hooks}
    assert len(receiver.received) == 300
    assert Delivery.objects.filter(status="succeeded").count() == 300


def test_a_task_sends_one_receivers_batch_and_hands_on_the_rest(receiver, on_commit, published):
    webhooks = hooks_to(receiver, ResellerFactory(), 3)
    ids = due_deliveries(webhooks, 12)  # 4 for each webhook
    first = [pk for pk in ids if webhook_of([pk]) == {webhooks[0].pk}]
    with on_commit():
        outcomes = tasks.deliver.apply(args=(ids,)).get()
        # Its own batch is sent and recorded; the other receivers' wait for other workers.
        assert outcomes == dict.fromkeys(first, "success")
        assert len(receiver.received) == 4
        assert OutboxMessage.objects.filter(task="webhooks.deliver", sent_at=None).count() == 2
    assert [webhook_of(batch) for batch in published] == [{webhooks[1].pk}, {webhooks[2].pk}]
    assert len(receiver.received) == 12
    assert Delivery.objects.filter(status="succeeded").count() == 12


def test_the_beat_dispatches_due_deliveries_as_receivers_batches(receiver, on_commit, published):
    webhooks = hooks_to(receiver, ResellerFactory(), 2)
    due_deliveries(webhooks, 12)
    Delivery.objects.update(dispatched_at=None)  # due, and no task enqueued for them
    with on_commit():
        assert services.dispatch_due() == 12
    assert [len(batch) for batch in published] == [5, 5, 1, 1]
    assert [webhook_of(batch) for batch in published] == [{w.pk} for w in webhooks * 2]
    assert len(receiver.received) == 12
    assert Delivery.objects.filter(status="succeeded").count() == 12


def test_a_receivers_batch_costs_a_few_queries_in_all_not_per_delivery(receiver):
    [webhook] = hooks_to(receiver, ResellerFactory(), 1)
    costs = {}
    for size in (1, services.DELIVER_BATCH):
        ids = due_deliveries([webhook], size)
        with CaptureQueriesContext(connection) as context:
            outcomes = tasks.deliver.apply(args=(ids,)).get()
        assert outcomes == dict.fromkeys(ids, "success")
        costs[size] = len(context.captured_queries)
    # Read (1), claim (2), lock the webhook and the deliveries (2), insert the log and update
    # the deliveries (2), prune the webhook's log (1), and the savepoints of the test's
    # transaction (4): the same for five deliveries as for one.
    assert costs[services.DELIVER_BATCH] == costs[1]
    assert costs[1] <= 16
    assert DeliveryAttempt.objects.filter(success=True).count() == 1 + services.DELIVER_BATCH


def test_connections_to_a_receiver_are_reused_and_opened_to_checked_addresses(
    dns, receiver, on_commit
):
    [webhook] = hooks_to(receiver, ResellerFactory(), 1)
    webhook.url = f"http://receiver.test:{receiver.port}/hook"
    webhook.save(update_fields=["url"])
    ids = due_deliveries([webhook], 20)
    dns.queries.clear()
    with on_commit():
        tasks.deliver.apply(args=(ids,))  # four batches, four tasks
    assert len(receiver.received) == 20
    assert dns.queries == ["receiver.test"]  # one connection, checked when it was opened
    # The name now resolves inside: a new connection is refused (the pooled one is dropped).
    net.close_sessions()
    dns.table["receiver.test"] = ["10.0.0.7"]
    ids = due_deliveries([webhook], 1)
    assert tasks.deliver.apply(args=(ids,)).get() == {ids[0]: "blocked"}


def test_a_slow_receiver_gets_one_send_per_task_and_the_rest_waits_its_turn(
    receiver, monkeypatch, on_commit, published
):
    [webhook] = hooks_to(receiver, ResellerFactory(), 1)
    ids = due_deliveries([webhook], 5)
    receiver.default = Reply(200, delay=0.02)
    monkeypatch.setattr("webhooks.services.delivery.BATCH_BUDGET", dt.timedelta(seconds=0.01))
    with on_commit():
        outcomes = tasks.deliver.apply(args=(ids,)).get()
        assert outcomes == {ids[0]: "success"}  # one send took longer than the budget
        # The rest is given back (not counted as attempts) and handed to a new task.
        rest = Delivery.objects.filter(pk__in=ids[1:])
        assert set(rest.values_list("attempts", "locked_until", "claim_token")) == {(0, None, "")}
    # Each following task sends one and hands on the rest, at the back of the queue.
    assert published == [ids[1:], ids[2:], ids[3:], ids[4:]]
    assert [r.headers["X-Hub-Delivery"] for r in receiver.received] == [
        str(uuid) for uuid in Delivery.objects.order_by("pk").values_list("uuid", flat=True)
    ]
    assert set(Delivery.objects.values_list("status", "attempts")) == {("succeeded", 1)}
