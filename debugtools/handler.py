"""The logging handler that records log entries in the database (LOGGING in
config/settings/observability.py).

Why a writer thread with its own connection (docs/decisions/theme.md, "Core debug namespace"):

- The entries that matter most are the errors of a request that then fails, and a failing
  request's transaction is rolled back. A row written on the request's connection inside its
  transaction (ATOMIC_REQUESTS, or any `atomic` block the error happened in) would be rolled
  back with it; writing it with `transaction.on_commit` would never write it at all (the
  callbacks of a rolled-back transaction are dropped). So the row is written on another
  connection, in autocommit, where the caller's fate cannot touch it.
- Django's connections are per thread, so a writer thread has its own connection. The caller
  only formats the record (its message, context and request id are read in the caller's
  thread, where the request id lives) and puts it on a bounded queue: a request never waits
  for the database, nor for a database that is down. A full queue (a flood of errors, or the
  database away) drops entries and counts them (`dropped`), it never blocks.
- It never raises: `emit` catches everything (counted as `failed`), and a write that fails
  is tried again a few times over 1.5 s, then dropped; writing then pauses for a few seconds
  (a database that is down is not hammered with one attempt per record).
- It never recurses: records made by the writer thread itself (the database backend's own
  logging, a failure it meets) are ignored, and so is anything logged while `emit` runs.
- Only records at or above the recording level (DebugSettings.level, /debug/settings) are
  kept. The caller compares with a copy of that level held in memory; the writer reads it again
  from the database every REFRESH_SECONDS (and a change made through the service is applied
  at once in the process that made it).
- The thread is started on first use, and again in a forked child (gunicorn's and Celery's
  workers: threads do not survive a fork) or if it ever died. At exit, `flush` waits
  briefly for the queue.

DEBUGTOOLS_RECORD_LOGS turns it off (the test suite does: a thread writing committed rows
outside each test's transaction would leak rows between tests; tests/debugtools turn it on).
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
import time

from django.conf import settings

from debugtools.choices import Level

REFRESH_SECONDS = 30.0
PAUSE_AFTER_FAILURE = 5.0
# A failed write is tried again after these pauses (a lock held a moment, a restarting server),
# then dropped.
RETRY_DELAYS = (0.1, 0.4, 1.0)
BATCH = 200
DEFAULT_LEVEL = int(Level.WARNING)

_state = {"level": DEFAULT_LEVEL}
_RELEASE = object()  # put on the queue: the writer closes its connection
_STOP = object()  # put on the queue: the writer writes what it holds, closes it and ends
_local = threading.local()
_handlers: list[DatabaseHandler] = []


def recording_level() -> int:
    return _state["level"]


def note_level(level: int) -> None:
    """The recording level changed (the service calls this; other processes re-read it)."""
    _state["level"] = int(level)


def handlers() -> list[DatabaseHandler]:
    """The handlers of this process (diagnostics shows their counters)."""
    return list(_handlers)


class DatabaseHandler(logging.Handler):
    def __init__(self, level=logging.NOTSET, queue_size: int | None = None) -> None:
        super().__init__(level)
        self.queue_size = queue_size
        self._queue: queue.Queue | None = None
        self._thread: threading.Thread | None = None
        self._pid: int | None = None
        self._start_lock = threading.Lock()
        self._paused_until = 0.0
        self.written = 0
        self.dropped = 0
        self.failed = 0
        _handlers.append(self)

    # --- The caller's side ------------------------------------------------------------------

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(_local, "busy", False) or getattr(_local, "writer", False):
            return
        _local.busy = True
        try:
            if not settings.DEBUGTOOLS_RECORD_LOGS:
                return
            pending = self._ensure_writer()
            if record.levelno < _state["level"]:
                return
            from debugtools.records import from_log_record

            item = from_log_record(record)
            item["created_at"] = record.created
            pending.put_nowait(item)
        except queue.Full:
            self.dropped += 1
        except Exception:  # noqa: BLE001 - a log handler must never raise into its caller
            self.failed += 1
        finally:
            _local.busy = False

    def stats(self) -> dict:
        pending = self._queue.qsize() if self._queue is not None else 0
        return {
            "running": bool(self._thread and self._thread.is_alive()),
            "queued": pending,
            "written": self.written,
            "dropped": self.dropped,
            "failed": self.failed,
        }

    def flush(self, timeout: float = 2.0) -> bool:
        """Wait (at most `timeout` seconds) until every queued entry was written or dropped;
        answers whether the queue is empty."""
        pending = self._queue
        if pending is None or self._pid != os.getpid():
            return True
        deadline = time.monotonic() + timeout
        while pending.unfinished_tasks:
            if time.monotonic() > deadline or not (self._thread and self._thread.is_alive()):
                return False
            time.sleep(0.005)
        return True

    def release_connection(self, timeout: float = 2.0) -> bool:
        """Have the writer close its database connection (it opens a new one when it next
        writes): for a test run that drops its database, or a deploy that wants it gone."""
        if self._queue is None or self._pid != os.getpid():
            return True
        try:
            self._queue.put(_RELEASE, timeout=timeout)
        except queue.Full:
            return False
        return self.flush(timeout=timeout)

    def stop(self, timeout: float = 2.0) -> bool:
        """End the writer: it writes what is queued, closes its database connection and stops
        (the next record starts a new one). Without it the writer lives as long as the process
        and reads the recording level every REFRESH_SECONDS on a connection of its own."""
        thread = self._thread
        if self._queue is None or self._pid != os.getpid() or not (thread and thread.is_alive()):
            return True
        try:
            self._queue.put(_STOP, timeout=timeout)
        except queue.Full:
            return False
        thread.join(timeout)
        return not thread.is_alive()

    def close(self) -> None:
        """At the process's end (logging.shutdown) or when the handler is replaced: what is
        queued is written and the writer's connection closed, not abandoned."""
        self.stop(timeout=2.0)
        super().close()

    def _ensure_writer(self) -> queue.Queue:
        pid = os.getpid()
        if self._pid == pid and self._queue is not None and self._thread.is_alive():
            return self._queue
        with self._start_lock:
            alive = self._thread is not None and self._thread.is_alive()
            if self._pid != pid or self._queue is None or not alive:
                size = self.queue_size or settings.DEBUGTOOLS_QUEUE_SIZE
                self._queue = queue.Queue(maxsize=size)
                self._thread = threading.Thread(
                    target=self._run, args=(self._queue,), name="debugtools-writer", daemon=True
                )
                self._pid = pid
                self._thread.start()
        return self._queue

    # --- The writer thread --------------------------------------------------------------------

    def _run(self, pending: queue.Queue) -> None:
        _local.writer = True
        last_refresh = -REFRESH_SECONDS
        stopping = False
        while not stopping:
            batch: list[dict] = []
            try:
                if time.monotonic() - last_refresh >= REFRESH_SECONDS:
                    last_refresh = time.monotonic()
                    self._refresh_level()
                try:
                    batch.append(pending.get(timeout=REFRESH_SECONDS))
                except queue.Empty:
                    continue
                while len(batch) < BATCH:
                    try:
                        batch.append(pending.get_nowait())
                    except queue.Empty:
                        break
                stopping = any(item is _STOP for item in batch)
                rows = [item for item in batch if item is not _RELEASE and item is not _STOP]
                if rows:
                    self._write(rows)
                if len(rows) != len(batch):
                    self._disconnect()
                else:
                    self._tidy_connection()
            except Exception:  # noqa: BLE001 - the writer must outlive any failure
                self.failed += len(batch)
            finally:
                for _item in batch:
                    pending.task_done()
        self._disconnect()

    def _refresh_level(self) -> None:
        if time.monotonic() < self._paused_until:
            return
        try:
            from debugtools.models import DebugSettings

            level = DebugSettings.objects.filter(pk=1).values_list("level", flat=True).first()
            note_level(level if level is not None else DEFAULT_LEVEL)
            self._tidy_connection()
        except Exception:  # noqa: BLE001 - no database (yet): keep the level held
            self._disconnect()

    def _write(self, batch: list[dict]) -> None:
        if time.monotonic() < self._paused_until:
            self.dropped += len(batch)
            return
        from datetime import UTC, datetime

        from debugtools.models import LogEntry

        rows = [
            LogEntry(**{**item, "created_at": datetime.fromtimestamp(item["created_at"], tz=UTC)})
            for item in batch
            if item["level"] >= _state["level"]
        ]
        for delay in (*RETRY_DELAYS, None):
            try:
                LogEntry.objects.bulk_create(rows)
            except Exception:  # noqa: BLE001 - database down, locked, table missing
                self._disconnect()
                if delay is None:  # given up: drop the batch, pause writing
                    self.failed += len(batch)
                    self._paused_until = time.monotonic() + PAUSE_AFTER_FAILURE
                    return
                time.sleep(delay)
            else:
                self.written += len(rows)
                return

    @staticmethod
    def _tidy_connection() -> None:
        """As Django does between requests: the connection is closed once past CONN_MAX_AGE
        (at once with 0, so a pooled connection goes back to the pool after each batch)."""
        from django.db import connection

        with contextlib.suppress(Exception):
            connection.close_if_unusable_or_obsolete()

    @staticmethod
    def _disconnect() -> None:
        from django.db import connection

        with contextlib.suppress(Exception):  # closing a broken connection may fail too
            connection.close()
