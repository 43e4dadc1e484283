"""Background work, enqueued through a database outbox: the one way the project sends a task.

`enqueue("app.task_name", args=..., kwargs=...)` writes an `OutboxMessage` row in the caller's
transaction (the same one as the business write), and once that transaction commits tries to
publish the task and marks the row sent. A rolled-back transaction leaves no row and sends
nothing. A broker that is down or frozen fails the publish quickly (short socket timeouts, one
retry, config/settings/cache_and_celery.py) and trips a circuit breaker, so later publishes
skip it for a few seconds instead of waiting again; the row waits, and the beat's
`common.drain_outbox` task (every 10 s) publishes what is due once the broker is back. A request
never fails or hangs because the broker does.

Tasks are named, not imported: services do not import their app's tasks module (which imports
them), so there is no import circle between the two.

With a broker that has not been failing lately, a new row (without a dedupe key) is written
already marked sent, and its commit publishes the task from memory: no claim and no mark, so
the publish costs no statement. A refused publish puts the row back to wait for the drain; a
publisher that dies between the commit and the publish leaves a row sent and never
acknowledged, which the drain sends again as it does a message the broker lost (below).

Delivery is at least once: a publisher that dies after the broker took the task and before the
row is marked sent leaves it to be published again after its claim lapses. A row sent stays
until a worker has run its task: the message carries the row's id (`OUTBOX_HEADER`), and the
worker marks the row acknowledged when the task ends (`task_postrun`, success or failure; a
retry waits for its last run). A row sent and never acknowledged (the broker lost the message:
Redis restarted empty, or a message was dropped) is sent again by the drain once
`OUTBOX_REDELIVER_SECONDS` have passed since it was due, longer than the broker's visibility
timeout so that a message the broker still holds is redelivered by the broker first; after
`MAX_REDELIVERIES` such sends it is given up and logged. Every task is idempotent (it records
what it did), so a double publish is harmless.

Without a broker (the embedded default: eager Celery) "publishing" runs the task in the
process at commit, as before; a task that raises is logged and its row still counts as done
(the task ran; retrying is the task's own business).

A row keeps the request id of its enqueue (common.observability) in its sealed payload, and is
published under it: a task the drain sends minutes later still logs with the id of the
request that wrote it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from celery import current_app as app
from cryptography.fernet import InvalidToken, MultiFernet
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Count, F, Min, Q
from django.utils import timezone

from common import observability, sealed
from common.breaker import breaker
from common.compiled import insert
from common.models import OutboxMessage

logger = logging.getLogger(__name__)

# A publisher owns a claimed row this long; a row still claimed after it is published again.
CLAIM_LEASE = timedelta(seconds=60)
# Rows due within this much of now are published by the drain, with the rest as a countdown.
DRAIN_AHEAD = timedelta(seconds=10)
DRAIN_BATCH = 500
PUBLISH_CHUNK = 500
MAX_BACKOFF_SECONDS = 300
SENT_KEPT = timedelta(days=1)
# A sent row not acknowledged after this many sends is given up (logged, kept for a day).
MAX_REDELIVERIES = 5
# The header of a published message that names its outbox row (read back by the worker).
OUTBOX_HEADER = "emporion_outbox_id"


def broker_breaker():
    """The process's circuit breaker of the broker (also read by the health check)."""
    return breaker("the broker", settings.REDIS_BREAKER_SECONDS)


def _eager() -> bool:
    return bool(app.conf.task_always_eager)


def task_named(name: str):
    """The registered Celery task `name` (importing every app's tasks module on first use)."""
    task = app.tasks.get(name)
    if task is None:
        app.loader.import_default_modules()
        task = app.tasks.get(name)
    if task is None:
        raise LookupError(f"No Celery task is registered as {name!r}.")
    return task


# --- The payload, encrypted at rest ---------------------------------------------------------------


def _fernet() -> MultiFernet:
    return sealed.keyring("outbox")


def _seal(args: list, kwargs: dict) -> bytes:
    """The task's arguments and the current request id, encrypted."""
    content = {"args": args, "kwargs": kwargs}
    if request_id := observability.current():
        content["request_id"] = request_id
    data = json.dumps(content, separators=(",", ":"))
    return _fernet().encrypt(data.encode())


def _open_content(payload) -> dict:
    data = json.loads(_fernet().decrypt(bytes(payload)))
    return {"args": data["args"], "kwargs": data["kwargs"], "request_id": data.get("request_id")}


def _open(payload) -> tuple[list, dict]:
    content = _open_content(payload)
    return content["args"], content["kwargs"]


# --- Enqueue and publish -----------------------------------------------------------------------


def _unclaimed(now) -> Q:
    return Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)


def enqueue(
    task: str,
    *,
    args: tuple | list = (),
    kwargs: dict | None = None,
    countdown: float | None = None,
    dedupe_key: str = "",
    fresh: bool = False,
    here: bool = False,
) -> None:
    """Send the task `task` once the current transaction commits (at once outside one).

    `args` and `kwargs` must be JSON values. `countdown` delays the task that many seconds.
    `dedupe_key` (naming the task and its arguments, e.g. "store_orders.release_stock:12"):
    while a row with that key waits to be published, this enqueue joins it instead of adding
    another. The joined row stays locked until this transaction ends, and publishers skip
    locked rows, so it is published by this transaction's commit, after what it wrote is
    visible. Nothing here waits on a lock: a row another transaction holds is not joined.
    `fresh` (with a dedupe key): the caller knows no row with that key waits (it holds a lock
    every such enqueue takes and found no work pending), so nothing is looked up and the row
    is written as sent, like one without a key; it keeps its key, so that should its publish
    fail and the row wait again, later enqueues join it.

    `here` (a worker's next step, e.g. delivering the e-mail a task has just recorded): the
    task runs in this process once the commit is done instead of going through the broker,
    its row written as sent being the safety net. A run that ends well acknowledges the row; a
    failed one leaves it waiting, and the drain sends it through the broker, where the task's
    own retries apply; a process that dies first leaves a row the drain sends again as a lost
    message. Eager, or with a countdown or a dedupe key, `here` changes nothing.
    """
    task_named(task)  # a wrong name or argument fails here, before anything is written
    args, kwargs = list(args), dict(kwargs or {})
    payload = _seal(args, kwargs)
    now = timezone.now()
    due = now + timedelta(seconds=countdown) if countdown else now
    with transaction.atomic(savepoint=False):  # the caller's transaction, or one of its own
        message = None
        if dedupe_key and not fresh:
            message = (
                OutboxMessage.objects.select_for_update(skip_locked=True)
                .filter(task=task, dedupe_key=dedupe_key, sent_at__isnull=True)
                .filter(_unclaimed(now))
                .order_by("id")
                .first()
            )
        if message is None:
            direct = (fresh or not dedupe_key) and _direct()
            here = here and direct and not countdown
            message = insert(  # compiled once (common.compiled): most writes enqueue
                OutboxMessage(
                    task=task,
                    payload=payload,
                    dedupe_key=dedupe_key,
                    due_at=due,
                    sent_at=now if direct else None,
                )
            )
            if direct:
                _publish_on_commit(
                    planned=[
                        _Planned(message.pk, task, args, kwargs, due, observability.current(), here)
                    ]
                )
                return
        elif due < message.due_at:
            OutboxMessage.objects.filter(pk=message.pk).update(due_at=due)
    _publish_on_commit(ids=[message.pk])


def enqueue_many(task: str, arg_lists: Iterable[tuple | list]) -> None:
    """`enqueue(task, args=args)` for each of `arg_lists`, in one INSERT (fresh work items: no
    countdown, no dedupe key)."""
    task_named(task)
    now = timezone.now()
    items = [list(args) for args in arg_lists]
    direct = _direct()
    request_id = observability.current()
    rows = OutboxMessage.objects.bulk_create(
        OutboxMessage(
            task=task,
            payload=_seal(args, {}),
            created_at=now,
            due_at=now,
            sent_at=now if direct else None,
        )
        for args in items
    )
    if not rows:
        return
    if direct:
        _publish_on_commit(
            planned=[
                _Planned(row.pk, task, args, {}, now, request_id, False)
                for row, args in zip(rows, items, strict=True)
            ]
        )
    else:
        _publish_on_commit(ids=[row.pk for row in rows])


def _direct() -> bool:
    """Whether a new row is written as sent, its task published from memory at commit (a broker
    that was not failing lately): the publish then needs no statement of its own. A row the
    commit does not get to publish (the process died) is one a broker lost: the drain sends it
    again after OUTBOX_REDELIVER_SECONDS (requeue_unacknowledged). A row with a dedupe key
    stays waiting until its commit, so that later enqueues can join it."""
    return not _eager() and broker_breaker().allow()


class _Planned(NamedTuple):
    """A row written as sent, with what its publish needs (no read of the row at commit)."""

    pk: int
    task: str
    args: list[Any]
    kwargs: dict[str, Any]
    due: datetime
    request_id: str | None
    here: bool  # run in this process (enqueue's `here`), not published


class _PublishOnCommit:
    """The commit callback of one enqueue. Each enqueue registers its own (a rolled-back
    savepoint drops its callbacks, as Django does), and every callback of a connection is
    also kept in its batch (`_batch`): the first to run publishes the waiting rows of those
    registered after it and not run yet, so a commit that enqueued several tasks claims and
    marks them in one statement each, and the later callbacks find nothing left. (Django runs
    a commit's callbacks from a list of its own, so the batch cannot be read off the
    connection's queue at that point.)

    A batch-mate whose savepoint rolled back lends ids of rows that are gone, which is
    harmless: the claim takes only rows that exist and wait to be published. Rows written as
    sent (`planned`) are published by their own callback only, which needs no statement: a
    callback dropped with its savepoint never runs, so nothing is published for its rows,
    which are gone with it."""

    __slots__ = ("ids", "planned", "ran")

    def __init__(self, ids: Iterable[int], planned: Iterable[_Planned]):
        self.ids = list(ids)
        self.planned = list(planned)
        self.ran = False

    def __call__(self) -> int:
        ids: list[int] = []
        batch = _batch(transaction.get_connection())
        # Those registered from this one on: in a commit, this is the first to run, so all of
        # them (a test that runs a window of callbacks by hand gets that window's).
        start = next((n for n, callback in enumerate(batch) if callback is self), len(batch))
        for callback in [self, *batch[start:]]:
            if not callback.ran:
                ids.extend(callback.ids)
                callback.ids, callback.ran = [], True
        del batch[start:]
        sent = publish(ids) if ids else 0
        planned, self.planned = self.planned, []
        published = [item for item in planned if not item.here]
        sent += _publish_planned(published) if published else 0
        return sent + _run_here([item for item in planned if item.here])


def _batch(conn) -> list[_PublishOnCommit]:
    batch = getattr(conn, "_outbox_batch", None)
    if batch is None:
        batch = conn._outbox_batch = []
    return batch


def _publish_on_commit(ids: Iterable[int] = (), planned: Iterable[_Planned] = ()) -> None:
    conn = transaction.get_connection()
    batch = _batch(conn)
    if not conn.run_on_commit:  # a new transaction: what is left belonged to rolled-back ones
        batch.clear()
    callback = _PublishOnCommit(ids, planned)
    batch.append(callback)
    # robust: nothing that happens after the commit may fail the committed request.
    transaction.on_commit(callback, robust=True)


def publish(ids: list[int]) -> int:
    """Hand the waiting rows' tasks to the broker (or run them, eagerly) and mark them sent.

    Answers how many were sent now. Skips rows another publisher holds or that were sent
    meanwhile, and everything while the broker's breaker is open (the drain sends them later).
    Stops at the first broker failure, releasing the rest for the drain.
    """
    sent = 0
    for start in range(0, len(ids), PUBLISH_CHUNK):
        chunk_sent, stopped = _publish_chunk(ids[start : start + PUBLISH_CHUNK])
        sent += chunk_sent
        if stopped:
            break
    return sent


def _publish_chunk(ids: list[int]) -> tuple[int, bool]:
    """Claim and publish one chunk of rows: (how many were sent, whether the broker failed)."""
    eager = _eager()
    if not eager and not broker_breaker().allow():
        return 0, True
    now = timezone.now()
    claimed = _claim(ids, now)
    free = [message.pk for message in claimed]
    done: list[int] = []
    broker_down = False
    for message in claimed:
        error = _send(message, now, eager=eager)
        if error is None:
            done.append(message.pk)
        elif eager or isinstance(error, _Unreadable):  # it ran (and failed), or never can
            _mark_sent([message.pk], now, error=error)
        else:
            broker_breaker().failure(error, during=f"publishing {message.task}")
            _retry_later(message, now, error)
            broker_down = True
            break
    if done:
        if eager:
            _mark_sent(done, now)
        else:
            _mark_published(done, now)
        if not eager:
            broker_breaker().success()
    if broker_down:  # the rest of the chunk waits for the drain
        OutboxMessage.objects.filter(pk__in=free, sent_at__isnull=True).update(claimed_until=None)
    return len(done), broker_down


_CLAIM_SQL = """
    UPDATE {table} SET claimed_until = %s
    WHERE id IN (
        SELECT id FROM {table}
        WHERE id = ANY(%s::bigint[]) AND sent_at IS NULL
          AND (claimed_until IS NULL OR claimed_until < %s)
        FOR UPDATE SKIP LOCKED
    )
    RETURNING {columns}
"""


def _claim(ids: list[int], now) -> list[OutboxMessage]:
    """Claim the rows of `ids` nobody holds (a row being joined, locked, is skipped) for
    CLAIM_LEASE; answers them in the order to send them. On PostgreSQL one statement (the
    lock, the claim and the rows); elsewhere a short transaction and a read."""
    if connection.vendor == "postgresql":
        fields = [OutboxMessage._meta.get_field(name) for name in _CLAIMED_FIELDS]
        sql = _CLAIM_SQL.format(
            table=connection.ops.quote_name(OutboxMessage._meta.db_table),
            columns=", ".join(connection.ops.quote_name(f.column) for f in fields),
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [now + CLAIM_LEASE, list(ids), now])
            rows = cursor.fetchall()
        claimed = [
            OutboxMessage(**{f.attname: value for f, value in zip(fields, row, strict=True)})
            for row in rows
        ]
        claimed.sort(key=lambda message: (message.due_at, message.pk))
        return claimed
    with transaction.atomic():
        free = list(
            OutboxMessage.objects.select_for_update(skip_locked=True)
            .filter(pk__in=ids, sent_at__isnull=True)
            .filter(_unclaimed(now))
            .values_list("pk", flat=True)
        )
        OutboxMessage.objects.filter(pk__in=free).update(claimed_until=now + CLAIM_LEASE)
    return list(OutboxMessage.objects.filter(pk__in=free).order_by("due_at", "id"))


_CLAIMED_FIELDS = ("id", "task", "payload", "due_at", "attempts")


class _Unreadable(Exception):
    pass


def _send(message: OutboxMessage, now, *, eager: bool) -> Exception | None:
    """Publish one claimed row; answers the error, or None once the broker took it."""
    try:
        content = _open_content(message.payload)
    except (InvalidToken, ValueError, KeyError) as exc:
        logger.error("outbox message %s (%s) is unreadable; dropped", message.pk, message.task)
        return _Unreadable(f"unreadable payload: {exc.__class__.__name__}")
    return _apply(
        message.pk,
        message.task,
        content["args"],
        content["kwargs"],
        countdown=max(0.0, (message.due_at - now).total_seconds()),
        request_id=content["request_id"],
        eager=eager,
    )


def _apply(
    pk: int,
    task: str,
    args: list[Any],
    kwargs: dict[str, Any],
    *,
    countdown: float,
    request_id: str | None,
    eager: bool,
) -> Exception | None:
    # Sent under the id of the request that enqueued it, whoever publishes it ("": its own).
    with observability.bound(str(request_id or "")):
        try:
            task_named(task).apply_async(
                args=args,
                kwargs=kwargs,
                countdown=countdown or None,
                # An eager task has run by now: nothing to acknowledge later.
                headers=None if eager else {OUTBOX_HEADER: pk},
            )
        except Exception as exc:  # the committed write stands; the row waits
            if eager:  # the task itself failed, in this process: it ran, which is all we promise
                logger.exception("task %s (outbox message %s) failed", task, pk)
            return exc
    return None


def _publish_planned(planned: list[_Planned]) -> int:
    """Publish the tasks of rows written as sent, from memory (no statement when the broker
    takes them). The first refusal trips the breaker; that row and those after it wait for the
    drain, as a failed claim's rows do. Answers how many were sent."""
    now = timezone.now()
    for n, item in enumerate(planned):
        if not broker_breaker().allow():
            error: Exception | None = None
        else:
            error = _apply(
                item.pk,
                item.task,
                item.args,
                item.kwargs,
                countdown=max(0.0, (item.due - now).total_seconds()),
                request_id=item.request_id,
                eager=False,
            )
            if error is None:
                continue
            broker_breaker().failure(error, during=f"publishing {item.task}")
        waiting = [later.pk for later in planned[n + (error is not None) :]]
        if waiting:
            OutboxMessage.objects.filter(pk__in=waiting, acked_at__isnull=True).update(
                sent_at=None, claimed_until=None
            )
        if error is not None:
            failed = OutboxMessage(pk=item.pk, task=item.task, due_at=item.due, attempts=0)
            _retry_later(failed, now, error, unsend=True)
        return n
    broker_breaker().success()
    return len(planned)


def _run_here(planned: list[_Planned]) -> int:
    """Run the tasks of `planned` in this process (enqueue's `here`); answers how many ran
    well. The task's function is called as such (no retries of Celery's here): a failure
    leaves its row waiting, due after the first back-off, for the drain to send through the
    broker."""
    done = 0
    for item in planned:
        with observability.bound(str(item.request_id or "")):
            try:
                task_named(item.task).run(*item.args, **item.kwargs)
            except Exception as exc:  # noqa: BLE001 - whatever failed, the broker's run retries
                logger.warning(
                    "task %s (outbox message %s) failed here; it waits for the broker: %s",
                    item.task,
                    item.pk,
                    _describe(exc),
                )
                failed = OutboxMessage(pk=item.pk, task=item.task, due_at=item.due, attempts=0)
                _retry_later(failed, timezone.now(), exc, unsend=True)
                continue
        try:
            acknowledge(item.pk)
        except DatabaseError:  # sent again later; the task is idempotent
            logger.warning("outbox message %s: the acknowledgement was not recorded", item.pk)
        done += 1
    return done


def _describe(error: Exception | None) -> str:
    return f"{error.__class__.__name__}: {error}"[:500] if error is not None else ""


def _mark_sent(ids: list[int], now, *, error: Exception | None = None) -> None:
    """Sent and done: the task ran in this process, or never can."""
    OutboxMessage.objects.filter(pk__in=ids).update(
        sent_at=now, acked_at=now, claimed_until=None, payload=b"", last_error=_describe(error)
    )


def _mark_published(ids: list[int], now) -> None:
    """The broker took them: sent, the payload kept until a worker acknowledges the task."""
    OutboxMessage.objects.filter(pk__in=ids).update(sent_at=now, claimed_until=None)


def acknowledge(message_id: int) -> bool:
    """The task of row `message_id` has run (the worker, once it ends): the row is done and its
    payload emptied. Answers whether it was waiting for that."""
    connection = connections[router.db_for_write(OutboxMessage) or DEFAULT_DB_ALIAS]
    with connection.cursor() as cursor:
        cursor.execute(
            _acknowledge_sql(connection),
            [connection.ops.adapt_datetimefield_value(timezone.now()), b"", message_id],
        )
        return bool(cursor.rowcount == 1)


def _acknowledge_sql(connection: BaseDatabaseWrapper) -> str:
    """acknowledge's UPDATE, written once (it runs after every task the outbox sent; the ORM's
    update() compiled it again each time, at several times the cost of the statement)."""
    sql = _ACKNOWLEDGE_SQL.get(connection.vendor)
    if sql is None:
        quote = connection.ops.quote_name
        meta = OutboxMessage._meta
        # the columns are named as the fields (no db_column)
        acked, claimed, payload, pk = (
            quote(name) for name in ("acked_at", "claimed_until", "payload", "id")
        )
        sql = _ACKNOWLEDGE_SQL[connection.vendor] = (
            f"UPDATE {quote(meta.db_table)} SET {acked} = %s, {claimed} = NULL, "  # noqa: S608
            f"{payload} = %s WHERE {pk} = %s AND {acked} IS NULL"
        )
    return sql


_ACKNOWLEDGE_SQL: dict[str, str] = {}


def outbox_id_of(request) -> int | None:
    """The outbox row a running task's message names (its header), if any."""
    value = getattr(request, OUTBOX_HEADER, None)
    if value is None:
        value = (getattr(request, "headers", None) or {}).get(OUTBOX_HEADER)
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _task_ended(sender=None, task_id=None, task=None, state=None, **_kwargs) -> None:
    """`task_postrun`: a task sent from the outbox ran; a retry acknowledges nothing (its last
    run does)."""
    if state == "RETRY" or task is None:
        return
    message_id = outbox_id_of(task.request)
    if message_id is None:
        return
    try:
        acknowledge(message_id)
    except DatabaseError:  # the row is sent again later; the task is idempotent
        logger.warning("outbox message %s: the acknowledgement was not recorded", message_id)


def connect_worker_signals() -> None:
    """Acknowledge outbox rows as their tasks end (called once per process)."""
    from celery import signals

    signals.task_postrun.connect(_task_ended, dispatch_uid="outbox_acknowledge")


def _retry_later(message: OutboxMessage, now, error: Exception, *, unsend: bool = False) -> None:
    """The row waits to be published again after a back-off (`unsend`: it was written as sent)."""
    wait = timedelta(seconds=min(2 ** (message.attempts + 1), MAX_BACKOFF_SECONDS))
    OutboxMessage.objects.filter(pk=message.pk).update(
        claimed_until=None,
        attempts=F("attempts") + 1,
        due_at=max(message.due_at, now + wait),
        last_error=_describe(error),
        **({"sent_at": None} if unsend else {}),
    )


# --- The beat's side --------------------------------------------------------------------------


def drain(*, limit: int = DRAIN_BATCH) -> int:
    """Publish the waiting rows that are due (the beat task), after returning to them the rows
    sent long ago and never acknowledged. Answers how many were sent.

    Stops at the first broker failure: the rest wait for the next run.
    """
    now = timezone.now()
    requeue_unacknowledged(now=now, limit=limit)
    due = (
        OutboxMessage.objects.filter(sent_at__isnull=True, due_at__lte=now + DRAIN_AHEAD)
        .filter(_unclaimed(now))
        .order_by("due_at", "id")
        .values_list("id", flat=True)
    )
    return publish(list(due[:limit]))


def requeue_unacknowledged(*, now=None, limit: int = DRAIN_BATCH) -> int:
    """Rows sent at least OUTBOX_REDELIVER_SECONDS after they were due and still not
    acknowledged wait to be published again (their message was lost); those sent
    MAX_REDELIVERIES times already are given up. Answers how many wait again."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.OUTBOX_REDELIVER_SECONDS)
    lost = OutboxMessage.objects.filter(
        sent_at__isnull=False, acked_at__isnull=True, sent_at__lt=cutoff, due_at__lt=cutoff
    )
    ids = list(lost.order_by("sent_at").values_list("id", flat=True)[:limit])
    if not ids:
        return 0
    given_up = list(
        OutboxMessage.objects.filter(pk__in=ids, attempts__gte=MAX_REDELIVERIES).values_list(
            "id", "task"
        )
    )
    for message_id, task in given_up:
        logger.error(
            "outbox message %s (%s) was sent %s times and never acknowledged; given up",
            message_id,
            task,
            MAX_REDELIVERIES + 1,
        )
    if given_up:
        OutboxMessage.objects.filter(pk__in=[pk for pk, _ in given_up]).update(
            acked_at=now, payload=b"", last_error="never acknowledged; given up"
        )
    again = OutboxMessage.objects.filter(
        pk__in=ids, acked_at__isnull=True, sent_at__lt=cutoff
    ).update(
        sent_at=None,
        due_at=now,
        attempts=F("attempts") + 1,
        last_error="sent and not acknowledged; sent again",
    )
    if again:
        logger.warning("outbox: %s sent messages were never acknowledged; sending again", again)
    return again


def backlog() -> dict:
    """What waits: {waiting, oldest_due_at} (the health check)."""
    waiting = OutboxMessage.objects.filter(sent_at__isnull=True).aggregate(
        count=Count("id"), oldest=Min("due_at")
    )
    return {"waiting": waiting["count"], "oldest_due_at": waiting["oldest"]}


def purge(*, now=None) -> int:
    """Delete rows done (acknowledged) more than a day ago."""
    now = now or timezone.now()
    deleted, _ = OutboxMessage.objects.filter(
        sent_at__lt=now - SENT_KEPT, acked_at__lt=now - SENT_KEPT
    ).delete()
    return deleted
