"""The database lost: every API route answers 503 `service_unavailable` in its namespace's
shape with Retry-After, never 500; /healthz answers 503 within 2 s whether the server refuses
connections or accepts them and never answers, with and without the connection pool; and the
service comes back by itself when the server does.

The routes are walked in this process with every use of the connection failing as an
unreachable server's does. The timeouts are those of a production process: gunicorn (DEBUG
off) in a subprocess, its DATABASE_URL pointing at a port where nothing listens, at a socket of
the test's that accepts and never answers, or (on PostgreSQL) at a gate in front of the test
database that the test shuts and opens again.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager, suppress

import pytest
from django.conf import settings
from django.db import OperationalError, connection
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from accounts import services as account_services
from common.api.errors import DATABASE_RETRY_AFTER
from tests.accounts.factories import UserFactory
from tests.common.test_settings_env import _environment
from tests.fixtures.db import current_database_url
from tests.fixtures.store import basic_auth
from tests.outages.conftest import _free_port

API_PREFIXES = ("api/", f"{settings.REST_ROOT}/")
METHODS = ("get", "post", "put", "patch", "delete")


# --- Every route, in this process ---------------------------------------------------------------


def _sample(route: str) -> str:
    """A concrete path for a route pattern: 1 for an id, `x` for other parameters, the first
    alternative of a regular expression's group."""
    path = re.sub(r"\(\?P<\w+>([^|)]+)[^)]*\)", r"\1", route)
    path = re.sub(r"<id:\w+>", "1", path)
    path = re.sub(r"<(?:\w+:)?\w+>", "x", path)
    return "/" + path.replace("^", "").replace("$", "")


def api_routes() -> list[tuple[str, str]]:
    """(method, path) of every API operation: each route with each method its view has."""
    found: list[tuple[str, str]] = []

    def walk(patterns, prefix: str) -> None:
        for entry in patterns:
            route = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, route)
            elif isinstance(entry, URLPattern) and route.lstrip("^").startswith(API_PREFIXES):
                view = getattr(entry.callback, "view_class", None)
                methods = [m for m in METHODS if view is None or hasattr(view, m)] or ["get"]
                found.extend((method, _sample(route)) for method in methods)

    walk(get_resolver().url_patterns, "")
    return sorted(set(found))


def assert_unavailable(response, where) -> None:
    """503 `service_unavailable` with Retry-After, in the shape of the path's namespace."""
    assert response.status_code == 503, (where, response.status_code, response.content[:300])
    assert response["Retry-After"] == str(DATABASE_RETRY_AFTER), where
    body = response.json()
    if where[1].startswith("/api/"):
        assert set(body) == {"detail", "code"}, (where, body)
    else:
        assert set(body) == {"code", "message", "data"}, (where, body)
        assert body["data"] == {"status": 503}, (where, body)
    assert body["code"] == "service_unavailable", (where, body)


@pytest.fixture
def callers(db):
    """Credentials of the portal (a bearer token) and of the REST namespaces (an application
    password over HTTP Basic): checking either needs the database."""
    user = UserFactory(email="outage@example.com")
    portal, rest = API_PREFIXES
    return {
        portal: f"Bearer {account_services.issue_tokens(user)['access_token']}",
        rest: basic_auth(user),
    }


@pytest.fixture
def database_lost(monkeypatch):
    """Every use of the connection fails as an unreachable server's does (psycopg's text)."""

    def refuse(*args, **kwargs):
        raise OperationalError(
            'connection to server at "127.0.0.1", port 5432 failed: Connection refused'
        )

    monkeypatch.setattr(connection, "ensure_connection", refuse)


@pytest.mark.django_db
def test_every_api_route_answers_503_in_its_namespace_shape(callers, database_lost):
    routes = api_routes()
    assert len(routes) > 300
    client = APIClient()
    unavailable_to_callers = 0
    for method, path in routes:
        for credentials in (None, callers[path[1:].split("/", 1)[0] + "/"]):
            headers = {"HTTP_AUTHORIZATION": credentials} if credentials else {}
            body = {} if method != "get" and method != "delete" else None
            response = getattr(client, method)(path, body, format="json", **headers)
            where = (method.upper(), path, "credentials" if credentials else "anonymous")
            status = response.status_code
            assert status < 500 or status == 503, (where, status, response.content[:300])
            if status == 503:
                assert_unavailable(response, (where[0], path))
                unavailable_to_callers += bool(credentials)
    # Checking credentials needs the database; the few others refuse a body missing its
    # fields first, or serve what needs none (the portal's schema, the public key).
    assert unavailable_to_callers > 0.8 * len(routes), unavailable_to_callers


@pytest.mark.django_db
@pytest.mark.urls("tests.outages.stand_in_urls")
@pytest.mark.parametrize("path", ["/api/v1/portal/stand-in/plain", "/rest/ec/v1/stand-in/plain"])
def test_a_view_outside_drf_answers_503_too(database_lost, path):
    assert_unavailable(APIClient().get(path), ("GET", path))


@pytest.mark.urls("tests.outages.stand_in_urls")
@pytest.mark.parametrize("kind", ["interface", "locked"])
def test_a_closed_connection_and_a_locked_database_are_unavailable(kind):
    path = f"/rest/ec/v1/stand-in/raise/{kind}"
    assert_unavailable(APIClient().get(path), ("GET", path))


@pytest.mark.urls("tests.outages.stand_in_urls")
def test_a_missing_table_is_a_crash_not_an_outage():
    """SQLite says "no such table" with an OperationalError too: a faulty deployment, logged
    as a crash (500), not hidden behind a 503 to retry."""
    response = APIClient().get("/rest/ec/v1/stand-in/raise/no_table")
    assert response.status_code == 500
    assert response.json()["code"] == "server_error"
    assert "Retry-After" not in response


# --- A production process, its database refusing or silent -------------------------------------


GUNICORN_ARGUMENTS = ["-c", "config/gunicorn_conf.py", "--preload", "config.wsgi:application"]


class Gunicorn:
    """`gunicorn -c config/gunicorn_conf.py` with one worker on a free port, DEBUG off, the
    embedded cache and tasks (and database, without `database_url`). The application is loaded
    before the port opens (--preload), so the first request's time is the request's, its URLs'
    loading included. Its log is kept in the test's directory."""

    def __init__(self, tmp_path, database_url: str | None = None, **env: str) -> None:
        self.port = _free_port()
        self.log = tmp_path / "gunicorn.log"
        self.environment = _environment(
            {
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "DEBUG": "0",
                "SECRET_KEY": secrets.token_urlsafe(50),
                "ALLOWED_HOSTS": "127.0.0.1",
                "SECURE_SSL_REDIRECT": "0",
                "DATABASE_URL": database_url,
                "GUNICORN_BIND": f"127.0.0.1:{self.port}",
                "WEB_CONCURRENCY": "1",
                # the debug log's writer commits what it records: not into a test's database
                "DEBUGTOOLS_RECORD_LOGS": "0",
                **env,
            },
            tmp_path,
        )
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Gunicorn:
        with self.log.open("w") as log:
            self.process = subprocess.Popen(  # noqa: S603 - our own interpreter
                [sys.executable, "-m", "gunicorn", *GUNICORN_ARGUMENTS],
                cwd=settings.BASE_DIR,
                env=self.environment,
                stdout=log,
                stderr=log,
                start_new_session=True,  # its own process group: the worker is stopped with it
            )
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.__exit__()
                    log = self.log.read_text()[-3000:]
                    raise RuntimeError(f"gunicorn did not start: {log}") from None
                time.sleep(0.05)

    def __exit__(self, *exc_info) -> None:
        if self.process is not None and self.process.poll() is None:
            # no graceful stop: the abandoned connection attempts would be waited for
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.process is not None:
            self.process.wait(timeout=10)

    def ask(self, method: str, path: str, headers=None, body=None) -> dict:
        """The answer to one request on a new connection, and the seconds it took."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
        started = time.monotonic()
        try:
            conn.request(
                method.upper(),
                path,
                body=json.dumps(body) if body is not None else None,
                headers={"Content-Type": "application/json", **(headers or {})},
            )
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        seconds = time.monotonic() - started
        content_type = response.getheader("Content-Type", "")
        return {
            "request": f"{method.upper()} {path}",
            "status": response.status,
            "seconds": seconds,
            "retry_after": response.getheader("Retry-After"),
            "content_type": content_type,
            "body": json.loads(raw) if content_type.startswith("application/json") else raw,
        }


HEALTHZ = ("get", "/healthz")
STORE = ("get", "/rest/ec/v1/products")
# Checking credentials, logging in: each needs the database first.
ERP = ("get", "/rest/ec/v1/invoices", {"Authorization": "Basic b3V0YWdlQGV4YW1wbGUuY29tOng="})
PORTAL = ("post", "/api/v1/portal/auth/login", None, {"email": "a@example.com", "password": "x"})
POOL = {"DB_POOL_MAX_SIZE": "4"}


def assert_answered_unavailable(answer: dict, *, within: float) -> None:
    assert answer["seconds"] < within, answer
    assert answer["status"] == 503, answer
    assert answer["retry_after"] == str(DATABASE_RETRY_AFTER), answer
    body = answer["body"]
    if answer["request"].endswith("/healthz"):
        assert body["status"] == "down", body
        assert body["checks"]["database"]["status"] == "down", body
    elif " /api/" in answer["request"]:
        assert set(body) == {"detail", "code"}, body
        assert body["code"] == "service_unavailable", body
    else:
        assert set(body) == {"code", "message", "data"}, body
        assert body["code"] == "service_unavailable", body
        assert body["data"] == {"status": 503}, body


@contextmanager
def silent_server():
    """A port that accepts connections and never answers (a frozen server, a black hole)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.settimeout(0.1)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            with suppress(TimeoutError):
                held.append(listener.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()
        for conn in held:
            conn.close()


def test_a_refusing_server_answers_503_at_once(tmp_path):
    url = f"postgres://emporion@127.0.0.1:{_free_port()}/emporion"  # nothing listens there
    with Gunicorn(tmp_path, url) as app:
        found = [app.ask(*request) for request in (HEALTHZ, STORE, ERP, PORTAL, HEALTHZ)]
    # the first request of a new process, its URLs loaded on the way
    assert_answered_unavailable(found[0], within=2.0)
    for answer in found[1:]:
        assert_answered_unavailable(answer, within=0.5)


def test_with_a_pool_a_refusing_server_answers_503_within_the_pool_timeout(tmp_path):
    url = f"postgres://emporion@127.0.0.1:{_free_port()}/emporion"
    # a request waits DB_POOL_TIMEOUT for a connection (2 s; 1 here, to keep the test short)
    with Gunicorn(tmp_path, url, DB_POOL_TIMEOUT="1", **POOL) as app:
        found = [app.ask(*request) for request in (HEALTHZ, STORE)]
    assert_answered_unavailable(found[0], within=2.0)
    assert_answered_unavailable(found[1], within=1.5)


def test_a_silent_server_costs_a_probe_under_2_seconds(tmp_path):
    with silent_server() as port:
        url = f"postgres://emporion@127.0.0.1:{port}/emporion"
        with Gunicorn(tmp_path, url) as app:
            probe, request = app.ask(*HEALTHZ), app.ask(*STORE)
    assert_answered_unavailable(probe, within=2.0)
    assert probe["body"]["checks"]["database"] == {"status": "down", "error": "TimeoutError"}
    # a request waits out its connection attempt: DATABASE_CONNECT_TIMEOUT, 2 s
    assert_answered_unavailable(request, within=2.5)


def test_with_a_pool_a_silent_server_costs_a_probe_under_2_seconds(tmp_path):
    with silent_server() as port:
        url = f"postgres://emporion@127.0.0.1:{port}/emporion"
        with Gunicorn(tmp_path, url, **POOL) as app:
            found = [app.ask(*HEALTHZ) for _ in range(2)]
    assert_answered_unavailable(found[0], within=2.0)
    assert found[0]["body"]["checks"]["database"] == {"status": "down", "error": "TimeoutError"}
    assert_answered_unavailable(found[1], within=1.5)  # the pool still waiting, the probe not


# --- The server back ------------------------------------------------------------------------------


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    with suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    for end in (source, sink):
        with suppress(OSError):
            end.shutdown(socket.SHUT_RDWR)


class Gate:
    """A port in front of the test database: open, it forwards every connection; shut, it
    refuses new ones and cuts those open, as a server that stops does."""

    def __init__(self) -> None:
        db = connection.settings_dict
        host, port = db.get("HOST") or "/var/run/postgresql", int(db.get("PORT") or 5432)
        if host.startswith("/"):  # a socket's directory
            self.target = (socket.AF_UNIX, f"{host}/.s.PGSQL.{port}")
        else:
            self.target = (socket.AF_INET, (host, port))
        self.port = _free_port()
        self.listener: socket.socket | None = None
        self.open_connections: list[socket.socket] = []

    @property
    def database_url(self) -> str:
        return re.sub(r"@[^/]*/", f"@127.0.0.1:{self.port}/", current_database_url(), count=1)

    def open(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        listener.settimeout(0.05)
        self.listener = listener
        threading.Thread(target=self._serve, args=(listener,), daemon=True).start()

    def _serve(self, listener: socket.socket) -> None:
        while self.listener is listener:
            try:
                client = listener.accept()[0]
            except TimeoutError:
                continue
            except OSError:
                return
            server = socket.socket(self.target[0])
            server.connect(self.target[1])
            self.open_connections += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=_pipe, args=(source, sink), daemon=True).start()

    def shut(self) -> None:
        listener, self.listener = self.listener, None
        if listener is not None:
            listener.close()
        for end in self.open_connections:
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()
        self.open_connections = []


@pytest.fixture
def gate(db):
    gate = Gate()
    gate.open()
    yield gate
    gate.shut()


@pytest.mark.postgresql_only
@pytest.mark.parametrize("pool", [{}, POOL], ids=["connections", "pool"])
def test_the_service_comes_back_by_itself_with_the_server(tmp_path, gate, pool):
    with Gunicorn(tmp_path, gate.database_url, **pool) as app:
        assert app.ask(*HEALTHZ)["status"] == 200
        assert app.ask(*STORE)["status"] == 200
        gate.shut()  # the server stops: its connections cut, new ones refused
        assert_answered_unavailable(app.ask(*HEALTHZ), within=2.0)
        gate.open()
        back = time.monotonic()
        while (answer := app.ask(*HEALTHZ))["status"] != 200 and time.monotonic() - back < 10:
            time.sleep(0.1)
        came_back_in = time.monotonic() - back
        assert answer["status"] == 200, answer
        assert answer["body"]["checks"]["database"]["status"] == "up"
        # the connections the stop broke were discarded, not handed to requests
        assert [app.ask(*STORE)["status"] for _ in range(6)] == [200] * 6
    assert came_back_in < 6, came_back_in
