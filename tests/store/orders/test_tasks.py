"""The stock side effects as Celery tasks: on commit, exact, idempotent, never lost."""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path
from unittest import mock

import pytest
import time_machine
from django.db import transaction
from django.utils import timezone

from common import outbox
from common.models import OutboxMessage
from store.inventory.models import StockMovement
from store.orders import services, tasks
from store.orders.models import Order
from tests.outbox import broker_down
from tests.store.orders.factories import line, make_order, on_commit, stock_of, stocked
from tests.webhooks.test_worker import Worker, wait_until


@pytest.mark.django_db
def test_the_release_waits_for_the_commit():
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 4))
    with on_commit():
        services.order_status_set(order_id=order.pk, status="cancelled")
        # Inside the transaction the task is not sent yet: the intent is recorded.
        assert stock_of(lamp) == 6
        assert Order.objects.get(pk=order.pk).stock_release_pending is True
    assert stock_of(lamp) == 10
    assert Order.objects.get(pk=order.pk).stock_release_pending is False


def _cancel_then_fail(order) -> None:
    with transaction.atomic():
        services.order_status_set(order_id=order.pk, status="cancelled")
        raise RuntimeError("the request failed after the move")


@pytest.mark.django_db
def test_a_rolled_back_status_change_sends_nothing():
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 4))
    with (
        on_commit() as callbacks,
        mock.patch.object(tasks.release_stock, "apply_async") as publish,
        pytest.raises(RuntimeError),
    ):
        _cancel_then_fail(order)
    assert callbacks == []
    publish.assert_not_called()
    assert not OutboxMessage.objects.exists()
    assert Order.objects.get(pk=order.pk).status == "pending"
    assert stock_of(lamp) == 6


@pytest.mark.django_db
def test_the_same_task_twice_moves_stock_once():
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 4))
    services.order_status_set(order_id=order.pk, status="cancelled")  # not committed: not sent
    assert tasks.release_stock(order.pk) == 1
    assert tasks.release_stock(order.pk) == 0
    assert tasks.release_stock.delay(order.pk).get() == 0
    assert stock_of(lamp) == 10
    assert StockMovement.objects.filter(reason="order_cancelled").count() == 1


@pytest.mark.django_db
def test_a_task_for_a_gone_order_does_nothing():
    assert tasks.release_stock(12345) == 0


@pytest.mark.django_db
def test_a_late_task_after_a_reopen_changes_nothing():
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 4))
    services.order_status_set(order_id=order.pk, status="cancelled")
    services.order_status_set(order_id=order.pk, status="processing")  # holds the 4 again
    assert tasks.release_stock(order.pk) == 0  # the cancel's task, arriving late
    assert stock_of(lamp) == 6
    assert StockMovement.objects.filter(reference_type="order").count() == 1


@pytest.mark.django_db
def test_an_unreachable_broker_loses_nothing(manager_client):
    from tests.fixtures.store import API

    lamp = stocked(stock=10)
    order = make_order(line(lamp, 4))
    with broker_down() as publish:
        with on_commit():
            response = manager_client.patch(
                f"{API}/orders/{order.pk}/status", {"status": "cancelled"}, format="json"
            )
        assert response.status_code == 200  # committed; the publish failed after
        assert publish.call_count == 1
        assert stock_of(lamp) == 6
        assert Order.objects.get(pk=order.pk).stock_release_pending is True
        waiting = OutboxMessage.objects.get(task="store_orders.release_stock", sent_at=None)
        # One publish was tried (the commit's first task, the status e-mail's); the failure
        # opened the breaker, so the release waits without a try of its own.
        tried = OutboxMessage.objects.filter(sent_at=None).values_list("attempts", flat=True)
        assert sorted(tried) == [0, 1]
        assert waiting.attempts <= 1
        # The beat's look for lost releases joins the waiting message instead of adding one
        # (and, the broker being skipped for a few seconds, does not even try to publish).
        with time_machine.travel(timezone.now() + timedelta(minutes=2)), on_commit():
            assert services.release_due() == 1
        assert publish.call_count == 1
    assert OutboxMessage.objects.filter(task="store_orders.release_stock").count() == 1
    assert stock_of(lamp) == 6
    # The broker is back: the beat's drain publishes it (eager here), once.
    with on_commit():  # the release, and the status e-mail's task
        assert outbox.drain() == 2
    assert stock_of(lamp) == 10
    assert Order.objects.get(pk=order.pk).stock_release_pending is False
    assert outbox.drain() == 0
    assert tasks.release_due() == 0


@pytest.mark.django_db
def test_a_release_whose_message_was_lost_is_enqueued_again():
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 4))
    services.order_status_set(order_id=order.pk, status="cancelled")  # not committed: not sent
    OutboxMessage.objects.all().delete()  # as if the broker had lost the message
    assert services.release_due() == 0  # only orders waiting longer than a minute
    with time_machine.travel(timezone.now() + timedelta(minutes=2)), on_commit():
        assert services.release_due() == 1
    assert stock_of(lamp) == 10
    assert Order.objects.get(pk=order.pk).stock_release_pending is False


@pytest.mark.django_db
def test_the_movements_carry_the_order_and_unique_keys():
    lamp = stocked(stock=10)
    order = make_order(line(lamp, 4))
    with on_commit():
        services.order_status_set(order_id=order.pk, status="cancelled")
    with on_commit():
        services.order_status_set(order_id=order.pk, status="pending")
    item = order.items.get()
    rows = list(
        StockMovement.objects.filter(reference_type="order", reference_id=str(order.pk))
        .order_by("id")
        .values_list("reference_line", "quantity", "idempotency_key")
    )
    level = lamp.stock_levels.get().pk
    assert rows == [
        (item.pk, -4, f"order:{order.pk}:1:{item.pk}:{level}"),
        (item.pk, 4, f"order:{order.pk}:2:{item.pk}:{level}"),
        (item.pk, -4, f"order:{order.pk}:3:{item.pk}:{level}"),
    ]


# --- Real workers over Redis --------------------------------------------------------------------


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


@pytest.mark.redis
@pytest.mark.postgresql_only
@pytest.mark.django_db(transaction=True)
@pytest.mark.slow(reason="two real Celery worker processes started and racing")
def test_two_real_workers_racing_on_one_order_move_stock_once(workers):
    lamp = stocked(stock=10)
    mug = stocked(title="Mug", stock=10)
    order = make_order(line(lamp, 4), line(mug, 3))  # autocommit: the rows are visible
    pair = [workers("w1"), workers("w2")]
    for worker in pair:
        wait_until(
            lambda w=worker: "ready." in w.output(), timeout=30, what="a worker", workers=pair
        )
    services.order_status_set(order_id=order.pk, status="cancelled")  # sends one task
    for _ in range(7):  # and redeliveries of it, spread over both workers
        tasks.release_stock.delay(order.pk)
    wait_until(
        lambda: sum(w.output().count("store_orders.release_stock[") for w in pair) >= 16,
        timeout=60,
        what="eight tasks to be received and to finish",
        workers=pair,
    )
    wait_until(
        lambda: not Order.objects.get(pk=order.pk).stock_release_pending,
        timeout=30,
        what="the release",
        workers=pair,
    )
    assert (stock_of(lamp), stock_of(mug)) == (10, 10)
    assert StockMovement.objects.filter(reason="order_cancelled").count() == 2
