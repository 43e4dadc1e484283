"""The logging handler (LOGGING in config/settings/observability.py): what it records, and that
it never raises, never blocks its caller, never recurses and survives a rolled-back request and
a database that is down. The writer thread writes on its own connection, so these tests commit
(their rows are visible to it, and its rows to them)."""

from __future__ import annotations

import logging
import time

import pytest
from django.db import OperationalError, connection, connections, transaction
from django.test import Client

from common import observability
from debugtools import handler as handler_module
from debugtools.choices import Level
from debugtools.models import DebugSettings, LogEntry
from tests.accounts.factories import UserFactory
from tests.debugtools.conftest import BASE, client_of
from tests.fixtures.store import grant

pytestmark = pytest.mark.django_db(transaction=True)

log = logging.getLogger("tests.debugtools.sample")


@pytest.fixture
def recorder(settings, monkeypatch):
    """The handler of the LOGGING configuration, switched on, its pauses shortened."""
    settings.DEBUGTOOLS_RECORD_LOGS = True
    monkeypatch.setattr(handler_module, "PAUSE_AFTER_FAILURE", 0.0)
    monkeypatch.setattr(handler_module, "RETRY_DELAYS", (0.05, 0.1, 0.2, 0.4, 0.8))
    [found] = [
        h for h in logging.getLogger().handlers if isinstance(h, handler_module.DatabaseHandler)
    ]
    found.flush()
    yield found
    assert found.flush(timeout=5)
    # the writer ends and closes its connection: none is left behind on the test database
    # (which could then not be dropped), nor reads the level every REFRESH_SECONDS
    assert found.stop(timeout=5)


def test_a_record_at_the_level_is_recorded_with_its_request_id_and_context(recorder):
    token = observability._current.set("req-42")
    try:
        log.warning(
            "payment %s refused",
            "p-1",
            extra={"order_id": 7, "password": "hunter2", "nested": {"api_key": "k", "n": 1}},
        )
        log.info("below the level")
    finally:
        observability._current.reset(token)
    assert recorder.flush(timeout=5)
    stored = LogEntry.objects.get()
    assert (stored.level, stored.logger) == (Level.WARNING, "tests.debugtools.sample")
    assert stored.message == "payment p-1 refused"
    assert stored.request_id == "req-42"
    assert stored.context["order_id"] == 7
    assert stored.context["password"] == "[scrubbed]"
    assert stored.context["nested"] == {"api_key": "[scrubbed]", "n": 1}
    assert stored.context["location"].startswith("test_handler.")


def test_an_exception_is_recorded_with_its_traceback_and_caps(recorder, settings):
    settings.DEBUGTOOLS_MAX_MESSAGE_CHARS = 100
    settings.DEBUGTOOLS_MAX_CONTEXT_BYTES = 1024
    try:
        raise ValueError("bad \x00 value \ud800")
    except ValueError:
        log.exception("failed: %s", "y" * 500, extra={"blob": "z" * 5000})
    assert recorder.flush(timeout=5)
    stored = LogEntry.objects.get()
    assert stored.level == Level.ERROR
    assert len(stored.message) == 100
    assert stored.message.endswith("…")
    assert stored.context["truncated"] is True
    assert stored.context["size"] > 1024
    assert "\x00" not in stored.context["preview"]


def test_the_recording_level_set_through_the_api_applies(recorder):
    admin = client_of(grant(UserFactory(), "manage_options"))
    assert admin.put(f"{BASE}/settings", {"level": "info"}, format="json").status_code == 200
    log.info("now recorded")
    log.debug("still not")
    assert recorder.flush(timeout=5)
    assert list(LogEntry.objects.values_list("message", flat=True)) == ["now recorded"]
    admin.put(f"{BASE}/settings", {"level": "critical"}, format="json")
    log.error("not any more")
    assert recorder.flush(timeout=5)
    assert LogEntry.objects.count() == 1


def test_the_error_of_a_rolled_back_transaction_is_kept(recorder):
    def fail_inside_a_transaction():
        with transaction.atomic():
            DebugSettings.objects.create(pk=1, retention_days=5)
            log.error("failed inside the transaction")
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        fail_inside_a_transaction()
    assert recorder.flush(timeout=5)
    assert not DebugSettings.objects.exists()  # the caller's write is gone...
    assert list(LogEntry.objects.values_list("message", flat=True)) == [
        "failed inside the transaction"  # ...its error is not
    ]


@pytest.mark.urls("tests.debugtools.failing_urls")
def test_a_failing_request_keeps_its_error_with_its_request_id(recorder):
    client = Client(raise_request_exception=False)
    response = client.get("/fail?token=secret-in-query", HTTP_X_REQUEST_ID="req-500")
    assert response.status_code == 500
    assert recorder.flush(timeout=5)
    assert not DebugSettings.objects.exists()  # the request's write was rolled back
    stored = LogEntry.objects.get(logger="django.request")
    assert stored.level == Level.ERROR
    assert stored.request_id == "req-500"
    assert stored.context["request"] == {"method": "GET", "path": "/fail"}
    assert stored.context["status_code"] == 500
    assert "RuntimeError: the view failed" in stored.context["exception"]["traceback"]
    assert "secret-in-query" not in str(stored.context)


def test_the_handler_never_raises_nor_blocks_while_the_database_is_down(recorder, monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    wrapper = type(connections["default"])
    monkeypatch.setattr(wrapper, "ensure_connection", refuse)
    # the writer's retries are not what this test is about: tried again at once, then dropped
    monkeypatch.setattr(handler_module, "RETRY_DELAYS", (0.0, 0.0, 0.0))
    connection.close()
    started = time.monotonic()
    for index in range(200):
        log.error("while down %s", index)  # never raises
    assert time.monotonic() - started < 0.5  # the caller never waits for the database
    assert recorder.flush(timeout=10)
    assert recorder.failed + recorder.dropped >= 200
    monkeypatch.undo()
    monkeypatch.setattr(handler_module, "PAUSE_AFTER_FAILURE", 0.0)
    log.error("back up")
    assert recorder.flush(timeout=5)
    assert list(LogEntry.objects.values_list("message", flat=True)) == ["back up"]


def test_a_full_queue_drops_and_counts_instead_of_blocking(recorder, monkeypatch):
    import queue

    dropped = recorder.dropped
    full = queue.Queue(maxsize=1)
    full.put_nowait({"never": "written"})
    monkeypatch.setattr(recorder, "_ensure_writer", lambda: full)
    log.error("no room")
    assert recorder.dropped == dropped + 1


def test_the_writer_never_records_its_own_logging(recorder, monkeypatch):
    original = LogEntry.objects.bulk_create

    def noisy(rows, *args, **kwargs):
        logging.getLogger("django.db.backends").error("the writer itself logs")
        return original(rows, *args, **kwargs)

    monkeypatch.setattr(LogEntry.objects, "bulk_create", noisy)
    log.error("once")
    assert recorder.flush(timeout=5)
    assert recorder.flush(timeout=5)  # what the write itself logged would be queued by now
    assert list(LogEntry.objects.values_list("message", flat=True)) == ["once"]


def test_a_broken_record_never_raises(recorder):
    record = log.makeRecord(log.name, logging.ERROR, __file__, 1, "%d apples", ("x",), None)
    recorder.handle(record)  # a format that does not fit its arguments: never raises
    assert recorder.flush(timeout=5)
    stored = LogEntry.objects.get()
    assert "apples" in stored.message


def test_switched_off_nothing_is_recorded(recorder, settings):
    settings.DEBUGTOOLS_RECORD_LOGS = False
    log.error("not recorded")
    assert recorder.flush(timeout=5)
    assert not LogEntry.objects.exists()


def test_a_writer_that_died_is_started_again(recorder):
    log.error("first")
    dead = recorder._thread
    assert recorder.stop(timeout=5)  # it writes what it holds, then ends
    assert not dead.is_alive()
    log.error("second")
    assert recorder._thread is not dead
    assert recorder._thread.is_alive()
    assert recorder.flush(timeout=5)
    assert sorted(LogEntry.objects.values_list("message", flat=True)) == ["first", "second"]


def test_closing_the_handler_writes_what_is_queued_and_ends_the_writer(recorder, monkeypatch):
    """logging.shutdown at the process's end closes every handler: nothing queued is lost and
    the writer's connection is closed rather than abandoned."""
    monkeypatch.setattr(logging.Handler, "close", lambda self: None)  # it stays configured
    closed, disconnect = [], handler_module.DatabaseHandler._disconnect

    def counted_disconnect():
        closed.append(1)
        disconnect()

    monkeypatch.setattr(
        handler_module.DatabaseHandler, "_disconnect", staticmethod(counted_disconnect)
    )
    for index in range(3):
        log.error("before the end %s", index)
    writer = recorder._thread
    recorder.close()
    assert not writer.is_alive()
    assert closed  # its connection closed on the way out
    assert LogEntry.objects.count() == 3


def test_a_forked_child_starts_its_own_writer(recorder, monkeypatch):
    import os

    log.error("parent")
    assert recorder.flush(timeout=5)
    parent_thread, parent_queue = recorder._thread, recorder._queue
    monkeypatch.setattr(os, "getpid", lambda: -1)  # as in a forked child
    log.error("child")
    assert recorder._thread is not parent_thread
    assert recorder.flush(timeout=5)
    assert sorted(LogEntry.objects.values_list("message", flat=True)) == ["child", "parent"]
    parent_queue.put(handler_module._STOP)  # the parent's writer ends too (it is this process's)
    parent_thread.join(5)
    assert not parent_thread.is_alive()
