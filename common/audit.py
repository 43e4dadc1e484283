"""Who changed what: the audit trail of licences, orders and payments.

The services record each change in the transaction that makes it (a rollback leaves no entry),
as `{field: [old, new]}`, whether they saved a model or ran a queryset `.update()`:

- `track(obj, fields)` snapshots a row when the service has locked it; `.record()` at the end
  writes one entry with the fields that changed (nothing when none did);
- `record(obj, action=..., changes=...)` writes one entry;
- `record_many(model, rows, action=...)` writes one entry per row in one INSERT (bulk moves).

Who acted is taken from the context, never passed around:
- a request (`AuditActorMiddleware`): the authenticated account, read when the entry is
  written, so an account authenticated by DRF (token, API key, application password) counts
  too; `via` is `admin` on the admin site, `api` elsewhere; nobody logged in is `anonymous`;
- a Celery task (including the beat's): `system`, via `task`, with the task's name;
- anything else (management commands, the shell): `system`, via `system`;
- `acting_as(...)` overrides all of these (code acting for someone, and tests).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal

from celery.signals import task_postrun, task_prerun
from django.contrib.contenttypes.models import ContentType
from django.db import models

from common.compiled import insert
from common.models import AuditEntry

SYSTEM = "system"
ANONYMOUS = "anonymous"
Via = AuditEntry.Via


@dataclass(frozen=True)
class Actor:
    user: object | None
    label: str
    via: str
    context: str = ""


_explicit: contextvars.ContextVar[Actor | None] = contextvars.ContextVar(
    "audit_explicit", default=None
)
_task: contextvars.ContextVar[Actor | None] = contextvars.ContextVar("audit_task", default=None)
_request: contextvars.ContextVar[object | None] = contextvars.ContextVar(
    "audit_request", default=None
)


def _from_request(request) -> Actor:
    match = getattr(request, "resolver_match", None)
    via = Via.ADMIN if match is not None and "admin" in match.namespaces else Via.API
    context = f"{request.method} {request.path}"[:200]
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return Actor(user, user.get_username(), via, context)
    return Actor(None, ANONYMOUS, via, context)


def current_actor() -> Actor:
    """Who is acting now (see the module's docstring)."""
    for var in (_explicit, _task):
        actor = var.get()
        if actor is not None:
            return actor
    request = _request.get()
    if request is not None:
        return _from_request(request)
    return Actor(None, SYSTEM, Via.SYSTEM)


@contextmanager
def acting_as(user=None, *, via: str, label: str | None = None, context: str = "") -> Iterator:
    """Record what happens inside as done by `user` (or `label`) through `via`."""
    if label is None:
        label = user.get_username() if user is not None else SYSTEM
    token = _explicit.set(Actor(user, label, via, context))
    try:
        yield
    finally:
        _explicit.reset(token)


class AuditActorMiddleware:
    """Makes the request (and so, lazily, its user) the actor of what its view changes."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = _request.set(request)
        try:
            return self.get_response(request)
        finally:
            _request.reset(token)


_task_tokens: dict[str, contextvars.Token] = {}


@task_prerun.connect(weak=False)
def _task_started(task_id=None, task=None, **_kwargs) -> None:
    name = getattr(task, "name", "") or ""
    _task_tokens[task_id] = _task.set(Actor(None, SYSTEM, Via.TASK, name[:200]))


@task_postrun.connect(weak=False)
def _task_ended(task_id=None, **_kwargs) -> None:
    token = _task_tokens.pop(task_id, None)
    if token is not None:
        with contextlib.suppress(ValueError):  # ended in another context: nothing to undo
            _task.reset(token)


# --- Values and differences ---------------------------------------------------------------------


def jsonable(value):
    """A value as the trail stores it: decimals as strings, times as UTC ISO 8601, rows as ids."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, models.Model):
        return value.pk
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(item) for item in value]
    return str(value)


def snapshot(obj: models.Model, fields: Iterable[str]) -> dict:
    """The named fields of `obj` as stored in the trail (relations by id, without a query)."""
    out = {}
    for name in fields:
        field = obj._meta.get_field(name)
        attname = field.attname if field.many_to_one or field.one_to_one else name
        out[name] = jsonable(getattr(obj, attname))
    return out


def diff(before: dict, after: dict) -> dict:
    """`{field: [old, new]}` of what differs; a dict value (an address) is compared key by key
    and reported as `field.key` (a missing key and an empty one are the same)."""
    changes = {}
    for name, new in after.items():
        old = before.get(name)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):
            for key in sorted({*old, *new}):
                was, now = _filled(old.get(key)), _filled(new.get(key))
                if was != now:
                    changes[f"{name}.{key}"] = [was, now]
        else:
            changes[name] = [old, new]
    return changes


def _filled(value):
    return None if value == "" else value


# --- Writing entries ----------------------------------------------------------------------------


def _entry(
    content_type: ContentType, pk, text: str, *, action: str, changes: dict, note: str, actor
) -> AuditEntry:
    return AuditEntry(
        content_type=content_type,
        object_id=pk,
        object_repr=text[:200],
        action=action,
        changes=changes,
        actor=actor.user,
        actor_label=actor.label[:254],
        via=actor.via,
        context=actor.context,
        note=(note or "")[:255],
    )


def record(
    obj: models.Model, *, action: str, changes: dict | None = None, note: str = ""
) -> AuditEntry | None:
    """One entry for `obj`. A plain "changed" with no change writes nothing."""
    changes = changes or {}
    if action == "changed" and not changes:
        return None
    entry = _entry(
        ContentType.objects.get_for_model(type(obj)),
        obj.pk,
        str(obj),
        action=action,
        changes=changes,
        note=note,
        actor=current_actor(),
    )
    return insert(entry)  # compiled once (common.compiled): most writes record one


def record_many(
    model: type[models.Model],
    rows: Iterable[tuple[int, str, dict]],
    *,
    action: str,
    note: str = "",
) -> int:
    """One entry per `(pk, text, changes)` row, in one INSERT; answers how many."""
    content_type = ContentType.objects.get_for_model(model)
    actor = current_actor()
    entries = [
        _entry(content_type, pk, text, action=action, changes=changes, note=note, actor=actor)
        for pk, text, changes in rows
    ]
    AuditEntry.objects.bulk_create(entries, batch_size=500)
    return len(entries)


class Tracker:
    """The fields of one row before a service changes it; `record()` writes what changed."""

    def __init__(self, obj: models.Model, fields: Iterable[str]) -> None:
        self.obj = obj
        self.fields = tuple(fields)
        self.before = snapshot(obj, self.fields)

    def changes(self) -> dict:
        return diff(self.before, snapshot(self.obj, self.fields))

    def record(self, *, action: str = "changed", note: str = "") -> AuditEntry | None:
        return record(self.obj, action=action, changes=self.changes(), note=note)


def track(obj: models.Model, fields: Iterable[str]) -> Tracker:
    return Tracker(obj, fields)


def created_changes(obj: models.Model, fields: Iterable[str]) -> dict:
    """The changes of a new row: each field's first value (empty ones left out)."""
    values = snapshot(obj, fields)
    return {name: [None, value] for name, value in values.items() if value not in ("", None)}


def created(obj: models.Model, fields: Iterable[str], *, note: str = "") -> AuditEntry | None:
    """The "created" entry of a new row."""
    return record(obj, action="created", changes=created_changes(obj, fields), note=note)


def describe(changes: dict) -> list[str]:
    """One line per field: `status: active -> revoked`."""
    return [f"{name}: {_shown(old)} -> {_shown(new)}" for name, (old, new) in changes.items()]


def _shown(value) -> str:
    if value is None or value == "":
        return "—"
    return str(value)
