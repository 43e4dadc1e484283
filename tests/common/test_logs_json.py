"""Logs an operator can use: gunicorn's access log and the Celery worker's and beat's lines are
JSON as the web's are (common.logging_json), each with the request id: the one the answer's
X-Request-ID carries, and in a task the one of the request that sent it (through the outbox
too), or the task's own id when no request did."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import runpy
import signal
import socket
import subprocess
import sys
import uuid
from contextlib import contextmanager
from datetime import timedelta
from types import SimpleNamespace
from unittest import mock

import pytest
import requests
from celery.app.task import Task
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.http import HttpResponse
from django.urls import URLPattern, URLResolver, get_resolver
from gunicorn.config import Config

from common import logging_gunicorn, logging_json, logging_worker, observability, outbox
from common.models import OutboxMessage
from common.tasks import ping
from config.celery import app as celery_app
from tests.common.test_settings_env import _environment
from tests.fixtures.tasks import eager_tasks
from tests.fixtures.waiting import wait_until
from tests.outbox import broker_down

NOTE = "tests.logs.note"
task_logger = logging.getLogger("tests.logs.task")


@celery_app.task(name=NOTE)
def note(*, to: list[str]) -> None:
    """A task that logs, as the project's tasks do; its argument stands for personal data."""
    task_logger.info("noted for %d recipient(s)", len(to))


@contextmanager
def json_lines(*names: str):
    """The lines logged on `names` while inside, as the web's handler writes them: the
    project's JSON formatter and the request id filter (LOGGING in
    config/settings/observability.py)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging_json.JsonFormatter())
    handler.addFilter(observability.RequestIdFilter())
    loggers = [logging.getLogger(name) for name in names]
    levels = [log.level for log in loggers]
    lines: list[dict] = []
    for log in loggers:
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    try:
        yield lines
    finally:
        for log, level in zip(loggers, levels, strict=True):
            log.removeHandler(handler)
            log.setLevel(level)
        lines.extend(json.loads(line) for line in stream.getvalue().splitlines())


def by_logger(lines: list[dict], name: str) -> list[dict]:
    return [line for line in lines if line["logger"] == name]


# --- gunicorn's access log -----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.sqlite_only  # a fresh process in a clean environment: the same in every pass
@pytest.mark.slow(reason="starts gunicorn: Django's import and exit in a fresh process, 3 s")
def test_gunicorn_writes_a_json_access_line_per_request_with_the_answers_request_id(tmp_path):
    port = _free_port()
    env = _environment(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
            "LOG_FORMAT": "json",
            "GUNICORN_BIND": f"127.0.0.1:{port}",
            "WEB_CONCURRENCY": "1",
        },
        tmp_path,
    )
    command = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn_conf.py"]
    command += ["--no-control-socket", "config.wsgi:application"]
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        server = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
            command, cwd=settings.BASE_DIR, env=env, stdout=stdout, stderr=stderr
        )
    url = f"http://127.0.0.1:{port}"

    def answering() -> bool:
        assert server.poll() is None, err.read_text()
        try:
            return requests.get(f"{url}/healthz", timeout=5).status_code in (200, 503)
        except requests.ConnectionError:
            return False

    try:
        wait_until(answering, timeout=30, what="gunicorn to answer", details=err.read_text)
        given = requests.get(
            f"{url}/healthz?token=query-s3cret",
            headers={
                "X-Request-ID": "trace-access-1",
                "Authorization": "Bearer header-s3cret",
                "User-Agent": "logs-test/1.0",
            },
            timeout=10,
        )
        made = requests.get(f"{url}/rest/ec/v1/no-such-route", timeout=10)

        def logged() -> bool:
            return "no-such-route" in out.read_text()

        wait_until(logged, timeout=10, what="the access lines", details=out.read_text)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

    lines = [json.loads(line) for line in out.read_text().splitlines()]  # every line is JSON
    access = [line for line in lines if line["logger"] == "gunicorn.access"]
    first = next(line for line in access if line.get("user_agent") == "logs-test/1.0")
    assert given.headers["X-Request-ID"] == "trace-access-1"
    assert first["request_id"] == "trace-access-1"
    assert first["level"] == "INFO"
    assert "time" in first
    assert first["message"] == f"GET /healthz {given.status_code}"
    assert first["method"] == "GET"
    assert first["path"] == "/healthz"
    assert first["status"] == given.status_code
    assert first["bytes"] == len(given.content)
    assert first["remote_addr"] == "127.0.0.1"
    assert isinstance(first["duration_ms"], float)
    assert first["duration_ms"] > 0
    second = access[-1]
    assert (second["path"], second["status"]) == ("/rest/ec/v1/no-such-route", 404)
    assert second["request_id"] == made.headers["X-Request-ID"]  # the id the server made
    assert len(second["request_id"]) == 32
    # gunicorn's own lines are JSON too; no credential reached either stream
    assert all(json.loads(line)["logger"] for line in err.read_text().splitlines())
    for text in (out.read_text(), err.read_text()):
        assert "s3cret" not in text


def _gunicorn_settings(monkeypatch, **env) -> dict:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # the configuration sets the logger's format: put it back after the test
    monkeypatch.setattr(logging_gunicorn.Logger, "log_format", logging_gunicorn.Logger.log_format)
    return runpy.run_path(str(settings.BASE_DIR / "config" / "gunicorn_conf.py"))


def test_the_access_log_is_on_by_default_and_off_with_its_variable(monkeypatch):
    monkeypatch.setenv("LOG_FORMAT", "plain")
    assert _gunicorn_settings(monkeypatch)["logger_class"].log_format == "plain"
    monkeypatch.delenv("LOG_FORMAT")
    monkeypatch.delenv("GUNICORN_ACCESS_LOG", raising=False)
    on = _gunicorn_settings(monkeypatch)
    assert on["accesslog"] == "-"
    assert on["logger_class"] is logging_gunicorn.Logger
    assert _gunicorn_settings(monkeypatch, GUNICORN_ACCESS_LOG="0")["accesslog"] is None
    with pytest.raises(ImproperlyConfigured, match="GUNICORN_ACCESS_LOG"):
        _gunicorn_settings(monkeypatch, GUNICORN_ACCESS_LOG="maybe")


@pytest.fixture
def access_log(tmp_path, monkeypatch):
    """gunicorn's logger writing its access log to a file; answers (log one request, lines)."""
    path = tmp_path / "access.log"
    cfg = Config()
    cfg.set("accesslog", str(path))
    cfg.set("errorlog", str(tmp_path / "error.log"))
    created = []

    def start(log_format: str = "json") -> logging_gunicorn.Logger:
        monkeypatch.setattr(logging_gunicorn.Logger, "log_format", log_format)
        created.append(logging_gunicorn.Logger(cfg))
        return created[-1]

    def request(log, path_info="/rest/ec/v1/products", *, query="", status="200 OK", **headers):
        environ = {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": path_info,
            "QUERY_STRING": query,
            "RAW_URI": f"{path_info}?{query}",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "10.0.0.7",
            **{f"HTTP_{name.upper()}": value for name, value in headers.items()},
        }
        resp = SimpleNamespace(status=status, headers=[("X-Request-ID", "rid-9")], sent=42)
        log.access(resp, SimpleNamespace(headers=[]), environ, timedelta(milliseconds=12.5))
        return path.read_text().splitlines()[-1]

    yield start, request
    for log in created:
        for logger in (log.error_log, log.access_log):
            for handler in list(logger.handlers):
                logger.removeHandler(handler)
                handler.close()


def test_an_access_line_has_the_request_fields_and_no_credentials(access_log):
    start, request = access_log
    line = json.loads(
        request(
            start(),
            query="token=query-s3cret&page=2",
            authorization="Bearer header-s3cret",
            cookie="sessionid=cookie-s3cret",
            x_api_key="key-s3cret",
            user_agent='curl/8 "quoted"',
            x_forwarded_for="203.0.113.9, 10.0.0.1",
        )
    )
    assert line == {
        "time": line["time"],
        "level": "INFO",
        "logger": "gunicorn.access",
        "message": "POST /rest/ec/v1/products 200",
        "request_id": "rid-9",
        "method": "POST",
        "path": "/rest/ec/v1/products",
        "status": 200,
        "duration_ms": 12.5,
        "bytes": 42,
        "remote_addr": "10.0.0.7",
        "user_agent": 'curl/8 "quoted"',
        "forwarded_for": "203.0.113.9, 10.0.0.1",
    }


def test_a_long_user_agent_is_cut(access_log):
    start, request = access_log
    line = json.loads(request(start(), user_agent="x" * 5000))
    assert line["user_agent"] == "x" * logging_gunicorn.MAX_HEADER_CHARS


@pytest.mark.parametrize(
    "path",
    [
        "/pay/sandbox/tok-s3cret",
        "/api/v1/downloads/tok-s3cret",
        "/rest/theme/v1/recover-cart/tok-s3cret",
        "/rest/theme/v1/newsletter/confirm/tok-s3cret",
    ],
)
def test_a_token_in_the_path_is_scrubbed(access_log, path):
    start, request = access_log
    line = json.loads(request(start(), path))
    assert "s3cret" not in line["path"] + line["message"]
    assert line["path"].endswith(f"/{logging_gunicorn.SCRUBBED}")


def _routes(patterns, prefix: str = ""):
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield route


def test_every_route_with_a_token_in_its_path_is_scrubbed():
    """A new route taking a `token` path parameter must be added to SECRET_PATHS."""
    with_token = [route for route in _routes(get_resolver().url_patterns) if ":token>" in route]
    assert len(with_token) >= 4
    for route in with_token:
        path = "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: f"val-{m.group(1)}", route)
        path = path.replace("^", "").replace("$", "")
        assert "val-token" not in logging_gunicorn.loggable_path(path), route


def test_the_plain_format_is_text_with_the_request_id(access_log):
    start, request = access_log
    line = request(start("plain"), user_agent="curl/8")
    assert "INFO gunicorn.access [rid-9] POST /rest/ec/v1/products 200" in line
    assert line.endswith('10.0.0.7 42B 12.5ms "curl/8"')


# --- The Celery worker and beat -------------------------------------------------------------------

WORKER_SCRIPT = """
import logging
from config.celery import app
from common import observability
from celery.app.trace import LOG_SUCCESS, info

app.log.setup(loglevel="INFO")  # what `celery worker` and `celery beat` do first
with observability.bound("req-77"):
    info(LOG_SUCCESS, {
        "id": "task-1", "name": "common.send_email", "return_value": None, "runtime": 0.25,
        "args": "[]", "kwargs": "{'to': ['someone@example.com']}",
    })
    logging.getLogger("common.tasks").warning("the project's own line")
logging.getLogger("celery.beat").info("Scheduler: Sending due task drain-outbox")
"""


@pytest.mark.sqlite_only  # a fresh process in a clean environment: the same in every pass
def test_the_worker_and_the_beat_log_json_lines_configured_by_celerys_setup_logging(tmp_path):
    result = subprocess.run(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", WORKER_SCRIPT],
        cwd=settings.BASE_DIR,
        env=_environment({"LOG_FORMAT": "json", "DEBUGTOOLS_RECORD_LOGS": "0"}, tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    succeeded, own, beat = (json.loads(line) for line in result.stderr.splitlines())
    assert succeeded == {
        "time": succeeded["time"],
        "level": "INFO",
        "logger": "celery.app.trace",
        "message": "Task common.send_email[task-1] succeeded in 0.25s: None",
        "request_id": "req-77",
        "task": "common.send_email",
        "task_id": "task-1",
        "runtime": 0.25,
    }  # the arguments (an e-mail's recipients) are left out
    assert (own["logger"], own["level"], own["request_id"]) == ("common.tasks", "WARNING", "req-77")
    assert (beat["logger"], beat["request_id"]) == ("celery.beat", "")


def test_the_workers_main_process_logs_a_receipt_under_the_messages_request_id():
    seen = []

    def handle(message, body, ack, reject, callbacks):
        seen.append(observability.current())

    with mock.patch.object(logging_worker, "_default_strategy", return_value=handle):
        handler = logging_worker.strategy(task=None, app=None, consumer=None)
    handler(SimpleNamespace(headers={"id": "t-1", "request_id": "req-5"}), {}, None, None, [])
    handler(SimpleNamespace(headers={"id": "t-2"}), {}, None, None, [])
    assert seen == ["req-5", "t-2"]
    assert observability.current() == ""


def test_the_workers_main_process_logs_a_time_limit_under_the_messages_request_id():
    request = logging_worker.Request.__new__(logging_worker.Request)
    request._request_dict = {"id": "t-3", "request_id": "req-6"}
    request.id, request.name = "t-3", "common.send_email"
    with json_lines("celery.worker.request") as lines:
        request.on_timeout(soft=True, timeout=60)
    assert [(line["message"], line["request_id"]) for line in lines] == [
        ("Soft time limit (60s) exceeded for common.send_email[t-3]", "req-6")
    ]


# --- The request id follows a task ------------------------------------------------------------


def test_a_task_sent_outside_a_request_carries_its_own_id():
    headers = {"id": "task-9"}
    observability._before_publish(headers=headers)
    assert headers["request_id"] == "task-9"
    with observability.bound("req-8"):
        observability._before_publish(headers=(inside := {"id": "task-10"}))
    assert inside["request_id"] == "req-8"


def _in_a_request(request_id: str, view) -> HttpResponse:
    from django.test import RequestFactory

    request = RequestFactory().post("/anything", HTTP_X_REQUEST_ID=request_id)
    return observability.RequestIdMiddleware(view)(request)


@pytest.mark.django_db
def test_a_task_enqueued_in_a_request_logs_with_the_requests_id(django_capture_on_commit_callbacks):
    def view(request):
        with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
            outbox.enqueue(NOTE, kwargs={"to": ["someone@example.com"]})
        return HttpResponse("ok")

    with eager_tasks(), json_lines("tests.logs", "celery.app.trace") as lines:
        response = _in_a_request("req-logs-1", view)
    own = by_logger(lines, "tests.logs.task")
    celery = by_logger(lines, "celery.app.trace")
    assert response["X-Request-ID"] == "req-logs-1"
    assert [(line["message"], line["request_id"]) for line in own] == [
        ("noted for 1 recipient(s)", "req-logs-1")
    ]
    assert [(line["task"], line["request_id"]) for line in celery] == [(NOTE, "req-logs-1")]
    assert celery[0]["message"].startswith(f"Task {NOTE}[")
    assert "someone@example.com" not in json.dumps(lines)
    assert observability.current() == ""


@pytest.mark.django_db
def test_a_task_the_drain_sends_later_logs_with_the_id_of_the_request_that_enqueued_it(
    django_capture_on_commit_callbacks,
):
    def view(request):
        with broker_down(), django_capture_on_commit_callbacks(execute=True):
            outbox.enqueue(NOTE, kwargs={"to": ["a@example.com", "b@example.com"]})
        return HttpResponse("ok")

    _in_a_request("req-logs-2", view)
    assert OutboxMessage.objects.filter(sent_at=None).count() == 1  # the broker refused it
    with eager_tasks(), json_lines("tests.logs") as lines, observability.bound("drain-task"):
        OutboxMessage.objects.update(due_at=OutboxMessage.objects.get().created_at)
        assert outbox.drain() == 1  # the beat's task, in a process of its own
    assert [(line["message"], line["request_id"]) for line in lines] == [
        ("noted for 2 recipient(s)", "req-logs-2")
    ]


@pytest.mark.django_db
def test_a_waiting_task_is_published_to_the_broker_under_its_requests_id(
    django_capture_on_commit_callbacks,
):
    """With a broker, the drain hands the task over under the stored id, which
    `before_task_publish` puts in the message's headers."""
    with (
        broker_down(),
        observability.bound("req-logs-3"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        outbox.enqueue(NOTE, kwargs={"to": []})
    published = []

    def publish(task, args=None, kwargs=None, **options):
        headers = {"id": str(uuid.uuid4())}
        observability._before_publish(headers=headers)
        published.append(headers["request_id"])

    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        with mock.patch.object(Task, "apply_async", publish):
            assert outbox.drain() == 1
    finally:
        celery_app.conf.task_always_eager = previous
    assert published == ["req-logs-3"]


@pytest.mark.django_db
def test_a_task_enqueued_outside_a_request_logs_with_its_own_task_id(
    django_capture_on_commit_callbacks,
):
    with (
        eager_tasks(),
        json_lines("tests.logs", "celery.app.trace") as lines,
        django_capture_on_commit_callbacks(execute=True),
    ):
        outbox.enqueue(NOTE, kwargs={"to": []})
    own = by_logger(lines, "tests.logs.task")
    celery = by_logger(lines, "celery.app.trace")
    assert len(own) == len(celery) == 1
    assert own[0]["request_id"] == celery[0]["request_id"] == celery[0]["task_id"]
    assert observability.current() == ""


# --- A real worker -------------------------------------------------------------------------------


@pytest.mark.redis
@pytest.mark.slow(reason="starts a Celery worker: Django's import in a fresh process, 3 s")
def test_a_real_workers_lines_carry_the_request_id_of_the_sender(tmp_path):
    queue = f"tests-logs-{uuid.uuid4().hex[:8]}"  # no other worker takes its message
    env = {**os.environ, "LOG_FORMAT": "json", "DJANGO_SETTINGS_MODULE": "tests.settings"}
    # REDIS_URL is this xdist worker's database already (tests/settings.py): without the worker's
    # name the subprocess keeps it, instead of moving it once more (gw1 would listen on +2).
    env.pop("PYTEST_XDIST_WORKER", None)
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo"]
    command += ["--loglevel=INFO", "--without-mingle", "--without-gossip", f"--queues={queue}"]
    err = tmp_path / "stderr"
    with err.open("wb") as stderr:
        worker = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
            command, cwd=settings.BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=stderr
        )
    try:
        with observability.bound("req-worker-1"):
            sent = ping.apply_async(queue=queue)

        def done() -> bool:
            assert worker.poll() is None, err.read_text()
            return f"[{sent.id}] succeeded" in err.read_text()

        wait_until(done, timeout=60, what="the worker to run the task", details=err.read_text)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    lines = []
    for text in err.read_text().splitlines():
        if text.startswith("{"):
            lines.append(json.loads(text))
    about_it = [line for line in lines if line.get("task_id") == sent.id]
    assert [line["logger"] for line in about_it] == ["celery.worker.strategy", "celery.app.trace"]
    assert {line["request_id"] for line in about_it} == {"req-worker-1"}
