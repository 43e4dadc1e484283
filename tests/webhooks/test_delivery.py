"""Emitting and delivering: the request, retries, disabling, logs — through a real receiver."""

import datetime as dt
import json
import threading

import pytest
import time_machine
from django.core import mail
from django.db import transaction
from django.utils import timezone

from common import events
from tests.accounts.factories import ResellerFactory, UserFactory
from tests.webhooks.factories import WebhookFactory
from tests.webhooks.receiver import Reply
from webhooks import emit as emit_shortcut
from webhooks import sender, services, signing, tasks
from webhooks.models import Delivery, DeliveryAttempt, Webhook

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_private")]

CREATED = {
    "license_id": 12,
    "license_key": "EMP-ABCD-EFGH-IJKL",
    "tier": "starter",
    "product_slug": "seo-pro",
    "expires_at": "2027-01-01T00:00:00+00:00",
}
SECOND = dt.timedelta(seconds=1)


@pytest.fixture
def hook(receiver):
    webhook = WebhookFactory(url=receiver.url)
    receiver.secret = webhook.secret
    return webhook


@pytest.fixture
def no_jitter(monkeypatch):
    monkeypatch.setattr("webhooks.services.retries.jitter_factor", lambda: 1.0)
    monkeypatch.setattr("webhooks.services.delivery.jitter_factor", lambda: 1.0)


# --- Emit ---------------------------------------------------------------------------------------


def test_a_published_licence_event_is_delivered_signed(hook, receiver, on_commit):
    with on_commit():
        events.publish(account=hook.account, event="license.created", data=CREATED)
    assert len(receiver.received) == 1
    request = receiver.received[0]
    delivery = Delivery.objects.get()
    assert request.verified  # the receiver's own constant-time check passed
    assert request.path == "/hook"
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["User-Agent"] == "Emporion-Webhooks/1.0"
    assert request.headers["X-Hub-Event"] == "license.created"
    assert request.headers["X-Hub-Signature-256"] == signing.sign(hook.secret, request.body)
    assert request.headers["X-Hub-Delivery"] == str(delivery.uuid)
    assert request.body == delivery.body.encode()
    body = request.json
    assert list(body) == ["event", "timestamp", "data"]
    assert body["event"] == "license.created"
    assert body["data"] == CREATED
    assert body["timestamp"].endswith("+00:00")
    assert dt.datetime.fromisoformat(body["timestamp"]) <= timezone.now()
    assert (delivery.status, delivery.attempts) == (Delivery.Status.SUCCEEDED, 1)
    log = DeliveryAttempt.objects.get()
    assert (log.event, log.attempt, log.status_code, log.success, log.outcome, log.error) == (
        "license.created",
        1,
        200,
        True,
        "success",
        "",
    )
    assert log.response_body == '{"ok": true}'
    assert log.duration_ms is not None


def test_only_active_subscribed_webhooks_of_the_account_get_it(receiver, on_commit):
    reseller = ResellerFactory()
    wants = WebhookFactory(account=reseller, url=receiver.url, events=["license.revoked"])
    WebhookFactory(account=reseller, url=receiver.url, events=["license.created"])
    WebhookFactory(account=reseller, url=receiver.url, events=["license.revoked"], is_active=False)
    WebhookFactory(url=receiver.url, events=["license.revoked"])  # another account
    receiver.secret = wants.secret
    with on_commit():
        made = services.emit(
            reseller, "license.revoked", {"license_key": "K", "deactivated_domains": []}
        )
    assert [d.webhook_id for d in made] == [wants.pk]
    assert len(receiver.received) == 1
    assert receiver.received[0].verified


def test_emit_fans_out_to_every_subscribed_webhook_with_one_body(receiver, on_commit):
    reseller = ResellerFactory()
    hooks = [WebhookFactory(account=reseller, url=f"{receiver.url}/{n}") for n in range(3)]
    with on_commit():
        emit_shortcut(
            reseller,
            "license.expired",
            {"customer_id": 1, "licenses_revoked": 2, "subscription_id": 3},
        )
    deliveries = list(Delivery.objects.order_by("webhook_id"))
    assert [d.webhook_id for d in deliveries] == [h.pk for h in hooks]
    assert len({d.body for d in deliveries}) == 1
    assert len({d.uuid for d in deliveries}) == 3
    # Each signed with its own webhook's secret (the receiver knows none of them).
    assert len(receiver.received) == 3
    signatures = {r.headers["X-Hub-Signature-256"] for r in receiver.received}
    assert signatures == {signing.sign(h.secret, deliveries[0].body.encode()) for h in hooks}


def test_rollback_sends_nothing(hook, receiver, django_capture_on_commit_callbacks):
    inside = []

    def create_licence_then_fail():
        with transaction.atomic():
            events.publish(account=hook.account, event="license.created", data=CREATED)
            inside.append(Delivery.objects.count())  # recorded inside the transaction...
            raise RuntimeError("the licence was not created after all")

    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
    ):
        create_licence_then_fail()
    assert inside == [1]
    assert callbacks == []
    assert Delivery.objects.count() == 0  # ...and gone with it
    assert receiver.received == []


def test_events_that_are_not_webhook_events_are_ignored_by_the_listener(hook, receiver, on_commit):
    with on_commit():
        events.publish(account=hook.account, event="license.renewed", data={})
    assert Delivery.objects.count() == 0
    with pytest.raises(ValueError, match="unknown webhook event"):
        services.emit(hook.account, "license.renewed", {})


def test_accounts_that_may_not_use_webhooks_get_nothing(receiver, on_commit):
    developer = UserFactory()
    WebhookFactory(account=developer, url=receiver.url)
    inactive = ResellerFactory(is_active=False)
    WebhookFactory(account=inactive, url=receiver.url)
    with on_commit():
        assert services.emit(developer, "license.created", CREATED) == []
        assert services.emit(inactive, "license.created", CREATED) == []
    assert receiver.received == []


# --- Failures, retries ----------------------------------------------------------------------------


def test_retry_schedule_follows_svix_with_the_same_body_and_id(
    hook, receiver, on_commit, no_jitter
):
    receiver.default = Reply(500)
    start = dt.datetime(2026, 5, 1, 12, 0, tzinfo=dt.UTC)
    expected_waits = [
        dt.timedelta(seconds=5),
        dt.timedelta(minutes=5),
        dt.timedelta(minutes=30),
        dt.timedelta(hours=2),
        dt.timedelta(hours=5),
        dt.timedelta(hours=10),
        dt.timedelta(hours=10),
    ]
    with time_machine.travel(start, tick=False) as clock:
        with on_commit():
            services.emit(hook.account, "license.created", CREATED)
        delivery = Delivery.objects.get()
        for attempt, wait in enumerate(expected_waits, start=1):
            delivery.refresh_from_db()
            assert delivery.attempts == attempt
            assert delivery.status == Delivery.Status.PENDING
            assert delivery.next_attempt_at == timezone.now() + wait
            # Not a moment early: neither the beat task nor a stray task sends it before.
            clock.shift(wait - SECOND)
            with on_commit():
                services.dispatch_due()
                tasks.deliver.delay(delivery.pk)
            assert len(receiver.received) == attempt
            clock.shift(SECOND)
            with on_commit():
                if wait <= services.COUNTDOWN_MAX:
                    tasks.deliver.delay(delivery.pk)  # the countdown task firing
                else:
                    assert services.dispatch_due() == 1  # beat finds it due
            assert len(receiver.received) == attempt + 1
        delivery.refresh_from_db()
    assert delivery.attempts == 8
    assert delivery.status == Delivery.Status.FAILED
    assert delivery.next_attempt_at is None
    assert len({r.body for r in receiver.received}) == 1
    assert {r.headers["X-Hub-Delivery"] for r in receiver.received} == {str(delivery.uuid)}
    logs = list(DeliveryAttempt.objects.order_by("id"))
    assert [log.attempt for log in logs] == list(range(1, 9))
    assert all(log.status_code == 500 and not log.success for log in logs)
    assert logs[0].error == "The receiver answered 500."
    # Eight failures over ~28 hours do not disable the webhook (that takes 5 days).
    hook.refresh_from_db()
    assert hook.is_active is True
    assert hook.failing_since == start


def test_retry_waits_carry_twenty_percent_jitter():
    failure = sender.Result("http_error", status_code=500)
    for attempt, base in enumerate(services.RETRY_SCHEDULE, start=1):
        waits = {services.retry_wait(attempt=attempt, result=failure) for _ in range(200)}
        assert all(base * 0.8 <= wait <= base * 1.2 for wait in waits)
        assert len(waits) > 100  # it varies
        assert min(waits) < base * 0.9
        assert max(waits) > base * 1.1
    assert services.retry_wait(attempt=8, result=failure) is None


def test_a_short_retry_goes_to_the_broker_with_a_countdown(
    hook, receiver, monkeypatch, on_commit, no_jitter
):
    receiver.default = Reply(502)
    sent = []
    original = tasks.deliver.apply_async

    def spy(*args, **kwargs):
        sent.append(kwargs.get("countdown"))
        return original(*args, **kwargs)

    monkeypatch.setattr(tasks.deliver, "apply_async", spy)
    with on_commit():
        services.emit(hook.account, "license.created", CREATED)
    # The first attempt at once, the 5-second retry by countdown (counted from when it was
    # enqueued, so a few milliseconds less by the time it is published).
    assert sent[0] is None
    assert sent[1] == pytest.approx(5.0, abs=0.5)
    delivery = Delivery.objects.get()
    assert delivery.attempts == 1  # the eager countdown task found it not yet due
    with time_machine.travel(delivery.next_attempt_at, tick=False), on_commit():
        tasks.deliver.delay(delivery.pk)  # the countdown task firing
    delivery.refresh_from_db()
    assert delivery.attempts == 2
    # The 5-minute retry waits in the database for the beat task: no long countdown.
    assert sent[2:] == [None]
    assert delivery.dispatched_at is None
    with time_machine.travel(delivery.next_attempt_at, tick=False), on_commit():
        assert services.dispatch_due() == 1
    assert sent[2:] == [None, None]
    delivery.refresh_from_db()
    assert delivery.attempts == 3


@pytest.mark.parametrize(
    ("reply", "minimum"),
    [
        (Reply(429), dt.timedelta(seconds=60)),
        (Reply(429, headers={"Retry-After": "120"}), dt.timedelta(seconds=120)),
        (Reply(503, headers={"Retry-After": "90"}), dt.timedelta(seconds=90)),
        (Reply(503, headers={"Retry-After": "1"}), dt.timedelta(seconds=5)),  # never sooner
        (Reply(429, headers={"Retry-After": "9999999"}), dt.timedelta(hours=24)),  # bounded
    ],
)
def test_429_and_retry_after_delay_the_next_attempt(
    hook, receiver, on_commit, no_jitter, reply, minimum
):
    receiver.default = reply
    with time_machine.travel(dt.datetime(2026, 5, 1, tzinfo=dt.UTC), tick=False):
        with on_commit():
            services.emit(hook.account, "license.created", CREATED)
        delivery = Delivery.objects.get()
        assert delivery.next_attempt_at == timezone.now() + minimum


def test_retry_after_as_an_http_date():
    now = dt.datetime(2026, 5, 1, 12, 0, tzinfo=dt.UTC).timestamp()
    assert sender.parse_retry_after("Fri, 01 May 2026 12:02:00 GMT", now=now) == 120
    assert sender.parse_retry_after("soon", now=now) is None
    assert sender.parse_retry_after(None) is None


def test_timeout_is_ten_seconds_and_a_slow_receiver_fails_with_a_60_second_floor(
    hook, receiver, monkeypatch, on_commit, no_jitter
):
    assert sender.TIMEOUT_SECONDS == 10
    seen = []
    original = sender.net.requests.Session.post

    def spy(self, url, **kwargs):
        seen.append(kwargs["timeout"].total)
        return original(self, url, **kwargs)

    monkeypatch.setattr(sender.net.requests.Session, "post", spy)
    monkeypatch.setattr(sender, "TIMEOUT_SECONDS", 0.3)  # the same rule, without a 10 s wait
    answer = threading.Event()  # the receiver answers only after the sender gave up
    receiver.default = Reply(200, hold=answer)
    try:
        with time_machine.travel(dt.datetime(2026, 5, 1, tzinfo=dt.UTC), tick=False):
            with on_commit():
                services.emit(hook.account, "license.created", CREATED)
            delivery = Delivery.objects.get()
            assert delivery.next_attempt_at == timezone.now() + dt.timedelta(seconds=60)
    finally:
        answer.set()
    assert seen == [0.3]
    log = DeliveryAttempt.objects.get()
    assert (log.outcome, log.success, log.status_code) == ("timeout", False, None)
    assert log.error == "Timed out after 0.3 seconds."
    assert delivery.status == Delivery.Status.PENDING


def test_a_redirect_is_a_failure_and_is_not_followed(hook, receiver, on_commit):
    receiver.replies = [Reply(301, headers={"Location": f"{receiver.url}/moved"})]
    with on_commit():
        services.emit(hook.account, "license.created", CREATED)
    assert [r.path for r in receiver.received] == ["/hook"]
    log = DeliveryAttempt.objects.get()
    assert (log.outcome, log.success, log.status_code) == ("redirect", False, 301)
    assert "redirects are not followed" in log.error
    assert Delivery.objects.get().status == Delivery.Status.PENDING  # retried later


def test_a_bad_signature_is_refused_by_the_receiver(hook, receiver, on_commit):
    receiver.secret = "not the webhook's secret"
    with on_commit():
        services.emit(hook.account, "license.created", CREATED)
    assert receiver.received[0].verified is False
    log = DeliveryAttempt.objects.get()
    assert (log.status_code, log.success) == (401, False)


def test_the_receivers_answer_is_kept_truncated(hook, receiver, on_commit):
    receiver.default = Reply(500, body=b"x" * 50_000)
    with on_commit():
        services.emit(hook.account, "license.created", CREATED)
    log = DeliveryAttempt.objects.get()
    assert len(log.response_body) == sender.RESPONSE_BODY_LIMIT
    assert log.response_body.endswith("…")


def test_a_delivery_to_a_name_now_resolving_inside_is_logged_as_blocked(dns, settings, on_commit):
    settings.WEBHOOKS_ALLOW_PRIVATE_URLS = False
    webhook = WebhookFactory(url="https://hooks.example.com/x")
    dns.table["hooks.example.com"] = ["169.254.169.254"]
    with on_commit():
        services.emit(webhook.account, "license.created", CREATED)
    log = DeliveryAttempt.objects.get()
    assert log.outcome == "blocked"
    assert log.error == (
        "Blocked: hooks.example.com resolves to 169.254.169.254, a link-local address; "
        "webhooks are delivered to public addresses only."
    )


# --- Disabling ----------------------------------------------------------------------------------


def test_410_disables_the_webhook_and_emails_the_owner(hook, receiver, on_commit):
    receiver.replies = [Reply(410)]
    other = Delivery.objects.create(
        webhook=hook, event="license.revoked", body="{}", next_attempt_at=timezone.now()
    )
    with on_commit():
        services.emit(hook.account, "license.created", CREATED)
    hook.refresh_from_db()
    assert hook.is_active is False
    assert "410" in hook.disabled_reason
    delivery = Delivery.objects.get(event="license.created")
    assert delivery.status == Delivery.Status.FAILED  # never retried
    assert delivery.next_attempt_at is None
    other.refresh_from_db()
    assert other.status == Delivery.Status.FAILED  # pending deliveries are given up
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [hook.account.email]
    assert hook.url in message.subject
    assert "410 Gone" in message.body
    assert f"/api/v1/portal/webhooks/{hook.pk}" in message.body
    # Nothing more is sent to it.
    with on_commit():
        assert services.emit(hook.account, "license.created", CREATED) == []
    assert len(receiver.received) == 1


def test_five_days_of_failures_disable_the_webhook(hook, receiver, on_commit):
    receiver.default = Reply(500)
    start = dt.datetime(2026, 5, 1, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=False) as clock:
        with on_commit():
            services.emit(hook.account, "license.created", CREATED)
        hook.refresh_from_db()
        assert hook.failing_since == start
        clock.shift(dt.timedelta(days=5) - SECOND)
        with on_commit():
            services.emit(hook.account, "license.created", CREATED)
        hook.refresh_from_db()
        assert hook.is_active is True
        assert mail.outbox == []
        clock.shift(SECOND)
        with on_commit():
            services.emit(hook.account, "license.created", CREATED)
    hook.refresh_from_db()
    assert hook.is_active is False
    assert (
        hook.disabled_reason == "Every delivery has failed for 5 days (since 2026-05-01 00:00 UTC)."
    )
    assert Delivery.objects.filter(status=Delivery.Status.PENDING).count() == 0
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [hook.account.email]
    assert "failed for 5 days" in mail.outbox[0].body


def test_a_success_resets_the_five_day_clock(hook, receiver, on_commit):
    receiver.default = Reply(500)
    start = dt.datetime(2026, 5, 1, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=False) as clock:
        with on_commit():
            services.emit(hook.account, "license.created", CREATED)
        clock.shift(dt.timedelta(days=3))
        receiver.default = Reply(200)
        with on_commit():
            services.emit(hook.account, "license.created", CREATED)
        hook.refresh_from_db()
        assert hook.failing_since is None
        receiver.default = Reply(500)
        clock.shift(dt.timedelta(days=2, seconds=1))
        with on_commit():
            services.emit(hook.account, "license.created", CREATED)
    hook.refresh_from_db()
    assert hook.is_active is True
    assert hook.failing_since == start + dt.timedelta(days=5, seconds=1)
    assert mail.outbox == []


# --- At most once per success -------------------------------------------------------------------


def test_a_redelivered_task_never_sends_a_delivery_that_succeeded(hook, receiver, on_commit):
    with on_commit():
        services.emit(hook.account, "license.created", CREATED)
    delivery = Delivery.objects.get()
    for _ in range(3):
        assert tasks.deliver.delay(delivery.pk).get() == "skipped"
    assert len(receiver.received) == 1
    assert DeliveryAttempt.objects.filter(success=True).count() == 1


def test_a_task_for_a_deleted_webhook_returns_quietly(hook, receiver):
    delivery = Delivery.objects.create(
        webhook=hook, event="license.created", body="{}", next_attempt_at=timezone.now()
    )
    hook.delete()
    assert tasks.deliver.delay(delivery.pk).get() == "skipped"
    assert receiver.received == []


def test_a_leased_delivery_is_not_sent_by_another_task(hook, receiver):
    now = timezone.now()
    delivery = Delivery.objects.create(
        webhook=hook,
        event="license.created",
        body="{}",
        next_attempt_at=now,
        attempts=1,
        locked_until=now + dt.timedelta(seconds=30),
        claimed_by_task="task-a",
        claim_token="t",
    )
    assert services.delivery_attempt(delivery_id=delivery.pk, task_id="task-b") == "skipped"
    assert receiver.received == []
    # The broker redelivering task-a itself means task-a's worker died: it takes over,
    # logs the lost attempt and sends again.
    assert services.delivery_attempt(delivery_id=delivery.pk, task_id="task-a") == "success"
    assert len(receiver.received) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.locked_until) == (
        Delivery.Status.SUCCEEDED,
        2,
        None,
    )
    logs = list(DeliveryAttempt.objects.order_by("id").values_list("attempt", "outcome"))
    assert logs == [(1, "interrupted"), (2, "success")]


def test_an_expired_lease_is_dispatched_again_by_beat(hook, receiver, on_commit):
    start = timezone.now()
    delivery = Delivery.objects.create(
        webhook=hook,
        event="license.created",
        body=signing.build_body(event="license.created", moment=start, data=CREATED),
        next_attempt_at=start,
        dispatched_at=start,
        attempts=1,
        last_attempt_at=start,
        locked_until=start + services.CLAIM_LEASE,
        claimed_by_task="dead-task",
        claim_token="t",
    )
    with on_commit():
        assert services.dispatch_due() == 0  # leased and recently dispatched
    with time_machine.travel(start + services.REDISPATCH_AFTER + SECOND), on_commit():
        assert services.dispatch_due() == 1
    assert len(receiver.received) == 1
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.SUCCEEDED


def test_a_delivery_of_a_webhook_disabled_meanwhile_is_given_up(hook, receiver):
    delivery = Delivery.objects.create(
        webhook=hook, event="license.created", body="{}", next_attempt_at=timezone.now()
    )
    Webhook.objects.filter(pk=hook.pk).update(is_active=False)
    assert services.delivery_attempt(delivery_id=delivery.pk, task_id="x") == "skipped"
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.FAILED
    assert receiver.received == []


# --- Logs ---------------------------------------------------------------------------------------


def test_only_the_newest_100_log_entries_per_webhook_are_kept(hook, receiver, on_commit):
    other = WebhookFactory(account=hook.account, url=receiver.url, events=["license.revoked"])
    with on_commit():
        services.emit(
            hook.account, "license.revoked", {"license_key": "K", "deactivated_domains": []}
        )
    first_deliveries = []
    for n in range(105):
        with on_commit():
            first_deliveries += services.emit(hook.account, "license.created", {"n": n})
    assert len(receiver.received) == 107  # 105 + the revoked event to both webhooks
    kept = list(DeliveryAttempt.objects.filter(webhook=hook).order_by("id"))
    assert len(kept) == 100
    assert [json.loads(e.delivery.body)["data"]["n"] for e in kept[-3:]] == [102, 103, 104]
    assert DeliveryAttempt.objects.filter(webhook=other).count() == 1  # per webhook
    # The deliveries whose whole log was pruned went with it.
    assert Delivery.objects.filter(webhook=hook).count() == 100
    assert not Delivery.objects.filter(pk__in=[d.pk for d in first_deliveries[:5]]).exists()


def test_pruning_happens_in_the_insert_transaction(hook, receiver, on_commit):
    for n in range(100):
        with on_commit():
            services.emit(hook.account, "license.created", {"n": n})
    assert DeliveryAttempt.objects.filter(webhook=hook).count() == 100
    counted = []

    def deliver_one_more_then_roll_back():
        with transaction.atomic():
            with on_commit():
                services.emit(hook.account, "license.created", {"n": 100})
            counted.append(DeliveryAttempt.objects.filter(webhook=hook).count())
            raise RuntimeError("roll back the insert")

    with pytest.raises(RuntimeError):
        deliver_one_more_then_roll_back()
    assert counted == [100]  # the insert and its pruning, together
    assert DeliveryAttempt.objects.filter(webhook=hook).count() == 100
    assert json.loads(
        DeliveryAttempt.objects.filter(webhook=hook).order_by("id").first().delivery.body
    )["data"] == {"n": 0}


def test_dispatch_command(hook, receiver, on_commit):
    from django.core.management import call_command

    Delivery.objects.create(
        webhook=hook,
        event="license.created",
        body=signing.build_body(event="license.created", moment=timezone.now(), data=CREATED),
        next_attempt_at=timezone.now(),
    )
    with on_commit():
        call_command("dispatch_webhooks")
    assert len(receiver.received) == 1


@pytest.mark.django_db(transaction=True)
def test_real_transactions_send_on_commit_and_nothing_on_rollback(hook, receiver):
    def publish_then_fail():
        with transaction.atomic():
            events.publish(account=hook.account, event="license.created", data=CREATED)
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        publish_then_fail()
    assert Delivery.objects.count() == 0
    assert receiver.received == []

    with transaction.atomic():
        events.publish(account=hook.account, event="license.created", data=CREATED)
        assert receiver.received == []  # nothing leaves before the commit
    assert len(receiver.received) == 1
    assert Delivery.objects.get().status == Delivery.Status.SUCCEEDED
