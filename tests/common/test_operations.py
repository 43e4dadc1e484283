"""Cross-origin access, request ids and structured logs, metrics, error
tracking, and the rate-limit headers, through HTTP as an integrator or a scraper meets them."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys

import pytest
from django.conf import settings as django_settings
from django.test import Client
from pythonjsonlogger.json import JsonFormatter

from common import metrics, observability
from common.tasks import ping
from store.docs.schema import STORE, schema_document
from tests.licensing.factories import LicenseFactory

ORIGIN = "https://shop.example.com"
PREFLIGHT = {
    "HTTP_ORIGIN": ORIGIN,
    "HTTP_ACCESS_CONTROL_REQUEST_METHOD": "POST",
    "HTTP_ACCESS_CONTROL_REQUEST_HEADERS": (
        "x-platform-nonce, x-cart-id, idempotency-key, authorization, content-type"
    ),
}


@pytest.fixture
def cors(settings):
    settings.CORS_ALLOWED_ORIGINS = [ORIGIN]
    return settings


# --- 1. Cross-origin access --------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/portal/licenses",  # the portal
        "/api/v1/licenses/verify",  # the public licence API
        "/rest/ec/v1/cart/items",  # the store
        "/rest/theme/v1/settings",  # the theme namespace
    ],
)
def test_a_preflight_from_a_listed_origin_allows_the_apis_headers_with_credentials(cors, path):
    response = Client().options(path, **PREFLIGHT)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == ORIGIN
    assert response["Access-Control-Allow-Credentials"] == "true"
    allowed = {h.strip() for h in response["Access-Control-Allow-Headers"].split(",")}
    assert {"x-platform-nonce", "x-cart-id", "idempotency-key", "authorization"} <= allowed
    assert "POST" in response["Access-Control-Allow-Methods"]
    assert int(response["Access-Control-Max-Age"]) > 0


def test_an_unlisted_origin_gets_no_cors_headers_and_so_no_credentials(cors):
    response = Client().options(
        "/rest/ec/v1/products", **{**PREFLIGHT, "HTTP_ORIGIN": "https://evil.example"}
    )
    assert "Access-Control-Allow-Origin" not in response
    assert "Access-Control-Allow-Credentials" not in response


def test_without_configured_origins_nobody_is_allowed(settings):
    settings.CORS_ALLOWED_ORIGINS = []
    response = Client().options("/rest/ec/v1/products", **PREFLIGHT)
    assert "Access-Control-Allow-Origin" not in response


@pytest.mark.django_db
def test_a_cross_origin_answer_exposes_the_request_id_and_rate_limit_headers(cors):
    response = Client().get("/rest/ec/v1/products", HTTP_ORIGIN=ORIGIN)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == ORIGIN
    exposed = {h.strip().lower() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert {"x-request-id", "x-cart-id", "ratelimit-remaining", "retry-after"} <= exposed


def test_cors_stays_off_outside_the_apis(cors):
    response = Client().options("/admin/login/", **PREFLIGHT)
    assert "Access-Control-Allow-Origin" not in response


# --- 2. Request ids, logs, tasks ---------------------------------------------------------------


@pytest.mark.django_db
def test_the_callers_request_id_is_echoed():
    response = Client().get("/healthz", HTTP_X_REQUEST_ID="trace-42.a:b_c")
    assert response["X-Request-ID"] == "trace-42.a:b_c"


@pytest.mark.django_db
@pytest.mark.parametrize("sent", [None, "", "has space", "x" * 129, "<script>", "é"])
def test_a_missing_or_unsafe_request_id_is_replaced_by_a_new_one(sent):
    extra = {} if sent is None else {"HTTP_X_REQUEST_ID": sent}
    first = Client().get("/healthz", **extra)["X-Request-ID"]
    second = Client().get("/healthz", **extra)["X-Request-ID"]
    assert len(first) == 32
    assert int(first, 16) >= 0
    assert first != second


@pytest.mark.django_db
def test_even_a_refused_api_request_carries_its_id():
    response = Client(enforce_csrf_checks=True).post(
        "/rest/ec/v1/no-such-route", HTTP_X_REQUEST_ID="refused-1"
    )
    assert response.status_code == 404
    assert response["X-Request-ID"] == "refused-1"


def _json_logger() -> tuple[logging.Logger, io.StringIO]:
    spec = django_settings.LOGGING["formatters"]["json"]
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        JsonFormatter(spec["fmt"], rename_fields=spec["rename_fields"], timestamp=False)
    )
    handler.addFilter(observability.RequestIdFilter())
    log = logging.getLogger("tests.operations")
    log.handlers = [handler]
    log.setLevel(logging.INFO)
    log.propagate = False
    return log, stream


def test_log_records_made_during_a_request_are_json_lines_with_its_id(rf):
    log, stream = _json_logger()

    def view(request):
        log.info("handling %s", "it")
        from django.http import HttpResponse

        return HttpResponse("ok")

    request = rf.get("/anything", HTTP_X_REQUEST_ID="req-7")
    response = observability.RequestIdMiddleware(view)(request)
    log.info("after the request")
    during, after = (json.loads(line) for line in stream.getvalue().splitlines())
    assert response["X-Request-ID"] == "req-7"
    assert during["request_id"] == "req-7"
    assert during["message"] == "handling it"
    assert during["level"] == "INFO"
    assert during["logger"] == "tests.operations"
    assert "time" in during
    assert after["request_id"] == ""


def test_the_request_id_is_put_in_the_messages_of_tasks_sent_during_the_request():
    headers: dict = {}
    token = observability._current.set("req-task-1")
    try:
        observability._before_publish(headers=headers)
    finally:
        observability._current.reset(token)
    assert headers == {"request_id": "req-task-1"}
    observability._before_publish(headers=(outside := {}))
    assert outside == {}  # no request, no header


def test_a_task_runs_under_the_request_id_its_message_carries():
    class Request:
        request_id = "req-task-2"

    class Task:
        request = Request()

    observability._task_started(task_id="t-1", task=Task())
    try:
        assert observability.current() == "req-task-2"
    finally:
        observability._task_finished(task_id="t-1")
    assert observability.current() == ""


@pytest.mark.redis
def test_a_real_worker_logs_a_task_under_the_request_id_that_sent_it():
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    @app.task(name="tests.current_request_id", ignore_result=False)
    def current_request_id():
        return observability.current()

    token = observability._current.set("req-over-redis")
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
            result = current_request_id.delay()
            assert result.get(timeout=30) == "req-over-redis"
    finally:
        observability._current.reset(token)


# --- 2. Metrics --------------------------------------------------------------------------------

METRIC_NAMES = (
    "emporion_http_request_duration_seconds",
    "emporion_http_responses_total",
    "emporion_task_runs_total",
    "emporion_task_duration_seconds",
    "emporion_webhook_deliveries_total",
    "emporion_queue_depth",
)


@pytest.mark.django_db
def test_metrics_are_refused_without_a_token_or_an_allowed_network(settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_NETWORKS = []
    response = Client().get("/metrics")
    assert response.status_code == 403
    assert b"emporion_" not in response.content


@pytest.mark.django_db
def test_metrics_want_the_right_token(settings):
    settings.METRICS_TOKEN = "scrape-secret"
    settings.METRICS_ALLOWED_NETWORKS = []
    assert Client().get("/metrics").status_code == 401
    wrong = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer nope")
    assert wrong.status_code == 401
    assert wrong["WWW-Authenticate"].startswith("Bearer")
    good = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-secret")
    assert good.status_code == 200


@pytest.mark.django_db
def test_metrics_answer_an_allowed_network(settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 200
    assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics").status_code == 403


@pytest.mark.django_db
def test_metrics_name_latency_by_route_answers_by_class_tasks_webhooks_and_queues(settings):
    settings.METRICS_TOKEN = "scrape-secret"
    client = Client()
    client.get("/api/v1/licenses/public-key")
    client.get("/rest/ec/v1/no-such-route")  # the API's JSON 404 (its catch-all route)
    client.get("/no-such-page")  # matched by no route at all
    ping.apply()
    metrics.webhook_delivered("timeout")
    body = client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-secret").content.decode()
    for name in METRIC_NAMES:
        assert f"# TYPE {name.removesuffix('_total')}" in body, name
    assert (
        'emporion_http_responses_total{method="GET",route="/api/v1/licenses/public-key",'
        'status="2xx"}' in body
    )
    assert 'route="<unmatched>",status="4xx"' in body  # raw paths never become labels
    assert "no-such-route" not in body
    assert "no-such-page" not in body
    assert 'emporion_task_runs_total{outcome="success",task="common.ping"}' in body
    assert 'emporion_webhook_deliveries_total{outcome="timeout"}' in body
    assert 'emporion_queue_depth{queue="outbox"}' in body


@pytest.mark.django_db
def test_metrics_refuse_unsafe_methods_without_a_csrf_page(settings):
    settings.METRICS_TOKEN = "scrape-secret"
    response = Client(enforce_csrf_checks=True).post(
        "/metrics", HTTP_AUTHORIZATION="Bearer scrape-secret"
    )
    assert response.status_code == 405


# --- 2. Error tracking -------------------------------------------------------------------------


def test_events_sent_to_sentry_carry_no_personal_data():
    event = {
        "request": {
            "url": "https://x/api/v1/portal/me",
            "data": {"password": "hunter2"},
            "cookies": {"sessionid": "s"},
            "query_string": "email=a@b.c",
            "headers": {"Authorization": "Bearer t", "Cookie": "s", "User-Agent": "UA"},
        },
        "user": {"id": 7, "email": "a@b.c", "ip_address": "1.2.3.4"},
    }
    scrubbed = observability.scrub_event(event)
    assert "data" not in scrubbed["request"]
    assert "cookies" not in scrubbed["request"]
    assert scrubbed["request"]["headers"]["Authorization"] == observability.SCRUBBED
    assert scrubbed["request"]["headers"]["User-Agent"] == "UA"
    assert scrubbed["request"]["query_string"] == observability.SCRUBBED
    assert scrubbed["user"] == {"id": 7}


def test_sentry_starts_only_with_a_dsn_and_without_pii():
    assert observability.init_sentry("") is False
    code = (
        "import django, sentry_sdk; django.setup(); c = sentry_sdk.get_client(); "
        "print(c.is_active(), c.options['send_default_pii'], "
        "c.options['before_send'].__name__)"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SENTRY_DSN": "http://public@127.0.0.1:9/1",
    }
    out = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.split() == ["True", "False", "scrub_event"], out.stderr[-2000:]


# --- 3. Rate-limit headers ---------------------------------------------------------------------


@pytest.mark.django_db
def test_a_rate_limited_route_answers_its_standing_and_retry_after_on_429(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "license_verify": "3/min",
        },
    }
    license = LicenseFactory()
    body = {"license_key": license.license_key, "domain": "a.example"}
    client = Client(enforce_csrf_checks=True)
    seen = []
    for _ in range(4):
        response = client.post("/api/v1/licenses/verify", body, content_type="application/json")
        seen.append(response)
    assert [r.status_code for r in seen] == [200, 200, 200, 429]
    assert [r["RateLimit-Remaining"] for r in seen] == ["2", "1", "0", "0"]
    for response in seen:
        assert response["RateLimit-Limit"] == "3"
        assert response["RateLimit-Policy"] == "3;w=60"
        assert 0 <= int(response["RateLimit-Reset"]) <= 60
    assert 1 <= int(seen[-1]["Retry-After"]) <= 60


@pytest.mark.django_db
def test_a_route_without_a_limit_sends_no_rate_limit_headers():
    response = Client().get("/api/v1/licenses/public-key")
    assert response.status_code == 200
    assert "RateLimit-Limit" not in response


@pytest.mark.django_db
def test_the_store_shows_the_cart_limit():
    response = Client(enforce_csrf_checks=True).post(
        "/rest/ec/v1/cart/items", {"id": 999999}, content_type="application/json"
    )
    assert response.status_code in (400, 404)
    assert response["RateLimit-Limit"] == "60"
    assert response["RateLimit-Remaining"] == "59"


def _operation(schema, path, method):
    return schema["paths"][path][method]


@pytest.mark.django_db
def test_both_descriptions_document_the_rate_limit_headers():
    portal = Client().get("/api/v1/schema/?format=json").json()
    verify = _operation(portal, "/api/v1/licenses/verify", "post")["responses"]
    assert "RateLimit-Remaining" in verify["200"]["headers"]
    assert "Retry-After" in verify["429"]["headers"]
    unlimited = _operation(portal, "/api/v1/licenses/public-key", "get")["responses"]
    assert "headers" not in unlimited["200"] or "RateLimit-Limit" not in unlimited["200"]["headers"]

    store = schema_document(STORE)
    add = _operation(store, "/cart/items", "post")["responses"]
    assert "RateLimit-Limit" in add["200"]["headers"]
    assert "Retry-After" in add["429"]["headers"]
