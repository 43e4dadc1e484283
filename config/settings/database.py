"""The database: DATABASE_URL (PostgreSQL or SQLite), or the embedded SQLite file under VAR_DIR."""

from __future__ import annotations

from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from common.db import sqlite_options
from config.env import env_bool, env_int, env_str
from config.settings.base import VAR_DIR

DATABASE_URL = env_str("DATABASE_URL")
_db: dict[str, Any]
if DATABASE_URL:
    try:
        _db = dict(
            dj_database_url.parse(
                DATABASE_URL,
                conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0),
                conn_health_checks=True,
            )
        )
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {exc}") from None
    if _db["ENGINE"] == "django.db.backends.postgresql":
        # An unreachable server fails a request (503 service_unavailable) in seconds, not
        # after the operating system's TCP timeout. 2 s is the least libpq and psycopg honour
        # (1 counts as 2).
        _db.setdefault("OPTIONS", {}).setdefault(
            "connect_timeout", env_int("DATABASE_CONNECT_TIMEOUT", 2, minimum=1)
        )
        # Connection pooling (docs/deploy.md): DB_POOL_MAX_SIZE > 0 gives each process a
        # psycopg pool of that size (connections are then never kept per thread:
        # CONN_MAX_AGE 0); DB_PGBOUNCER=1 is for a PgBouncer in transaction mode in front of
        # the server: no server-side cursors (a cursor would outlive its transaction's
        # server connection) and no startup `options` (PgBouncer refuses them).
        DB_POOL_MAX_SIZE = env_int("DB_POOL_MAX_SIZE", 0, minimum=0)
        DB_PGBOUNCER = env_bool("DB_PGBOUNCER", False)
        if DB_POOL_MAX_SIZE and DB_PGBOUNCER:
            raise ImproperlyConfigured(
                "Set DB_POOL_MAX_SIZE or DB_PGBOUNCER, not both: PgBouncer is the pool."
            )
        if DB_POOL_MAX_SIZE:
            _db["CONN_MAX_AGE"] = 0
            # The pool checks a connection as it hands it out (an empty query) and replaces
            # one the server dropped (a restart, a failover) instead of failing the request.
            _db["CONN_HEALTH_CHECKS"] = True
            _db["OPTIONS"]["pool"] = {
                "min_size": min(env_int("DB_POOL_MIN_SIZE", 2, minimum=0), DB_POOL_MAX_SIZE),
                "max_size": DB_POOL_MAX_SIZE,
                # How long a request waits for a connection before answering 503: while the
                # server is unreachable none comes, so this is what every request costs.
                "timeout": env_int("DB_POOL_TIMEOUT", 2, minimum=1),
                # A failing reconnection backs off (1, 2, 4 ... s) and is given up after this
                # long; the next request starts a fresh one at once, so the pool reconnects
                # within seconds of the server's return, not after a back-off of minutes.
                "reconnect_timeout": env_int("DB_POOL_RECONNECT_TIMEOUT", 5, minimum=1),
            }
        if DB_PGBOUNCER:
            _db["DISABLE_SERVER_SIDE_CURSORS"] = True
        else:
            # The web's queries are short: PostgreSQL's JIT compiles a plan for tens of ms
            # that the query then saves nothing with (measured on the catalog's lists at
            # 50,000 products: +28 ms). A DATABASE_URL giving its own `options` keeps them.
            _db["OPTIONS"].setdefault("options", "-c jit=off")
            # Parameters bound on the server: psycopg then prepares a query the connection
            # has run PG_PREPARE_THRESHOLD times, and PostgreSQL reuses its plan instead of
            # planning it again on every request (the hot paths' joins plan for longer than
            # they run). Off with DB_SERVER_SIDE_BINDING=0 (and always behind PgBouncer, whose
            # transaction mode cannot keep a connection's prepared statements).
            if env_bool("DB_SERVER_SIDE_BINDING", True):
                _db["OPTIONS"].setdefault("server_side_binding", True)
                _db["OPTIONS"].setdefault(
                    "prepare_threshold", env_int("PG_PREPARE_THRESHOLD", 5, minimum=0)
                )
    elif _db["ENGINE"] == "django.db.backends.sqlite3":
        # The embedded default's options, with the URL's own merged in (common.db).
        _db["OPTIONS"] = sqlite_options(_db.get("OPTIONS"))
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    _db = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": VAR_DIR / "db.sqlite3",
        # WAL, a busy timeout and IMMEDIATE transactions: writers queue, never "locked".
        "OPTIONS": sqlite_options(),
    }
DATABASES = {"default": _db}
# /healthz waits this long for the database's answer (common.health): a healthy server answers
# in milliseconds, and the whole probe must stay within a load balancer's timeout (2 s and
# less), a new process's first request included.
DATABASE_HEALTH_TIMEOUT_MS = env_int("DATABASE_HEALTH_TIMEOUT_MS", 750, minimum=1)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
