"""Writes of the debug namespace: entries written directly (test entries, client reports),
clearing and purging them, the recording settings, and clearing this service's caches."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common import observability
from debugtools import handler, records
from debugtools.choices import Level, Source
from debugtools.models import DebugSettings, LogEntry
from store.common.errors import invalid_params

RETENTION_RANGE = (1, 365)
CLIENT_LOGGER = "client"
TEST_LOGGER = "debugtools.test"


def entry_create(
    *,
    level: int,
    logger: str,
    message: str,
    context: dict | None = None,
    source: str = Source.SERVER,
    request_id: str | None = None,
) -> LogEntry:
    """One entry written on the caller's connection (a test entry, a client report), capped and
    made storable as the handler's are."""
    return LogEntry.objects.create(
        level=int(Level.of(level)),
        logger=records.clean_text(logger, records.MAX_LOGGER_CHARS),
        message=records.clean_text(message, records.max_message_chars()),
        request_id=records.clean_text(
            observability.current() if request_id is None else request_id,
            records.MAX_REQUEST_ID_CHARS,
        ),
        context=records.clean_context(context),
        source=source,
    )


def entries_clear(*, before: datetime | None = None, level: int | None = None) -> int:
    """Delete entries (those older than `before`, of `level`, or all); answers how many."""
    rows = LogEntry.objects.all()
    if before is not None:
        rows = rows.filter(created_at__lt=before)
    if level is not None:
        rows = rows.filter(level=level)
    deleted, _by_model = rows.delete()
    return deleted


def entries_purge(*, now: datetime | None = None) -> int:
    """The retention purge (the beat's hourly task): entries older than the retention days,
    then the oldest beyond DEBUGTOOLS_MAX_ENTRIES. Answers how many were deleted."""
    now = now or timezone.now()
    stored = DebugSettings.objects.filter(pk=1).first() or DebugSettings()
    deleted = entries_clear(before=now - timedelta(days=stored.retention_days))
    keep = settings.DEBUGTOOLS_MAX_ENTRIES
    boundary = (
        LogEntry.objects.order_by("-id").values_list("id", flat=True)[keep : keep + 1].first()
    )
    if boundary is not None:
        extra, _by_model = LogEntry.objects.filter(id__lte=boundary).delete()
        deleted += extra
    return deleted


def settings_check(*, values: dict) -> None:
    problems: dict[str, list[str]] = {}
    days = values.get("retention_days")
    if days is not None and not RETENTION_RANGE[0] <= days <= RETENTION_RANGE[1]:
        problems["retention_days"] = [
            f"Between {RETENTION_RANGE[0]} and {RETENTION_RANGE[1]} days."
        ]
    level = values.get("level")
    if level is not None and level not in Level.values:
        problems["level"] = ["Unknown level."]
    unknown = set(values) - {"level", "retention_days", "js_log_enabled"}
    for name in sorted(unknown):
        problems[name] = ["Unknown setting."]
    if problems:
        raise invalid_params(problems)


def settings_update(*, values: dict) -> DebugSettings:
    """Change some of the settings (validated first; nothing changes on a refusal). A new
    recording level applies at once in this process, within the handler's refresh elsewhere."""
    settings_check(values=values)
    with transaction.atomic():
        stored, _created = DebugSettings.objects.select_for_update().get_or_create(pk=1)
        for name, value in values.items():
            setattr(stored, name, value)
        stored.save()
    handler.note_level(stored.level)
    return stored


# --- Caches ("opcache-reset") -----------------------------------------------------------------


def _function_caches() -> list[tuple[str, object]]:
    """Process-local caches of functions whose values come from files or data that can change
    while the service runs (not those of code-derived constants: those cannot go stale)."""
    from store.emails import rendering, types

    return [
        ("store.emails.rendering.compiled_templates", rendering._compiled),
        ("store.emails.default_templates", types._read),
        ("store.emails.layout", types.layout),
    ]


def caches_clear() -> list[dict]:
    """Clear this service's caches (the Python side of an "opcache reset"): the shared cache's
    versioned families (so every process reads the database again), this process's copies and
    compiled templates. Answers what was cleared. Other processes' own lru caches are not
    reachable from here: they are only ever of template files, which a deploy restarts."""
    from django.template import engines

    from store.catalog import cache as catalog_cache
    from store.common import cache as store_cache
    from store.coupons.selectors import terms_cache
    from store.orders.selectors import COUNTS
    from store.settings import selectors as store_settings
    from store.shipping.selectors import table as shipping_table
    from store.tax.selectors import table as tax_table

    cleared: list[dict] = []
    catalog_cache.invalidate(dimensions=catalog_cache.DIMENSIONS)
    cleared.append({"name": "store.catalog", "scope": "shared"})
    store_settings.invalidate()
    cleared.append({"name": "store.settings", "scope": "shared"})
    for family in (COUNTS, tax_table, shipping_table, terms_cache):
        family.bump()
        cleared.append({"name": f"store.{family.family}", "scope": "shared"})
    copies = len(store_cache._copies)
    store_cache._copies.clear()
    cleared.append({"name": "store.process_copies", "scope": "process", "entries": copies})
    for name, function in _function_caches():
        info = function.cache_info()
        function.cache_clear()
        cleared.append({"name": name, "scope": "process", "entries": info.currsize})
    for engine in engines.all():
        loaders = getattr(getattr(engine, "engine", None), "template_loaders", [])
        for loader in loaders:
            reset = getattr(loader, "reset", None)
            if reset is not None:
                reset()
                cleared.append({"name": f"templates.{engine.name}", "scope": "process"})
    handler.note_level(
        (DebugSettings.objects.filter(pk=1).values_list("level", flat=True).first())
        or handler.DEFAULT_LEVEL
    )
    cleared.append({"name": "debugtools.recording_level", "scope": "process"})
    return cleared
