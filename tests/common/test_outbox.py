"""The outbox (common.outbox): every task is written with the business change, published on
commit, and published later by the beat's drain when the broker did not take it."""

from __future__ import annotations

import logging
import smtplib
import threading
import time
from contextlib import contextmanager
from datetime import timedelta
from unittest import mock

import pytest
import time_machine
from celery.app.task import Task
from django.core import mail
from django.db import connection, connections, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from common import breaker, outbox
from common.email import send_templated_email
from common.models import DoneMarker, OutboxMessage, WorkerHeartbeat
from common.tasks import purge_outbox, send_email
from config.celery import app as celery_app
from tests.accounts.factories import UserFactory
from tests.outbox import broker_down, broker_up

pytestmark = pytest.mark.django_db

PING = "common.ping"


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def ran():
    """Names and arguments of the tasks that ran (eagerly), in order."""
    calls = []
    original = Task.apply_async

    def spy(task, args=None, kwargs=None, **options):
        calls.append((task.name, list(args or ()), dict(kwargs or {})))
        return original(task, args=args, kwargs=kwargs, **options)

    with mock.patch.object(Task, "apply_async", spy):
        yield calls


def test_a_task_is_sent_when_the_transaction_commits(on_commit, ran):
    with on_commit(), transaction.atomic():
        outbox.enqueue(PING, args=(), kwargs={})
        row = OutboxMessage.objects.get()
        assert ran == []  # not before the commit
        assert row.sent_at is None
    assert ran == [(PING, [], {})]
    row.refresh_from_db()
    assert row.sent_at is not None
    assert row.payload == b""  # the arguments are not kept once sent
    assert (row.attempts, row.last_error, row.claimed_until) == (0, "", None)


def test_the_tasks_of_one_transaction_are_claimed_and_marked_together(on_commit, ran):
    with CaptureQueriesContext(connection) as queries, on_commit(), transaction.atomic():
        for _ in range(3):
            outbox.enqueue(PING)
    assert len(ran) == 3
    assert not OutboxMessage.objects.filter(sent_at__isnull=True).exists()
    updates = [q["sql"] for q in queries.captured_queries if q["sql"].lstrip().startswith("UPDATE")]
    assert len(updates) == 2, updates  # one claim and one mark for the three rows


def test_a_task_of_a_rolled_back_savepoint_is_not_sent_and_the_rest_are(on_commit, ran):
    def part_that_fails():
        with transaction.atomic():
            outbox.enqueue(PING)
            raise RuntimeError("this part failed")

    with on_commit(), transaction.atomic():
        outbox.enqueue(PING)
        with pytest.raises(RuntimeError):
            part_that_fails()
        outbox.enqueue(PING)
    assert len(ran) == 2
    assert OutboxMessage.objects.count() == 2
    assert not OutboxMessage.objects.filter(sent_at__isnull=True).exists()


def test_a_rolled_back_transaction_leaves_nothing_and_sends_nothing(on_commit, ran):
    def business_write_that_fails():
        with transaction.atomic():
            outbox.enqueue(PING)
            raise RuntimeError("the business write failed")

    with on_commit(), pytest.raises(RuntimeError):
        business_write_that_fails()
    assert OutboxMessage.objects.count() == 0
    assert ran == []


def test_the_arguments_are_encrypted_at_rest():
    with transaction.atomic():
        outbox.enqueue(
            "common.send_email",
            kwargs={"message_id": "m1", "to": ["a@example.com"], "subject": "S", "body": "token-X"},
        )
    payload = bytes(OutboxMessage.objects.get().payload)
    assert b"token-X" not in payload
    assert b"a@example.com" not in payload


def test_an_unknown_task_or_a_non_json_argument_is_refused_at_once():
    with pytest.raises(LookupError, match=r"no\.such_task"):
        outbox.enqueue("no.such_task")
    with pytest.raises(TypeError):
        outbox.enqueue(PING, args=(object(),))
    assert OutboxMessage.objects.count() == 0


def test_a_failed_publish_waits_and_the_drain_sends_it_once(on_commit, ran, caplog):
    with broker_down() as publish:
        with on_commit():
            outbox.enqueue(PING)
            outbox.enqueue(PING)
        assert publish.call_count == 1  # the second was not even tried: the breaker is open
        rows = list(OutboxMessage.objects.order_by("id"))
        assert [r.sent_at for r in rows] == [None, None]
        assert rows[0].attempts == 1
        assert rows[0].last_error.startswith("OperationalError: Error 111 connecting")
        assert rows[0].due_at > timezone.now()  # backed off
        assert rows[1].attempts == 0
        assert outbox.drain() == 0  # still down (the breaker skips it)
        assert publish.call_count == 1
    assert "publishing common.ping failed: the broker is unreachable" in caplog.text
    assert outbox.drain() == 2  # back: the beat publishes both (due within its next run)
    assert [name for name, _a, _k in ran] == [PING, PING]
    assert OutboxMessage.objects.filter(sent_at=None).count() == 0
    assert outbox.drain() == 0
    assert len(ran) == 2


def test_the_drain_leaves_rows_that_are_not_due_yet(ran):
    later = timezone.now() + timedelta(minutes=5)
    OutboxMessage.objects.create(task=PING, payload=outbox._seal([], {}), due_at=later)
    assert outbox.drain() == 0
    with time_machine.travel(later):
        assert outbox.drain() == 1
    assert len(ran) == 1


def test_a_row_claimed_by_a_publisher_that_died_is_sent_after_its_lease(ran):
    now = timezone.now()
    row = OutboxMessage.objects.create(
        task=PING, payload=outbox._seal([], {}), claimed_until=now + outbox.CLAIM_LEASE
    )
    assert outbox.drain() == 0  # another publisher holds it
    assert outbox.publish([row.pk]) == 0
    with time_machine.travel(now + outbox.CLAIM_LEASE + timedelta(seconds=1)):
        assert outbox.drain() == 1
    assert len(ran) == 1


def test_a_dedupe_key_joins_the_waiting_row(on_commit, ran):
    with broker_down():
        with on_commit():
            outbox.enqueue(PING, countdown=60, dedupe_key="ping:1")
        with on_commit():
            outbox.enqueue(PING, dedupe_key="ping:1")  # joins, and is due at once now
            outbox.enqueue(PING, dedupe_key="ping:2")
    rows = list(OutboxMessage.objects.order_by("id"))
    assert [r.dedupe_key for r in rows] == ["ping:1", "ping:2"]
    assert rows[0].due_at <= timezone.now() + timedelta(seconds=5)
    assert outbox.drain() == 2
    with on_commit():  # sent: a new enqueue with the key is new work
        outbox.enqueue(PING, dedupe_key="ping:1")
    assert OutboxMessage.objects.count() == 3
    assert len(ran) == 3


def test_a_task_that_fails_eagerly_is_logged_and_does_not_fail_the_caller(on_commit, caplog):
    with (
        mock.patch.object(celery_app.tasks[PING], "run", side_effect=ValueError("boom")),
        on_commit(),
    ):
        outbox.enqueue(PING)
    row = OutboxMessage.objects.get()
    assert row.sent_at is not None  # it ran: retrying is the task's own business
    assert row.last_error == "ValueError: boom"
    assert "task common.ping (outbox message" in caplog.text


def test_an_unreadable_payload_is_dropped_with_an_error(caplog, ran):
    OutboxMessage.objects.create(task=PING, payload=b"not a token")
    with caplog.at_level(logging.ERROR, logger="common.outbox"):
        assert outbox.drain() == 0
    row = OutboxMessage.objects.get()
    assert row.sent_at is not None
    assert row.last_error.startswith("_Unreadable: unreadable payload")
    assert ran == []
    assert "is unreadable; dropped" in caplog.text


def test_payloads_sealed_with_a_previous_secret_key_still_open(settings, ran):
    with transaction.atomic():
        outbox.enqueue(PING)
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a-new-secret-key-" + "x" * 40
    assert outbox.drain() == 1
    assert len(ran) == 1


def test_a_templated_e_mail_goes_through_the_outbox(on_commit):
    with on_commit():
        send_templated_email(
            to="dev@example.com",
            template="accounts/verify_email",
            context={"token": "T0KEN", "link": "https://x/v?t=T0KEN", "lifetime": "2 hours"},
        )
    assert [m.to for m in mail.outbox] == [["dev@example.com"]]
    row = OutboxMessage.objects.get()
    assert (row.task, row.payload) == ("common.send_email", b"")


def test_an_e_mail_task_sends_once_whatever_the_redeliveries():
    message = {"message_id": "abc", "to": ["a@example.com"], "subject": "Hi", "body": "Hello"}
    send_email.apply(kwargs=message)
    send_email.apply(kwargs=message)
    assert len(mail.outbox) == 1
    assert DoneMarker.objects.filter(key="email-sent:abc").exists()


def test_a_failed_send_can_be_retried():
    message = {"message_id": "abc", "to": ["a@example.com"], "subject": "Hi", "body": "Hello"}
    with (
        mock.patch(
            "django.core.mail.EmailMultiAlternatives.send",
            side_effect=smtplib.SMTPServerDisconnected,
        ),
        pytest.raises(smtplib.SMTPServerDisconnected),
    ):
        send_email.run(**message)
    assert not DoneMarker.objects.exists()
    send_email.run(**message)
    assert len(mail.outbox) == 1


def test_the_purge_keeps_what_is_recent():
    now = timezone.now()
    old, recent = now - timedelta(days=8), now - timedelta(hours=1)
    OutboxMessage.objects.create(task=PING, payload=b"", sent_at=old, acked_at=old)
    kept_sent = OutboxMessage.objects.create(task=PING, payload=b"", sent_at=recent)
    waiting = OutboxMessage.objects.create(task=PING, payload=b"x", due_at=old)
    unacknowledged = OutboxMessage.objects.create(task=PING, payload=b"x", sent_at=old)
    DoneMarker.objects.create(key="old", created_at=old)
    DoneMarker.objects.create(key="new", created_at=recent)
    WorkerHeartbeat.objects.create(hostname="gone", seen_at=old)
    WorkerHeartbeat.objects.create(hostname="here", seen_at=recent)
    assert purge_outbox() == {"outbox": 1, "markers": 1, "heartbeats": 1}
    assert set(OutboxMessage.objects.values_list("pk", flat=True)) == {
        kept_sent.pk,
        waiting.pk,
        unacknowledged.pk,
    }
    assert list(DoneMarker.objects.values_list("key", flat=True)) == ["new"]
    assert list(WorkerHeartbeat.objects.values_list("hostname", flat=True)) == ["here"]


def test_the_beat_drains_the_outbox_and_writes_a_heartbeat():
    entries = celery_app.conf.beat_schedule.values()
    schedule = {entry["task"]: entry["schedule"] for entry in entries}
    assert schedule["common.drain_outbox"] <= 60
    assert schedule["common.heartbeat"] <= 30
    assert "common.purge_outbox" in schedule


def test_the_breakers_close_again(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(breaker, "clock", lambda: now[0])
    circuit = breaker.breaker("a test service", 5)
    circuit.failure(OSError("down"), during="a test")
    assert circuit.allow() is False
    now[0] += 4.9
    assert circuit.allow() is False  # still cooling down
    now[0] += 0.2  # the cooldown passes
    assert circuit.allow() is True  # this caller probes
    assert circuit.allow() is False  # the others skip while it does
    circuit.success()
    assert circuit.allow() is True
    assert circuit.is_open is False


@pytest.fixture
def staff_client():
    client = Client(enforce_csrf_checks=True)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def _csrf(client) -> str:
    client.get(reverse("admin:common_outboxmessage_changelist"))
    return client.cookies["csrftoken"].value


def test_staff_see_what_waits_without_its_arguments(staff_client):
    waiting = OutboxMessage.objects.create(
        task="common.send_email", payload=outbox._seal([], {"body": "secret-token"})
    )
    OutboxMessage.objects.create(
        task=PING, payload=b"", sent_at=timezone.now(), acked_at=timezone.now()
    )
    listing = staff_client.get(
        reverse("admin:common_outboxmessage_changelist"), {"state": "waiting"}
    )
    assert listing.status_code == 200
    assert list(listing.context["cl"].result_list) == [waiting]
    sent = OutboxMessage.objects.create(task=PING, payload=b"x", sent_at=timezone.now())
    unacknowledged = staff_client.get(
        reverse("admin:common_outboxmessage_changelist"), {"state": "sent"}
    )
    assert list(unacknowledged.context["cl"].result_list) == [sent]
    page = staff_client.get(reverse("admin:common_outboxmessage_change", args=[waiting.pk]))
    assert page.status_code == 200
    assert b"secret-token" not in page.content
    assert b"payload" not in page.content.lower()
    add = staff_client.get(reverse("admin:common_outboxmessage_add"))
    assert add.status_code == 403


def test_staff_may_publish_waiting_rows_now(staff_client, ran):
    row = OutboxMessage.objects.create(
        task=PING, payload=outbox._seal([], {}), due_at=timezone.now() + timedelta(hours=1)
    )
    response = staff_client.post(
        reverse("admin:common_outboxmessage_changelist"),
        {
            "action": "publish_now",
            "_selected_action": [row.pk],
            "csrfmiddlewaretoken": _csrf(staff_client),
        },
    )
    assert response.status_code == 302
    row.refresh_from_db()
    assert row.sent_at is not None
    assert row.due_at <= timezone.now()  # published now, not with an hour's countdown
    assert [name for name, _a, _k in ran] == [PING]


@pytest.mark.postgresql_only
@pytest.mark.django_db(transaction=True)
def test_a_row_being_joined_is_published_by_the_joining_commit_and_nobody_waits(ran):
    with broker_down():
        outbox.enqueue(PING, dedupe_key="ping:1")  # committed; its publish failed: it waits
    joined, release = threading.Event(), threading.Event()

    def join_then_commit() -> None:
        try:
            with transaction.atomic():
                outbox.enqueue(PING, dedupe_key="ping:1")  # joins, and holds, the waiting row
                joined.set()
                release.wait(10)
        finally:
            connections.close_all()

    joiner = threading.Thread(target=join_then_commit)
    joiner.start()
    assert joined.wait(10)
    started = time.monotonic()
    assert outbox.drain() == 0  # skips the held row instead of waiting for it
    with broker_down():  # a third transaction does not wait either: it adds a row of its own
        outbox.enqueue(PING, dedupe_key="ping:1")
    assert time.monotonic() - started < 1
    assert ran == []  # the task does not run before the joining transaction's writes are in
    release.set()
    joiner.join(10)
    assert len(ran) == 1  # published by the joiner's commit
    first, third = OutboxMessage.objects.order_by("id")
    assert first.sent_at is not None
    assert third.sent_at is None  # the third's own row waits for the broker


@pytest.mark.django_db(transaction=True)
def test_a_real_commit_claims_and_marks_the_tasks_of_its_transaction_together(ran):
    """Django runs a commit's callbacks from a list of its own, so the rows of every enqueue
    must be gathered when they are enqueued, not when the first callback runs."""
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        outbox.enqueue(PING)
        with transaction.atomic():
            outbox.enqueue(PING, dedupe_key="ping:1")
        transaction.on_commit(lambda: None)  # another app's callback between them
        outbox.enqueue_many(PING, [(), ()])
    assert len(ran) == 4
    assert not OutboxMessage.objects.filter(sent_at__isnull=True).exists()
    after_commit = [q["sql"] for q in queries.captured_queries]
    after_commit = after_commit[[sql.upper() for sql in after_commit].index("COMMIT") + 1 :]
    updates = [sql for sql in after_commit if sql.lstrip().startswith("UPDATE")]
    assert len(updates) == 2, updates  # one claim and one mark for the four rows


def kept_dropped_after() -> None:
    """One transaction enqueueing "kept" in a savepoint that stands, "dropped" in one that
    rolls back, and "after" outside both."""
    with transaction.atomic():
        with transaction.atomic():
            outbox.enqueue(PING, args=("kept",))
        try:
            with transaction.atomic():
                outbox.enqueue(PING, args=("dropped",))
                raise RuntimeError("this part failed")
        except RuntimeError:
            pass
        outbox.enqueue(PING, args=("after",))


@pytest.mark.django_db(transaction=True)
def test_a_real_commit_sends_the_rows_of_a_savepoint_that_stood_and_not_of_one_rolled_back(ran):
    kept_dropped_after()
    assert [args for _name, args, _kw in ran] == [["kept"], ["after"]]
    assert OutboxMessage.objects.count() == 2
    assert not OutboxMessage.objects.filter(sent_at__isnull=True).exists()


# --- Acknowledged by the worker; sent again when the broker lost the message --------------------


def published_row(on_commit) -> tuple[OutboxMessage, dict]:
    """One task published to a broker that took it: its row and the publish's options."""
    with broker_up() as publish, on_commit():
        outbox.enqueue(PING)
    ((_args, options),) = [(c.args, c.kwargs) for c in publish.call_args_list]
    return OutboxMessage.objects.get(), options


def run_as_the_worker(options: dict, *, state: str = "SUCCESS") -> None:
    """The worker's end of the task the publish sent: Celery's own signal, with the message's
    headers on the task's request as a worker has them."""
    from celery.signals import task_postrun

    task = celery_app.tasks[PING]
    task.push_request(headers=options["headers"], **options["headers"])
    try:
        task_postrun.send(sender=task, task_id="t", task=task, args=(), kwargs={}, state=state)
    finally:
        task.pop_request()


def test_a_task_sent_to_a_broker_keeps_its_row_until_a_worker_has_run_it(on_commit):
    row, options = published_row(on_commit)
    assert options["headers"] == {outbox.OUTBOX_HEADER: row.pk}
    assert row.sent_at is not None
    assert row.acked_at is None
    assert bytes(row.payload)  # kept: it may have to be sent again

    run_as_the_worker(options, state="RETRY")  # a retry is not the end of it
    row.refresh_from_db()
    assert row.acked_at is None

    run_as_the_worker(options)
    row.refresh_from_db()
    assert row.acked_at is not None
    assert bytes(row.payload) == b""
    assert str(row) == f"{PING} #{row.pk} (done)"


def test_a_task_run_eagerly_is_done_at_once(on_commit, ran):
    with on_commit():
        outbox.enqueue(PING)
    row = OutboxMessage.objects.get()
    assert row.acked_at == row.sent_at
    assert bytes(row.payload) == b""


def test_a_message_the_broker_lost_is_sent_again_after_the_visibility_timeout(
    on_commit, settings, ran, caplog
):
    row, _options = published_row(on_commit)  # the broker took it, then lost it
    redeliver = timedelta(seconds=settings.OUTBOX_REDELIVER_SECONDS)
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert redeliver.total_seconds() > visibility  # the broker redelivers what it holds first
    with time_machine.travel(row.sent_at + redeliver - timedelta(seconds=1)):
        assert outbox.drain() == 0
    with time_machine.travel(row.sent_at + redeliver + timedelta(seconds=1)):
        assert outbox.drain() == 1
    assert [name for name, _a, _k in ran] == [PING]  # eager here: it ran, and is done
    row.refresh_from_db()
    assert row.acked_at is not None
    assert row.attempts == 1  # counted as a send not acknowledged
    assert "were never acknowledged; sending again" in caplog.text


def test_an_acknowledged_row_or_a_countdown_not_due_is_not_sent_again(on_commit, settings, ran):
    _row, options = published_row(on_commit)
    run_as_the_worker(options)
    later = timezone.now() + timedelta(hours=3)
    countdown = OutboxMessage.objects.create(
        task=PING, payload=outbox._seal([], {}), sent_at=timezone.now(), due_at=later
    )
    redeliver = timedelta(seconds=settings.OUTBOX_REDELIVER_SECONDS)
    with time_machine.travel(timezone.now() + redeliver + timedelta(seconds=1)):
        assert outbox.drain() == 0  # the countdown is measured from when it is due
    with time_machine.travel(later + redeliver + timedelta(seconds=1)):
        assert outbox.drain() == 1
    assert len(ran) == 1
    countdown.refresh_from_db()
    assert countdown.acked_at is not None


def test_a_message_never_acknowledged_is_given_up_after_its_redeliveries(settings, caplog):
    sent = timezone.now() - timedelta(seconds=settings.OUTBOX_REDELIVER_SECONDS + 60)
    row = OutboxMessage.objects.create(
        task=PING,
        payload=outbox._seal([], {}),
        sent_at=sent,
        due_at=sent,
        attempts=outbox.MAX_REDELIVERIES,
    )
    with broker_up() as publish:
        assert outbox.drain() == 0
    assert publish.call_count == 0
    row.refresh_from_db()
    assert row.acked_at is not None
    assert bytes(row.payload) == b""
    assert row.last_error == "never acknowledged; given up"
    assert f"outbox message {row.pk} (common.ping) was sent 6 times" in caplog.text


def test_an_acknowledgement_the_database_refuses_leaves_the_row_to_be_sent_again(on_commit, caplog):
    row, options = published_row(on_commit)
    with mock.patch.object(outbox, "acknowledge", side_effect=outbox.DatabaseError("gone")):
        run_as_the_worker(options)  # the task is not failed by it
    row.refresh_from_db()
    assert row.acked_at is None
    assert f"outbox message {row.pk}: the acknowledgement was not recorded" in caplog.text


# --- Rows written as sent: a commit's publish from memory ---------------------------------------


def _after_commit(queries) -> list[str]:
    sqls = [q["sql"] for q in queries.captured_queries]
    return sqls[[sql.upper() for sql in sqls].index("COMMIT") + 1 :]


@contextmanager
def _committed_with_a_broker():
    """One transaction committed with the broker up: (the publish mock, the statements)."""
    with (
        broker_up() as publish,
        CaptureQueriesContext(connection) as queries,
        transaction.atomic(),
    ):
        yield publish, queries


@pytest.mark.django_db(transaction=True)
def test_with_a_broker_a_new_row_is_written_as_sent_and_its_publish_costs_no_statement():
    with _committed_with_a_broker() as (publish, queries):
        outbox.enqueue(PING, kwargs={"n": 1})
        outbox.enqueue_many(PING, [("a",), ("b",)])
        rows = list(OutboxMessage.objects.order_by("id"))
        assert all(row.sent_at is not None for row in rows)  # before the commit already
        assert publish.call_count == 0  # nothing leaves before the commit
    assert _after_commit(queries) == []
    sent = [
        (c.kwargs["args"], c.kwargs["kwargs"], c.kwargs["headers"]) for c in publish.call_args_list
    ]
    assert sent == [
        ([], {"n": 1}, {outbox.OUTBOX_HEADER: rows[0].pk}),
        (["a"], {}, {outbox.OUTBOX_HEADER: rows[1].pk}),
        (["b"], {}, {outbox.OUTBOX_HEADER: rows[2].pk}),
    ]
    assert not OutboxMessage.objects.filter(acked_at__isnull=False).exists()  # the worker's


@pytest.mark.django_db(transaction=True)
def test_a_fresh_row_with_a_dedupe_key_is_written_as_sent_and_joined_only_once_it_waits():
    with _committed_with_a_broker() as (publish, queries):
        outbox.enqueue(PING, kwargs={"n": 1}, dedupe_key="ping:9", fresh=True)
    sqls = [q["sql"].upper() for q in queries.captured_queries]
    assert not [sql for sql in sqls if sql.startswith("SELECT")]  # no lookup of a row to join
    assert _after_commit(queries) == []  # published from memory
    assert publish.call_count == 1
    row = OutboxMessage.objects.get()
    assert (row.dedupe_key, row.sent_at is not None) == ("ping:9", True)
    # Its publish refused, it waits again with its key: a later enqueue joins it.
    with broker_down(), transaction.atomic():
        outbox.enqueue(PING, dedupe_key="ping:8", fresh=True)
    waiting = OutboxMessage.objects.get(dedupe_key="ping:8")
    assert waiting.sent_at is None
    with broker_down(), transaction.atomic():
        outbox.enqueue(PING, dedupe_key="ping:8")
    assert OutboxMessage.objects.filter(dedupe_key="ping:8").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_row_written_as_sent_in_a_savepoint_that_rolled_back_is_not_published():
    with broker_up() as publish:
        kept_dropped_after()
    assert [c.kwargs["args"] for c in publish.call_args_list] == [["kept"], ["after"]]
    assert OutboxMessage.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_refused_publish_puts_the_written_as_sent_rows_back_to_wait(caplog):
    with broker_down() as publish, transaction.atomic():
        outbox.enqueue_many(PING, [("a",), ("b",)])
    assert publish.call_count == 1
    first, second = OutboxMessage.objects.order_by("id")
    assert (first.sent_at, second.sent_at) == (None, None)
    assert (first.attempts, second.attempts) == (1, 0)
    assert first.last_error.startswith("OperationalError")
    assert first.due_at > timezone.now()  # backed off
    with broker_up() as publish:
        assert outbox.drain() == 2  # back: the beat publishes both (due within its next run)
    assert sorted(c.kwargs["args"] for c in publish.call_args_list) == [["a"], ["b"]]


def test_a_row_written_as_sent_whose_publisher_died_at_the_commit_is_sent_again(settings, ran):
    """The commit stood and the process died before publishing: the row is one the broker
    lost, sent again by the drain once OUTBOX_REDELIVER_SECONDS have passed."""
    with broker_up() as publish:
        outbox.enqueue(PING)  # no commit callbacks run in this test's transaction
    assert publish.call_count == 0
    row = OutboxMessage.objects.get()
    assert row.sent_at is not None
    assert row.acked_at is None
    redeliver = timedelta(seconds=settings.OUTBOX_REDELIVER_SECONDS)
    with time_machine.travel(row.sent_at + redeliver - timedelta(seconds=1)):
        assert outbox.drain() == 0
    with time_machine.travel(row.sent_at + redeliver + timedelta(seconds=1)):
        assert outbox.drain() == 1
    assert [name for name, _a, _k in ran] == [PING]


def test_a_task_enqueued_here_runs_in_this_process_after_the_commit_and_is_done(on_commit):
    with (
        broker_up() as publish,
        mock.patch.object(celery_app.tasks[PING], "run", return_value="pong") as run,
    ):
        with on_commit():
            outbox.enqueue(PING, kwargs={"n": 1}, here=True)
            assert run.call_count == 0  # not before the commit
        run.assert_called_once_with(n=1)
    assert publish.call_count == 0  # not through the broker
    row = OutboxMessage.objects.get()
    assert row.acked_at is not None


def test_a_task_enqueued_here_that_fails_waits_for_the_broker(on_commit, caplog):
    with (
        broker_up() as publish,
        mock.patch.object(celery_app.tasks[PING], "run", side_effect=OSError("down")),
        on_commit(),
    ):
        outbox.enqueue(PING, here=True)
    assert publish.call_count == 0
    row = OutboxMessage.objects.get()
    assert (row.sent_at, row.acked_at, row.attempts) == (None, None, 1)
    assert row.last_error == "OSError: down"
    assert "failed here; it waits for the broker" in caplog.text
    with broker_up() as publish:
        assert outbox.drain() == 1  # due within the drain's next run
    assert publish.call_count == 1


def test_an_acknowledgement_marks_the_row_done_once_and_empties_its_payload():
    row = OutboxMessage.objects.create(
        task=PING, payload=b"sealed", sent_at=timezone.now(), claimed_until=timezone.now()
    )
    with CaptureQueriesContext(connection) as queries:
        assert outbox.acknowledge(row.pk) is True
    assert len(queries.captured_queries) == 1
    row.refresh_from_db()
    assert (bytes(row.payload), row.claimed_until, row.acked_at is not None) == (b"", None, True)
    assert outbox.acknowledge(row.pk) is False
    assert outbox.acknowledge(row.pk + 1000) is False
