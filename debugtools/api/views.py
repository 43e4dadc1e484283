"""The core namespace's debug routes (/{REST_ROOT}/{CORE_NS}/v1/debug/...): manage_options
only, except the client-side log sink (public, rate-limited, size-capped)."""

from __future__ import annotations

import json
import zipfile
from datetime import timedelta

from django.conf import settings
from django.http import StreamingHttpResponse
from django.http.request import RawPostDataException
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from rest_framework.response import Response

from common.api.negotiation import JSONOnlyContentNegotiation
from debugtools import selectors, services
from debugtools.choices import Level, Source
from store.common.capabilities import MANAGE_OPTIONS
from store.common.errors import invalid_params, rule_broken
from store.common.pagination import paginate
from store.common.params import validate_body, validate_query
from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from store.common.views import StoreAPIView

from . import serializers as s

MAX_STATS_DAYS = 366
JS_LEVEL = {"debug": Level.DEBUG, "info": Level.INFO, "log": Level.INFO, "warn": Level.WARNING}


def entry_json(row: dict) -> dict:
    return {
        "id": row["id"],
        "created_at": row["created_at"],
        "level": Level.of(row["level"]).label,
        "logger": row["logger"],
        "message": row["message"],
        "request_id": row["request_id"],
        "context": row["context"],
        "source": row["source"],
    }


def settings_json(stored) -> dict:
    return {
        "level": Level.of(stored.level).label,
        "retention_days": stored.retention_days,
        "js_log_enabled": stored.js_log_enabled,
        "updated_at": stored.updated_at,
    }


def _filters(params: dict) -> dict:
    level = params.get("level")
    return {
        "level": int(Level.named(level)) if level else None,
        "logger": params.get("logger"),
        "search": params.get("search"),
        "request_id": params.get("request_id"),
        "source": params.get("source"),
        "since": params.get("since"),
        "until": params.get("until"),
    }


class JSONAlwaysNegotiation(JSONOnlyContentNegotiation):
    """JSON whatever the Accept header and the `format` query parameter (DRF's format
    override would answer 404 to `?format=zip`, which /debug/download takes as its own)."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return (renderers[0], renderers[0].media_type)


class DebugView(StoreAPIView):
    access = {"*": MANAGE_OPTIONS}
    openapi_tag = "Debug"
    content_negotiation_class = JSONAlwaysNegotiation

    @staticmethod
    def no_store(response):
        response["Cache-Control"] = "no-store"
        return response


class EntriesView(DebugView):
    @store_schema(
        summary="Recorded log entries (filtered, paginated)",
        parameters=[s.EntryListQuery],
        responses={200: s.EntryListAnswer},
    )
    def get(self, request):
        params = validate_query(s.EntryListQuery, request.query_params)
        rows = selectors.entry_list(**_filters(params)).values(*selectors.ENTRY_COLUMNS)
        page = paginate(rows, page=params["page"], per_page=params["per_page"])
        return self.no_store(
            Response(
                {
                    "entries": [entry_json(row) for row in page.items],
                    "total": page.total,
                    "page": page.page,
                    "per_page": page.per_page,
                    "total_pages": page.total_pages,
                }
            )
        )


class StatsView(DebugView):
    @store_schema(
        summary="Entry counts by level and logger",
        parameters=[s.StatsQuery],
        responses={200: s.StatsAnswer},
    )
    def get(self, request):
        params = validate_query(s.StatsQuery, request.query_params)
        until = params.get("until") or timezone.now()
        since = params.get("since") or until - timedelta(hours=24)
        if since >= until:
            raise invalid_params({"since": "Must be before until."})
        if until - since > timedelta(days=MAX_STATS_DAYS):
            raise invalid_params({"since": f"The period is at most {MAX_STATS_DAYS} days."})
        return self.no_store(Response(selectors.entry_stats(since=since, until=until)))


class SettingsView(DebugView):
    @store_schema(
        summary="The recording settings",
        responses={200: s.SettingsAnswer},
    )
    def get(self, request):
        return self.no_store(Response(settings_json(selectors.settings_get())))

    @store_schema(
        summary="Change the recording settings",
        request=s.SettingsBody,
        responses={200: s.SettingsAnswer},
    )
    def put(self, request):
        body = validate_body(s.SettingsBody, request.data)
        if "level" in body:
            body["level"] = int(Level.named(body["level"]))
        stored = services.settings_update(values=body)
        return self.no_store(Response(settings_json(stored)))


class ClearView(DebugView):
    @store_schema(
        summary="Delete entries (optionally older than, of a level)",
        request=s.ClearBody,
        responses={200: s.DeletedAnswer},
    )
    def post(self, request):
        body = validate_body(s.ClearBody, request.data)
        level = body.get("level")
        deleted = services.entries_clear(
            before=body.get("before"), level=int(Level.named(level)) if level else None
        )
        return Response({"deleted": deleted})


class _Chunks:
    """A write-only file whose written bytes are taken out by the streaming generator."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.offset = 0

    def write(self, data: bytes) -> int:
        self.parts.append(bytes(data))
        self.offset += len(data)
        return len(data)

    def tell(self) -> int:
        return self.offset

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        data = b"".join(self.parts)
        self.parts.clear()
        return data


def _ndjson(rows):
    for row in rows:
        yield (
            json.dumps(entry_json(row), default=str, ensure_ascii=False, separators=(",", ":"))
            + "\n"
        ).encode()


def _zipped(lines, name: str):
    sink = _Chunks()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:  # noqa: SIM117
        with archive.open(name, "w", force_zip64=True) as member:
            for line in lines:
                member.write(line)
                if sink.offset and sink.parts:
                    yield sink.take()
    yield sink.take()


class DownloadView(DebugView):
    @store_schema(
        summary="Download entries: NDJSON, or a zip of it",
        parameters=[s.DownloadQuery],
        responses={
            (200, "application/x-ndjson"): OpenApiTypes.STR,
            (200, "application/zip"): OpenApiTypes.BINARY,
        },
    )
    def get(self, request):
        params = validate_query(s.DownloadQuery, request.query_params)
        rows = (
            selectors.entry_list(**_filters(params))
            .values(*selectors.ENTRY_COLUMNS)
            .iterator(chunk_size=500)
        )
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        name = f"debug-entries-{stamp}.ndjson"
        if params["format"] == "zip":
            response = StreamingHttpResponse(
                _zipped(_ndjson(rows), name), content_type="application/zip"
            )
            filename = name + ".zip"
        else:
            response = StreamingHttpResponse(_ndjson(rows), content_type="application/x-ndjson")
            filename = name
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return self.no_store(response)


class DiagnosticsView(DebugView):
    @store_schema(
        summary="Versions, services, migrations, warnings",
        responses={200: s.DiagnosticsAnswer},
    )
    def get(self, request):
        return self.no_store(Response(selectors.diagnostics()))


class TestEntryView(DebugView):
    @store_schema(
        summary="Write a test entry",
        request=s.TestBody,
        responses={201: s.EntryAnswer},
    )
    def post(self, request):
        body = validate_body(s.TestBody, request.data)
        entry = services.entry_create(
            level=int(Level.named(body["level"])),
            logger=services.TEST_LOGGER,
            message=body["message"],
            context={"user_id": request.user.pk},
            source=Source.TEST,
        )
        row = {name: getattr(entry, name) for name in selectors.ENTRY_COLUMNS}
        return Response(entry_json(row), status=201)


class CachesResetView(DebugView):
    @store_schema(
        summary="Clear this service's caches",
        request=None,
        responses={200: s.CachesAnswer},
    )
    def post(self, request):
        return Response({"cleared": services.caches_clear()})


def _body_size(request) -> int:
    """The body's length. A multipart body that something read as a form before the view (its
    stream is consumed, and Django will not give the raw bytes) was at most the declared
    Content-Length, which the caller has checked."""
    try:
        return len(request._request.body)
    except RawPostDataException:
        return int(request.META.get("CONTENT_LENGTH") or 0)


class JsLogView(DebugView):
    """A sink for client-side log entries: anyone may send (rate-limited per client address),
    the body is capped, and what is sent is stored as text and never echoed back."""

    access = {"POST": PUBLIC}
    throttle_scopes = {"POST": "debug_js_log"}

    @store_schema(
        summary="Record a client-side log entry",
        request=s.JsLogBody,
        responses={202: s.AcceptedAnswer, 204: None},
        errors={413: "The body is larger than the cap.", 429: "Too many reports."},
    )
    def post(self, request):
        cap = settings.DEBUGTOOLS_JS_LOG_MAX_BYTES
        declared = request.META.get("CONTENT_LENGTH") or "0"
        if not declared.isdigit() or int(declared) > cap or _body_size(request) > cap:
            raise rule_broken(
                f"The body is at most {cap} bytes.", code="payload_too_large", status=413
            )
        body = validate_body(s.JsLogBody, request.data)
        if not selectors.settings_get().js_log_enabled:
            return Response(status=204)
        context = {
            key: body[key] for key in ("url", "stack", "line", "column", "context") if key in body
        }
        context["user_agent"] = request.META.get("HTTP_USER_AGENT", "")[:300]
        if request.user and request.user.is_authenticated:
            context["user_id"] = request.user.pk
        services.entry_create(
            level=int(JS_LEVEL.get(body["level"], Level.ERROR)),
            logger=services.CLIENT_LOGGER,
            message=body["message"],
            context=context,
            source=Source.CLIENT,
        )
        return Response({"accepted": True}, status=202)
