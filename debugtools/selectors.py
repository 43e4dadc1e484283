"""Reads of the debug namespace: the settings, the entries (filtered), their counts, and the
service's diagnostics."""

from __future__ import annotations

import importlib.metadata
import platform
import sys
from datetime import datetime

import django
from django.conf import settings as django_settings
from django.core import checks
from django.db import connection
from django.db.models import Count, Max, Q, QuerySet

from common import health
from debugtools import handler
from debugtools.choices import Level
from debugtools.models import DebugSettings, LogEntry

ENTRY_COLUMNS = (
    "id",
    "created_at",
    "level",
    "logger",
    "message",
    "request_id",
    "context",
    "source",
)
# The libraries whose versions diagnostics answer (distribution names).
LIBRARIES = (
    "djangorestframework",
    "drf-spectacular",
    "celery",
    "kombu",
    "redis",
    "psycopg",
    "python-json-logger",
    "sentry-sdk",
    "gunicorn",
)
BY_LOGGER_LIMIT = 50


def settings_get() -> DebugSettings:
    """The stored settings, or the defaults (unsaved) when none were ever saved."""
    return DebugSettings.objects.filter(pk=1).first() or DebugSettings(pk=1)


def entry_list(
    *,
    level: int | None = None,
    logger: str | None = None,
    search: str | None = None,
    request_id: str | None = None,
    source: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> QuerySet[LogEntry]:
    """Entries, newest first. `level` is a minimum; `logger` matches the logger and its
    children (`store` matches `store.orders`); `search` is a case-insensitive substring of the
    message; `since` is inclusive, `until` exclusive."""
    rows = LogEntry.objects.all()
    if level is not None:
        rows = rows.filter(level__gte=level)
    if logger:
        rows = rows.filter(Q(logger=logger) | Q(logger__startswith=logger + "."))
    if search:
        rows = rows.filter(message__icontains=search)
    if request_id:
        rows = rows.filter(request_id=request_id)
    if source:
        rows = rows.filter(source=source)
    if since is not None:
        rows = rows.filter(created_at__gte=since)
    if until is not None:
        rows = rows.filter(created_at__lt=until)
    return rows.order_by("-created_at", "-id")


def entry_stats(*, since: datetime, until: datetime) -> dict:
    """Counts by level and by logger (the BY_LOGGER_LIMIT busiest) over [since, until): two
    GROUP BY queries."""
    rows = LogEntry.objects.filter(created_at__gte=since, created_at__lt=until)
    by_level = {level.label: 0 for level in Level}
    for level, count in rows.values_list("level").annotate(n=Count("id")).order_by():
        by_level[Level.of(level).label] += count
    by_logger = [
        {"logger": logger, "count": count, "last_at": last_at}
        for logger, count, last_at in rows.values_list("logger")
        .annotate(n=Count("id"), last=Max("created_at"))
        .order_by("-n", "logger")[:BY_LOGGER_LIMIT]
    ]
    return {
        "since": since,
        "until": until,
        "total": sum(by_level.values()),
        "by_level": by_level,
        "by_logger": by_logger,
    }


# --- Diagnostics -------------------------------------------------------------------------------


def _version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _pending_migrations() -> dict:
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return {"count": len(plan), "migrations": [f"{m.app_label}.{m.name}" for m, _back in plan]}


def _deploy_warnings() -> list[dict]:
    """The findings of `manage.py check --deploy` about settings (the security and caches
    checks: Django's and the project's; their texts name settings, never secret values). The
    model and URL checks are left out: they cost about a second and a deploy has run them."""
    found = checks.run_checks(
        tags=[checks.Tags.security, checks.Tags.caches], include_deployment_checks=True
    )
    return [
        {
            "id": message.id or "",
            "level": "error" if message.is_serious() else "warning",
            "message": message.msg,
            "hint": message.hint or "",
        }
        for message in found
        if message.level >= checks.WARNING and not message.is_silenced()
    ]


def _guarded(name: str, probe) -> dict:
    try:
        return probe()
    except Exception as exc:  # noqa: BLE001 - a diagnostic reports its own failure
        return {"status": "error", "error": exc.__class__.__name__, "what": name}


def diagnostics() -> dict:
    """Versions, the database, cache, broker and worker (common.health's probes), pending
    migrations, deployment warnings and the log recorder's counters. No secret: no URL,
    host, password or key, only names, versions and states."""
    database = health._check(health._database)
    if database["status"] == "up":
        database["server_version"] = _guarded("server_version", _server_version)
    database_up = database["status"] == "up"
    recorded = settings_get()
    return {
        "versions": {
            "python": platform.python_version(),
            "implementation": sys.implementation.name,
            "django": django.get_version(),
            "libraries": {name: _version(name) for name in LIBRARIES},
        },
        "database": database,
        "cache": health._check(health._cache),
        "broker": health._check(health._broker),
        "worker": health._check(health._worker) if database_up else {"status": "unknown"},
        "migrations": _guarded("migrations", _pending_migrations)
        if database_up
        else {"status": "unknown"},
        "checks": _guarded("checks", _deploy_warnings),
        "debug": {
            "debug_mode": bool(django_settings.DEBUG),
            "recording_level": Level.of(recorded.level).label,
            "recorder": [h.stats() for h in handler.handlers()],
            "recording_on": bool(django_settings.DEBUGTOOLS_RECORD_LOGS),
        },
    }


def _server_version():
    if connection.vendor == "postgresql":
        return connection.pg_version
    if connection.vendor == "sqlite":
        import sqlite3

        return sqlite3.sqlite_version
    return None
