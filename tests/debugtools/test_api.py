"""The debug routes through HTTP: what each answers, and every refusal."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from debugtools import handler
from debugtools.choices import Level, Source
from debugtools.models import DebugSettings, LogEntry
from store.emails import rendering
from store.settings import selectors as store_settings
from tests.debugtools.conftest import BASE, entry
from tests.fixtures.store import basic_auth, error

pytestmark = pytest.mark.django_db

ROUTES = [
    ("get", "entries"),
    ("get", "stats"),
    ("get", "settings"),
    ("put", "settings"),
    ("post", "clear"),
    ("get", "download"),
    ("get", "diagnostics"),
    ("post", "test"),
    ("post", "opcache-reset"),
]
UNSAFE = [(method, name) for method, name in ROUTES if method != "get"] + [("post", "js-log")]
HOSTILE = {
    "deep": "[" * 5000 + "]" * 5000,
    "deep_object": '{"context": ' + '{"a": ' * 60 + "1" + "}" * 60 + ', "message": "x"}',
    "nul": '{"message": "a\\u0000b", "level": "error\\u0000", "logger": "a\\u0000"}',
    "surrogate": '{"message": "\\ud800", "level": "\\udfff", "url": "\\ud800"}',
    "huge": '{"retention_days": 1' + "0" * 40 + ', "line": 1' + "0" * 40 + "}",
    "shape": "[1, 2, 3]",
    "wrong_types": '{"level": 3, "retention_days": "7", "js_log_enabled": "yes", '
    '"message": ["x"], "before": 12, "context": [1]}',
    "malformed": '{"a": ',
    "string": '"just a string"',
}


def state() -> tuple:
    return (
        list(LogEntry.objects.order_by("id").values_list("id", "message")),
        list(DebugSettings.objects.values_list("level", "retention_days", "js_log_enabled")),
    )


def send(client, method, name, body=None, **extra):
    url = f"{BASE}/{name}"
    if method == "get":
        return client.get(url, **extra)
    return getattr(client, method)(
        url, json.dumps(body if body is not None else {}), content_type="application/json", **extra
    )


# --- Access --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "name"), ROUTES)
def test_only_manage_options_reaches_the_debug_routes(callers, admin_api, method, name):
    entry()
    before = state()
    for caller, (client, status) in callers.items():
        response = send(client, method, name, {"level": "debug"})
        body = error(response, status)
        assert body["code"] == ("not_logged_in" if status == 401 else "insufficient_capability"), (
            caller,
            body,
        )
        assert state() == before, caller
    assert send(admin_api, method, name, {}).status_code in (200, 201)


def test_js_log_is_public(callers):
    for caller, (client, _status) in callers.items():
        response = send(client, "post", "js-log", {"message": f"from {caller}"})
        assert response.status_code == 202, (caller, response.content)
    assert sorted(LogEntry.objects.values_list("message", flat=True)) == [
        "from anonymous",
        "from customer",
        "from shop_manager",
    ]


# --- Hostile bodies, CSRF ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_bodies_never_answer_500(admin, kind):
    browser = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=basic_auth(admin))
    for method, name in UNSAFE:
        response = getattr(browser, method)(
            f"{BASE}/{name}", HOSTILE[kind], content_type="application/json"
        )
        assert response.status_code < 500, (method, name, kind, response.content[:300])
        if response.status_code != 204:
            assert response["Content-Type"].startswith("application/json"), (method, name, kind)


def test_hostile_query_parameters_never_answer_500(admin_api):
    for name in ("entries", "stats", "download"):
        for query in (
            "level=loud",
            "since=not-a-date",
            "since=99999-01-01",
            "until=2020-01-01&since=2021-01-01",
            "page=0",
            "page=1" + "0" * 40,
            "per_page=-1",
            "search=%00",
            "logger=%ED%A0%80",
            "request_id=" + "x" * 300,
            "format=exe",
        ):
            response = admin_api.get(f"{BASE}/{name}?{query}")
            assert response.status_code in (200, 400), (name, query, response.content[:300])


def test_unsafe_methods_with_a_session_and_csrf_enforced_answer_json(admin):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(admin)
    for method, name in UNSAFE:
        response = send(browser, method, name, {"message": "x"})
        assert response["Content-Type"].startswith("application/json"), (method, name)
        assert response.status_code in (202, 401, 403), (method, name, response.status_code)
    anonymous = Client(enforce_csrf_checks=True)
    response = send(anonymous, "post", "js-log", {"message": "x"})
    assert response.status_code == 202
    assert response["Content-Type"].startswith("application/json")


def test_an_unknown_method_answers_405_json(admin_api):
    response = admin_api.delete(f"{BASE}/entries")
    error(response, 405)


# --- Entries -------------------------------------------------------------------------------------


def test_entries_are_listed_newest_first_with_every_field(admin_api):
    old = entry("older", age=timedelta(hours=2), context={"order_id": 5})
    new = entry("newer", level=Level.ERROR, logger="store.cart", request_id="req-1")
    response = admin_api.get(f"{BASE}/entries")
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert body["total"] == 2
    assert (body["page"], body["per_page"], body["total_pages"]) == (1, 20, 1)
    assert [row["id"] for row in body["entries"]] == [new.pk, old.pk]
    first = body["entries"][0]
    assert first["level"] == "error"
    assert first["logger"] == "store.cart"
    assert first["request_id"] == "req-1"
    assert first["source"] == "server"
    assert first["message"] == "newer"
    assert body["entries"][1]["context"] == {"order_id": 5}


def test_entries_filter_by_minimum_level_logger_search_request_and_dates(admin_api):
    debug = entry("debug one", level=Level.DEBUG, logger="store")
    warning = entry("Payment FAILED", level=Level.WARNING, logger="store.payments")
    error_ = entry("boom", level=Level.ERROR, logger="storefront", request_id="abc")
    old = entry("ancient", level=Level.CRITICAL, logger="common", age=timedelta(days=3))

    def ids(query):
        response = admin_api.get(f"{BASE}/entries?{query}")
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()["entries"]]

    assert ids("level=warning") == [error_.pk, warning.pk, old.pk]
    assert ids("level=ERROR") == [error_.pk, old.pk]
    assert ids("logger=store") == [warning.pk, debug.pk]  # children, not `storefront`
    assert ids("search=payment failed") == [warning.pk]
    assert ids("request_id=abc") == [error_.pk]
    since = (timezone.now() - timedelta(days=1)).isoformat().replace("+00:00", "Z")
    assert ids(f"since={since}") == [error_.pk, warning.pk, debug.pk]
    assert ids(f"until={since}") == [old.pk]
    assert ids("source=client") == []


def test_entries_page_and_cap_per_page(admin_api):
    for index in range(3):
        entry(f"n{index}")
    body = admin_api.get(f"{BASE}/entries?per_page=2&page=2").json()
    assert (body["total"], body["total_pages"], len(body["entries"])) == (3, 2, 1)
    assert admin_api.get(f"{BASE}/entries?per_page=5000").json()["per_page"] == 100
    past = admin_api.get(f"{BASE}/entries?page=9").json()
    assert (past["entries"], past["total"]) == ([], 3)
    error(admin_api.get(f"{BASE}/entries?per_page=0"), 400, "invalid_param")
    error(admin_api.get(f"{BASE}/entries?level=loud"), 400, "invalid_param")


def test_the_entry_list_takes_a_bounded_number_of_queries(admin_api, django_assert_max_num_queries):
    for index in range(3):
        entry(f"few {index}")
    with django_assert_max_num_queries(8) as few:
        assert admin_api.get(f"{BASE}/entries").status_code == 200
    LogEntry.objects.bulk_create(
        [LogEntry(level=30, logger="bulk", message=f"many {i}") for i in range(60)]
    )
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = admin_api.get(f"{BASE}/entries?per_page=100")
    assert len(response.json()["entries"]) == 63


# --- Stats ---------------------------------------------------------------------------------------


def test_stats_count_by_level_and_logger_over_the_period(admin_api, django_assert_max_num_queries):
    entry(level=Level.ERROR, logger="a")
    entry(level=Level.ERROR, logger="a")
    entry(level=Level.WARNING, logger="b")
    entry(level=Level.CRITICAL, logger="a", age=timedelta(days=2))  # outside the default day
    with django_assert_max_num_queries(8):
        response = admin_api.get(f"{BASE}/stats")
    assert response.status_code == 200
    body = response.json()
    assert body["total"] == 3
    assert body["by_level"] == {"debug": 0, "info": 0, "warning": 1, "error": 2, "critical": 0}
    assert [(row["logger"], row["count"]) for row in body["by_logger"]] == [("a", 2), ("b", 1)]
    since = (timezone.now() - timedelta(days=3)).isoformat().replace("+00:00", "Z")
    wider = admin_api.get(f"{BASE}/stats?since={since}").json()
    assert wider["total"] == 4
    assert wider["by_level"]["critical"] == 1


def test_stats_refuse_an_empty_or_too_long_period(admin_api):
    error(admin_api.get(f"{BASE}/stats?since=2030-01-01T00:00:00Z&until=2020-01-01T00:00:00Z"), 400)
    error(admin_api.get(f"{BASE}/stats?since=2000-01-01T00:00:00Z&until=2020-01-01T00:00:00Z"), 400)


# --- Settings ------------------------------------------------------------------------------------


def test_settings_answer_the_defaults_before_any_change(admin_api):
    body = admin_api.get(f"{BASE}/settings").json()
    assert body == {
        "level": "warning",
        "retention_days": 14,
        "js_log_enabled": True,
        "updated_at": None,
    }
    assert not DebugSettings.objects.exists()


def test_settings_change_and_apply_the_level_at_once(admin_api):
    response = admin_api.put(
        f"{BASE}/settings",
        {"level": "ERROR", "retention_days": 30, "js_log_enabled": False},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["level"] == "error"
    assert handler.recording_level() == Level.ERROR
    response = admin_api.put(f"{BASE}/settings", {"retention_days": 7}, format="json")
    body = response.json()
    assert (body["level"], body["retention_days"], body["js_log_enabled"]) == ("error", 7, False)
    assert admin_api.get(f"{BASE}/settings").json()["retention_days"] == 7


@pytest.mark.parametrize(
    "body",
    [
        {"retention_days": 0},
        {"retention_days": 366},
        {"retention_days": 10**30},
        {"retention_days": "7"},
        {"retention_days": 7.5},
        {"retention_days": True},
        {"level": "loud"},
        {"level": 30},
        {"js_log_enabled": "yes"},
        {"js_log_enabled": 1},
        {"colour": "red"},
        {"retention_days": 7, "unknown": 1},
    ],
)
def test_settings_refuse_invalid_values_and_change_nothing(admin_api, body):
    admin_api.put(f"{BASE}/settings", {"retention_days": 20}, format="json")
    before = state()
    error(admin_api.put(f"{BASE}/settings", body, format="json"), 400, "invalid_param")
    assert state() == before


# --- Clear, purge --------------------------------------------------------------------------------


def test_clear_deletes_all_or_older_than_or_of_a_level(admin_api):
    old = entry("old", age=timedelta(days=10))
    error_ = entry("err", level=Level.ERROR)
    info = entry("info", level=Level.INFO)
    before = (timezone.now() - timedelta(days=1)).isoformat().replace("+00:00", "Z")
    assert admin_api.post(f"{BASE}/clear", {"before": before}, format="json").json() == {
        "deleted": 1
    }
    assert not LogEntry.objects.filter(pk=old.pk).exists()
    assert admin_api.post(f"{BASE}/clear", {"level": "error"}, format="json").json() == {
        "deleted": 1
    }
    assert list(LogEntry.objects.values_list("pk", flat=True)) == [info.pk]
    assert error_.pk not in LogEntry.objects.values_list("pk", flat=True)
    assert admin_api.post(f"{BASE}/clear", {}, format="json").json() == {"deleted": 1}
    assert not LogEntry.objects.exists()


def test_the_retention_purge_keeps_the_retention_days_and_the_entry_cap(settings):
    from debugtools.tasks import purge_entries

    DebugSettings.objects.create(pk=1, retention_days=3)
    old = entry("old", age=timedelta(days=4))
    kept = [entry(f"kept {i}", age=timedelta(days=2)) for i in range(3)]
    assert purge_entries.delay().get() == 1
    assert not LogEntry.objects.filter(pk=old.pk).exists()
    settings.DEBUGTOOLS_MAX_ENTRIES = 2
    assert purge_entries.delay().get() == 1
    assert set(LogEntry.objects.values_list("pk", flat=True)) == {kept[1].pk, kept[2].pk}
    assert purge_entries.delay().get() == 0


def test_the_purge_is_on_the_beat():
    from config.celery import app

    tasks = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert "debugtools.purge_entries" in tasks


# --- Download ------------------------------------------------------------------------------------


def _lines(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def test_download_streams_ndjson_of_the_filtered_entries(admin_api):
    entry("first", level=Level.ERROR, context={"k": "v"})
    entry("second", level=Level.INFO)
    response = admin_api.get(f"{BASE}/download?level=warning")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    assert response["Content-Disposition"].startswith('attachment; filename="debug-entries-')
    rows = _lines(b"".join(response.streaming_content))
    assert [(row["message"], row["level"], row["context"]) for row in rows] == [
        ("first", "error", {"k": "v"})
    ]


def test_download_as_a_zip(admin_api):
    LogEntry.objects.bulk_create(  # more than one database chunk
        [LogEntry(level=30, logger="bulk", message=f"entry {index}") for index in range(700)]
    )
    response = admin_api.get(f"{BASE}/download?format=zip")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    [name] = archive.namelist()
    assert name.endswith(".ndjson")
    rows = _lines(archive.read(name))
    assert len(rows) == 700
    assert {row["message"] for row in rows} == {f"entry {index}" for index in range(700)}


# --- Diagnostics ---------------------------------------------------------------------------------


def test_diagnostics_answer_versions_services_migrations_and_no_secret(admin_api):
    response = admin_api.get(f"{BASE}/diagnostics")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "versions",
        "database",
        "cache",
        "broker",
        "worker",
        "migrations",
        "checks",
        "debug",
    }
    import django

    assert body["versions"]["django"] == django.get_version()
    assert body["versions"]["libraries"]["djangorestframework"]
    assert body["database"]["status"] == "up"
    assert body["database"]["vendor"] in ("sqlite", "postgresql")
    assert body["cache"]["status"] == "up"
    assert body["broker"]["status"] == "up"
    assert body["migrations"] == {"count": 0, "migrations": []}
    assert isinstance(body["checks"], list)
    assert all(set(check) == {"id", "level", "message", "hint"} for check in body["checks"])
    assert "security.W012" in {check["id"] for check in body["checks"]}  # insecure cookies
    assert body["debug"]["recording_level"] == "warning"
    text = response.content.decode()
    assert settings.SECRET_KEY not in text
    db_password = settings.DATABASES["default"].get("PASSWORD")
    if db_password:
        assert db_password not in text


# --- Test entry ----------------------------------------------------------------------------------


def test_the_test_route_writes_an_entry_and_answers_it(admin_api, admin):
    response = admin_api.post(
        f"{BASE}/test",
        {"level": "error", "message": "hello"},
        format="json",
        HTTP_X_REQUEST_ID="test-req-1",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    stored = LogEntry.objects.get()
    assert body["id"] == stored.pk
    assert (body["level"], body["message"], body["source"]) == ("error", "hello", "test")
    assert body["request_id"] == "test-req-1"
    assert stored.context == {"user_id": admin.pk}
    default = admin_api.post(f"{BASE}/test", {}, format="json").json()
    assert (default["level"], default["message"]) == ("info", "Test entry from /debug/test.")


# --- opcache-reset --------------------------------------------------------------------------------


def test_opcache_reset_clears_the_service_caches_and_says_which(admin_api):
    store_settings.get_all()  # cached
    assert cache.get(store_settings.cache_key()) is not None
    rendering._compiled(True, False, "<p>{{ name }}</p>")
    assert rendering._compiled.cache_info().currsize >= 1
    response = admin_api.post(f"{BASE}/opcache-reset", {}, format="json")
    assert response.status_code == 200
    names = [item["name"] for item in response.json()["cleared"]]
    for expected in (
        "store.catalog",
        "store.settings",
        "store.tax_rates",
        "store.shipping_zones",
        "store.coupon_terms",
        "store.order-counts",
        "store.process_copies",
        "store.emails.rendering.compiled_templates",
    ):
        assert expected in names
    assert cache.get(store_settings.cache_key()) is None
    assert rendering._compiled.cache_info().currsize == 0


# --- js-log ---------------------------------------------------------------------------------------

SCRIPT = "<script>alert(document.cookie)</script>"


def test_js_log_stores_the_report_as_inert_text_and_never_reflects_it(api_client):
    response = api_client.post(
        f"{BASE}/js-log",
        {
            "level": "warn",
            "message": SCRIPT,
            "url": "https://shop.example/x",
            "stack": SCRIPT,
            "line": 3,
            "context": {"token": "secret-value", "cart": 2},
        },
        format="json",
        HTTP_USER_AGENT="Mozilla/5.0",
    )
    assert response.status_code == 202
    assert response.json() == {"accepted": True}
    assert b"script" not in response.content
    stored = LogEntry.objects.get()
    assert (stored.level, stored.logger, stored.source) == (Level.WARNING, "client", Source.CLIENT)
    assert stored.message == SCRIPT  # text as sent: the API answers JSON, the admin escapes
    assert stored.context["stack"] == SCRIPT
    assert stored.context["context"] == {"token": "[scrubbed]", "cart": 2}
    assert stored.context["user_agent"] == "Mozilla/5.0"


def test_js_log_refuses_a_body_over_the_cap_and_stores_nothing(api_client, settings):
    settings.DEBUGTOOLS_JS_LOG_MAX_BYTES = 1024
    response = api_client.post(f"{BASE}/js-log", {"message": "x" * 2000}, format="json")
    error(response, 413, "payload_too_large")
    assert b"xxxx" not in response.content
    assert not LogEntry.objects.exists()


def test_js_log_refuses_invalid_reports(api_client):
    for body in ({}, {"message": 5}, {"message": "x", "level": "loud"}, {"message": "x" * 2001}):
        error(api_client.post(f"{BASE}/js-log", body, format="json"), 400, "invalid_param")
    assert not LogEntry.objects.exists()


def test_js_log_is_rate_limited_per_client(api_client, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "debug_js_log": "3/min",
        },
    }
    answers = [
        api_client.post(f"{BASE}/js-log", {"message": f"n{i}"}, format="json").status_code
        for i in range(4)
    ]
    assert answers == [202, 202, 202, 429]
    refused = api_client.post(f"{BASE}/js-log", {"message": "again"}, format="json")
    error(refused, 429)
    assert int(refused["Retry-After"]) > 0
    assert LogEntry.objects.count() == 3
    other = api_client.post(
        f"{BASE}/js-log", {"message": "elsewhere"}, format="json", REMOTE_ADDR="10.1.2.3"
    )
    assert other.status_code == 202


def test_js_log_switched_off_answers_204_and_stores_nothing(api_client):
    DebugSettings.objects.create(pk=1, js_log_enabled=False)
    response = api_client.post(f"{BASE}/js-log", {"message": "x"}, format="json")
    assert response.status_code == 204
    assert not LogEntry.objects.exists()


def test_js_log_takes_only_post(api_client):
    error(api_client.get(f"{BASE}/js-log"), 405)


def test_diagnostics_name_pending_migrations(admin_api, monkeypatch):
    from django.db.migrations.executor import MigrationExecutor

    class Pending:
        app_label, name = "debugtools", "0099_future"

    monkeypatch.setattr(
        MigrationExecutor, "migration_plan", lambda self, targets: [(Pending, False)]
    )
    body = admin_api.get(f"{BASE}/diagnostics").json()
    assert body["migrations"] == {"count": 1, "migrations": ["debugtools.0099_future"]}


def test_stats_take_the_same_queries_for_many_loggers(admin_api, django_assert_max_num_queries):
    entry(logger="only")
    with django_assert_max_num_queries(8) as few:
        assert admin_api.get(f"{BASE}/stats").status_code == 200
    LogEntry.objects.bulk_create(
        [LogEntry(level=40, logger=f"logger.{i}", message="m") for i in range(80)]
    )
    with django_assert_max_num_queries(len(few.captured_queries)):
        body = admin_api.get(f"{BASE}/stats").json()
    assert body["total"] == 81
    assert len(body["by_logger"]) == 50


def test_a_form_body_with_an_idempotency_key_is_recorded_and_capped():
    """The idempotency layer reads a multipart body as a form before the view (its stream is
    then consumed): the sink still takes it (schemathesis found a 500 here), and still caps it."""
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        f"{BASE}/js-log", {"message": "from a form", "level": "warn"}, HTTP_IDEMPOTENCY_KEY="f1"
    )
    assert response.status_code == 202, response.content
    assert LogEntry.objects.filter(message="from a form", source=Source.CLIENT).exists()
    big = client.post(
        f"{BASE}/js-log",
        {"message": "x" * (settings.DEBUGTOOLS_JS_LOG_MAX_BYTES + 10)},
        HTTP_IDEMPOTENCY_KEY="f2",
    )
    error(big, 413, "payload_too_large")
    assert not LogEntry.objects.filter(message__startswith="xxxx").exists()
