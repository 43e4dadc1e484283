"""SQLite gets the embedded default's options (WAL journal, a busy timeout, IMMEDIATE
transactions) whatever way it is named: the default file, or DATABASE_URL with a relative or an
absolute path, the URL's own options merged in. With them, concurrent writers on a real server
queue for the write lock instead of failing with "database is locked"."""

from __future__ import annotations

import ast
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing

import pytest
import requests
from django.conf import settings
from django.db import connection

from common.db import SQLITE_INIT_COMMAND, sqlite_options
from erp.core import services as erp_services
from erp.invoicing import services
from licensing.models import Tier
from store.common.capabilities import manage
from tests.accounts.factories import UserFactory
from tests.common.test_settings_env import _python
from tests.erp.invoicing.helpers import INVOICES, configure, draft_body
from tests.fixtures.store import basic_auth, grant
from tests.fixtures.waiting import wait_until
from tests.licensing.factories import LicenseFactory

pytestmark = pytest.mark.sqlite_only  # SQLite itself, and fresh processes: one pass

DEFAULTS = {"init_command": SQLITE_INIT_COMMAND, "transaction_mode": "IMMEDIATE", "timeout": 20}


def test_given_options_win_and_the_defaults_fill_in_the_rest():
    assert sqlite_options() == DEFAULTS
    assert sqlite_options({"timeout": 5, "transaction_mode": "EXCLUSIVE"}) == {
        **DEFAULTS,
        "timeout": 5,
        "transaction_mode": "EXCLUSIVE",
    }
    # a given init_command runs after the default PRAGMAs: its own win, the others stay
    merged = sqlite_options({"init_command": "PRAGMA foreign_keys=ON"})
    assert merged["init_command"] == f"{SQLITE_INIT_COMMAND} PRAGMA foreign_keys=ON;"


def database_settings(tmp_path, database_url: str | None) -> dict:
    """DATABASES["default"] as a fresh process builds it from `database_url` (None: unset)."""
    script = (
        "import config.settings as s; db = s.DATABASES['default'];"
        " print(repr({**db, 'NAME': str(db['NAME'])}))"
    )
    result = _python(["-c", script], {"DATABASE_URL": database_url}, tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    return ast.literal_eval(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("database_url", "name"),
    [
        (None, "{tmp}/db.sqlite3"),
        ("sqlite:///relative/db.sqlite3", "relative/db.sqlite3"),
        ("sqlite:///{tmp}/absolute.sqlite3", "{tmp}/absolute.sqlite3"),
    ],
    ids=["default", "relative", "absolute"],
)
def test_every_way_of_naming_sqlite_gets_the_options(tmp_path, database_url, name):
    url = database_url.format(tmp=tmp_path) if database_url else None
    db = database_settings(tmp_path, url)
    assert db["ENGINE"] == "django.db.backends.sqlite3"
    assert db["NAME"] == name.format(tmp=tmp_path)
    assert db["OPTIONS"] == DEFAULTS


def test_a_urls_own_options_are_merged_with_the_defaults(tmp_path):
    url = f"sqlite:///{tmp_path}/db.sqlite3?timeout=5&init_command=PRAGMA%20foreign_keys%3DON"
    db = database_settings(tmp_path, url)
    assert db["OPTIONS"] == {
        **DEFAULTS,
        "timeout": 5,
        "init_command": f"{SQLITE_INIT_COMMAND} PRAGMA foreign_keys=ON;",
    }


def test_an_in_memory_database_from_a_url_works(tmp_path):
    script = (
        "from django.db import connection;"
        " cursor = connection.cursor(); cursor.execute('CREATE TABLE t (n int)');"
        " cursor.execute('INSERT INTO t VALUES (1)'); cursor.execute('SELECT n FROM t');"
        " print(repr([cursor.fetchone()[0], connection.settings_dict['OPTIONS']]))"
    )
    result = _python(
        ["-c", script],
        {"DATABASE_URL": "sqlite://:memory:", "DJANGO_SETTINGS_MODULE": "config.settings"},
        tmp_path,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert ast.literal_eval(result.stdout.strip().splitlines()[-1]) == [1, DEFAULTS]


# --- Concurrent writes on a real server -------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """gunicorn with the production configuration (config/gunicorn_conf.py), one worker of ten
    threads: each thread has its own connection to the SQLite file `path`."""

    def __init__(self, path, log) -> None:
        self.path = path
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",  # the suite's password hasher
            "DATABASE_URL": f"sqlite:///{path}",
            "VAR_DIR": str(path.parent),
            "GUNICORN_BIND": f"127.0.0.1:{self.port}",
            "WEB_CONCURRENCY": "1",
        }
        env.pop("REDIS_URL", None)
        command = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn_conf.py"]
        # one worker's threads are enough to contend; no control socket shared with other runs
        command += ["--threads", "10", "--no-control-socket", "config.wsgi:application"]
        with log.open("wb") as out:
            self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
                command, cwd=settings.BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT
            )

    def wait(self) -> None:
        wait_until(self.ready, timeout=30, what="gunicorn to answer", details=self.output)

    def ready(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"gunicorn stopped:\n{self.output()}")
        try:
            return requests.get(f"{self.url}/healthz", timeout=10).status_code == 200
        except requests.ConnectionError:
            return False

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-5000:]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)  # quick: no waiting for kept-alive connections
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def server_on_a_copy(tmp_path):
    """A server on a file copy of this test's database (its rows committed), named by
    DATABASE_URL with an absolute path."""
    started: list[Server] = []

    def start() -> Server:
        path = tmp_path / "db.sqlite3"
        connection.ensure_connection()
        target = sqlite3.connect(path)
        connection.connection.backup(target)
        target.close()
        started.append(Server(path, tmp_path / "gunicorn.log"))
        started[0].wait()
        return started[0]

    yield start
    for server in started:
        server.stop()


@pytest.mark.slow(reason="starts gunicorn: Django's import and exit in a fresh process, 3 s")
@pytest.mark.django_db(transaction=True)  # the rows are committed, then copied to the file
def test_ten_simultaneous_issues_on_a_server_all_succeed(server_on_a_copy):
    """Each issue takes the series' next number and, sent at once (auto_transmit, eager tasks),
    writes the transmission: ten at once contend for SQLite's one write lock."""
    erp_services.erp_activate(license_key=LicenseFactory(tier=Tier.BUSINESS).license_key)
    sales, _ = configure(auto_transmit=True)
    clerk = grant(UserFactory(email="clerk@example.com"), manage("invoicing"))
    headers = {"Authorization": basic_auth(clerk)}
    drafts = []
    for _ in range(10):
        body = draft_body(series_id=sales.pk)
        body.pop("billing_address")
        drafts.append(services.invoice_create(fields=body).pk)
    server = server_on_a_copy()

    together = threading.Barrier(len(drafts))

    def issue(invoice_id: int) -> requests.Response:
        together.wait(timeout=10)
        return requests.post(
            f"{server.url}{INVOICES}/{invoice_id}/issue", headers=headers, timeout=30
        )

    with ThreadPoolExecutor(len(drafts)) as pool:
        answers = list(pool.map(issue, drafts))
    assert [a.status_code for a in answers] == [200] * len(drafts), [
        (a.status_code, a.text[:200]) for a in answers
    ] + [server.output()]

    invoices = [
        requests.get(f"{server.url}{INVOICES}/{pk}", headers=headers, timeout=10).json()
        for pk in drafts
    ]
    assert {i["status"] for i in invoices} == {"issued"}
    assert sorted(i["number"] for i in invoices) == list(range(1, 11))
    assert {i["transmission"]["status"] for i in invoices} == {"sent"}
    with closing(sqlite3.connect(server.path)) as database:  # the server's init_command's WAL
        assert database.execute("PRAGMA journal_mode").fetchone() == ("wal",)
