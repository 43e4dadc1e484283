"""The per-receiver cap (webhooks.inflight): at most WEBHOOK_MAX_IN_FLIGHT deliveries in flight
to one webhook; a batch over it is deferred, never dropped, and goes once a slot is free; a slot
that is never given back lapses; with Redis unreachable there is no cap.

Each rule is checked on a Redis of the test's own (the production cache: the Lua semaphore)
and on the local-memory cache (development's), in-process with eager tasks.
"""

import datetime as dt
import threading

import pytest
import time_machine
from django.core.cache import caches
from django.test import override_settings
from django.utils import timezone

from tests.outages.conftest import redis_cache_settings, redis_server  # noqa: F401
from tests.webhooks.factories import WebhookFactory, due_deliveries
from tests.webhooks.receiver import Reply
from webhooks import inflight, tasks
from webhooks.models import Delivery, DeliveryAttempt

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_private")]

SECOND = dt.timedelta(seconds=1)
LOCAL_MEMORY = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "webhooks-in-flight-tests",
    }
}


@pytest.fixture(params=["redis", "local memory"])
def cap_cache(request):
    """The cache the slots are counted in: our own Redis, or the local-memory cache."""
    if request.param == "redis":
        server = request.getfixturevalue("redis_server")
        with override_settings(CACHES=redis_cache_settings(server.url)):
            yield server
    else:
        with override_settings(CACHES=LOCAL_MEMORY):
            caches["default"].clear()
            yield None


@pytest.fixture
def hook(receiver):
    webhook = WebhookFactory(url=receiver.url)
    receiver.secret = webhook.secret
    return webhook


@pytest.fixture
def no_jitter(monkeypatch):
    monkeypatch.setattr("webhooks.services.retries.jitter_factor", lambda: 1.0)
    monkeypatch.setattr("webhooks.services.delivery.jitter_factor", lambda: 1.0)


@pytest.fixture
def published(monkeypatch):
    """(arguments, keyword arguments, countdown) of every `webhooks.deliver` sent, in order."""
    seen = []
    real = tasks.deliver.apply_async

    def spy(args=None, kwargs=None, **options):
        seen.append((args[0], kwargs or {}, options.get("countdown")))
        return real(args=args, kwargs=kwargs, **options)

    monkeypatch.setattr(tasks.deliver, "apply_async", spy)
    return seen


def due(*webhooks, count=1):
    return due_deliveries(webhooks, count)


def test_the_cap_defaults_to_four(hook, settings):
    assert settings.WEBHOOK_MAX_IN_FLIGHT == 4
    held = [inflight.acquire(hook.pk) for _ in range(4)]
    assert all(held)
    assert inflight.acquire(hook.pk) is None
    assert inflight.in_flight(hook.pk) == 4


def test_a_delivery_over_the_cap_is_deferred_not_dropped_and_goes_when_a_slot_frees(
    cap_cache, hook, receiver, settings, on_commit, published, no_jitter
):
    settings.WEBHOOK_MAX_IN_FLIGHT = 2
    held = [inflight.acquire(hook.pk), inflight.acquire(hook.pk)]  # two sends in flight
    assert all(held)
    assert inflight.acquire(hook.pk) is None
    [delivery_id] = due(hook)
    started = timezone.now()
    with on_commit():
        assert tasks.deliver.delay(delivery_id).get() == "deferred"
    # Nothing sent, claimed or logged; due again in a second and enqueued for then (its eager
    # run at the commit found it not due yet).
    assert receiver.received == []
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.locked_until) == ("pending", 0, None)
    assert not DeliveryAttempt.objects.exists()
    assert started + SECOND <= delivery.next_attempt_at <= timezone.now() + SECOND
    assert delivery.dispatched_at >= started  # the beat does not dispatch it a second time
    args, kwargs, countdown = published[-1]
    assert (args, kwargs) == ([delivery_id], {"deferrals": 1})
    assert countdown == pytest.approx(1.0, abs=0.5)

    inflight.release(hook.pk, held[0])
    with time_machine.travel(delivery.next_attempt_at, tick=False), on_commit():
        assert tasks.deliver.apply(args=(args,), kwargs=kwargs).get() == {delivery_id: "success"}
    [received] = receiver.received
    assert received.headers["X-Hub-Delivery"] == str(delivery.uuid)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("succeeded", 1)
    assert inflight.in_flight(hook.pk) == 1  # the slot still held; the task gave its own back


@pytest.mark.parametrize(("deferrals", "seconds"), [(0, 1), (1, 2), (3, 8), (5, 30), (40, 30)])
def test_a_batch_deferred_again_waits_longer_up_to_half_a_minute(
    hook, settings, on_commit, published, no_jitter, deferrals, seconds
):
    settings.WEBHOOK_MAX_IN_FLIGHT = 1
    assert inflight.acquire(hook.pk)
    ids = due(hook, count=3)
    now = timezone.now()
    with time_machine.travel(now, tick=False), on_commit():
        outcomes = tasks.deliver.apply(args=(ids,), kwargs={"deferrals": deferrals}).get()
    assert outcomes == dict.fromkeys(ids, "deferred")
    wait = dt.timedelta(seconds=seconds)
    assert set(Delivery.objects.values_list("next_attempt_at", flat=True)) == {now + wait}
    assert published == [(ids, {"deferrals": deferrals + 1}, seconds)]


def test_a_slot_that_is_never_given_back_lapses(cap_cache, hook, receiver, settings, on_commit):
    settings.WEBHOOK_MAX_IN_FLIGHT = 1
    with time_machine.travel(timezone.now(), tick=False) as clock:
        assert inflight.acquire(hook.pk)  # taken by a worker that dies mid-send
        [delivery_id] = due(hook)
        assert inflight.acquire(hook.pk) is None
        clock.shift(dt.timedelta(seconds=inflight.SLOT_LEASE_SECONDS) - SECOND)
        assert inflight.acquire(hook.pk) is None
        clock.shift(SECOND)
        with on_commit():
            assert tasks.deliver.delay(delivery_id).get() == "success"
    assert len(receiver.received) == 1
    assert inflight.in_flight(hook.pk) == 0


def test_a_receiver_at_its_cap_does_not_hold_the_others(cap_cache, receiver, settings, on_commit):
    slow = WebhookFactory(url=f"{receiver.url}/slow")
    other = WebhookFactory(url=f"{receiver.url}/other", secret=slow.secret)
    receiver.secret = slow.secret
    for _ in range(settings.WEBHOOK_MAX_IN_FLIGHT):
        assert inflight.acquire(slow.pk)  # four slow sends in flight on other workers
    ids = due(slow, other, count=10)
    with on_commit():
        tasks.deliver.apply(args=(ids,))
    assert {r.path for r in receiver.received} == {"/hook/other"}
    assert len(receiver.received) == 5
    waiting = Delivery.objects.filter(webhook=slow)
    assert set(waiting.values_list("status", "attempts")) == {("pending", 0)}
    assert all(d.next_attempt_at > timezone.now() for d in waiting)
    assert Delivery.objects.filter(webhook=other, status="succeeded").count() == 5


def test_the_slots_are_counted_across_processes(cap_cache, hook, settings):
    settings.WEBHOOK_MAX_IN_FLIGHT = 3
    tokens = []

    def worker():  # a thread has a cache connection of its own, as another process would
        tokens.append(inflight.acquire(hook.pk))

    threads = [threading.Thread(target=worker) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert tokens.count(None) == 2
    assert len(set(tokens) - {None}) == 3
    assert inflight.in_flight(hook.pk) == 3


def test_a_task_gives_its_slot_back_whatever_happens(
    cap_cache, hook, receiver, settings, monkeypatch
):
    settings.WEBHOOK_MAX_IN_FLIGHT = 1
    receiver.default = Reply(500)
    tasks.deliver.apply(args=(due(hook, count=2),))
    assert DeliveryAttempt.objects.filter(status_code=500).count() == 2
    assert inflight.in_flight(hook.pk) == 0

    def crash(claim):
        raise RuntimeError("the worker's code failed mid-send")

    monkeypatch.setattr("webhooks.services.delivery._send", crash)
    with pytest.raises(RuntimeError):
        tasks.deliver.apply(args=(due(hook),))
    assert inflight.in_flight(hook.pk) == 0
    assert inflight.acquire(hook.pk)


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_with_redis_unreachable_there_is_no_cap_and_deliveries_go(
    redis_server,  # noqa: F811
    hook,
    receiver,
    settings,
    on_commit,
    kind,
):
    settings.WEBHOOK_MAX_IN_FLIGHT = 1
    with override_settings(CACHES=redis_cache_settings(redis_server.url)):
        held = inflight.acquire(hook.pk)
        assert held
        assert inflight.acquire(hook.pk) is None  # the cap is reached
        redis_server.stop() if kind == "stopped" else redis_server.freeze()
        ids = due(hook, count=3)
        with on_commit():
            assert tasks.deliver.apply(args=(ids,)).get() == dict.fromkeys(ids, "success")
        assert inflight.acquire(hook.pk) == inflight.UNCAPPED  # Redis is skipped a while
        assert caches["default"].breaker.is_open
        inflight.release(hook.pk, held)  # cannot be given back: it lapses by itself
    assert len(receiver.received) == 3
    assert set(Delivery.objects.values_list("status", flat=True)) == {"succeeded"}
