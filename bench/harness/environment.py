"""The bench's environment: its PostgreSQL database (made, migrated, seeded when needed, the
seed's context kept in `bench_seed`), its keys and broker queues in Redis, the environment of
its server, Django set up in-process for the seed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent.parent
OUT_DIR = ROOT / "bench" / "out"
RESULTS_MD = ROOT / "bench" / "results.md"

DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432"
DEFAULT_REDIS = "redis://127.0.0.1:6379/12"

# Not a secret: a stable key, so that tokens signed at seed time stay valid on later runs.
BENCH_SECRET_KEY = "bench-only-not-a-secret-" + "x" * 40

FLOOR_ROWS = 10_000


def git_commit() -> str:
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],  # noqa: S607
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],  # noqa: S607
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha + ("+dirty" if dirty else "")


def database_url(name: str) -> str:
    """postgres://.../<prefix>_<name> on the server of BENCH_DATABASE_URL."""
    server = urlsplit(os.environ.get("BENCH_DATABASE_URL") or DEFAULT_SERVER)
    prefix = os.environ.get("BENCH_DB_PREFIX", "emporion_bench")
    return urlunsplit((server.scheme, server.netloc, f"/{prefix}_{name}", server.query, ""))


def _admin_connection(url: str):
    import psycopg

    parts = urlsplit(url)
    return psycopg.connect(urlunsplit((*parts[:2], "/postgres", "", "")), autocommit=True)


def _seed_state(url: str, name: str) -> tuple[bool, dict | None]:
    """(whether the database exists, its bench_seed row {"version", "ctx"} or None)."""
    import psycopg

    dbname = urlsplit(url).path.lstrip("/")
    with _admin_connection(url) as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [dbname]).fetchone()
    if not exists:
        return False, None
    with psycopg.connect(url) as conn:
        try:
            row = conn.execute(
                "SELECT version, ctx FROM bench_seed WHERE name = %s", [name]
            ).fetchone()
        except psycopg.errors.UndefinedTable:
            return True, None
    if row is None:
        return True, None
    ctx = row[1] if isinstance(row[1], dict) else json.loads(row[1])
    return True, {"version": row[0], "ctx": ctx}


def _recreate_database(url: str) -> None:
    from psycopg import sql

    dbname = urlsplit(url).path.lstrip("/")
    with _admin_connection(url) as admin:
        name = sql.Identifier(dbname)
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(name))


def server_env(name: str, db_url: str, redis_url: str) -> dict[str, str]:
    """The environment of the bench server (and of the in-process seed)."""
    var_dir = ROOT / "var" / "bench" / name
    (var_dir / "static").mkdir(parents=True, exist_ok=True)
    env = {
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "DEBUG": "0",
        "SECRET_KEY": BENCH_SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "VAR_DIR": str(var_dir),
        "DATABASE_URL": db_url,
        "REDIS_URL": redis_url,
        "BENCH_NAME": name,
        "LOG_LEVEL": "WARNING",
        # E-mails are made (rendered, recorded) as in production but kept in memory: a bench
        # sends nothing and does not spend the cores printing them.
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        # The bench's own broker queues (bench.settings): tasks one bench leaves behind are
        # never taken by the next bench's worker, whose database is another.
        "BENCH_QUEUE_PREFIX": queue_prefix(name),
        "PYTHONPATH": str(ROOT),
    }
    return env


def queue_prefix(name: str) -> str:
    """The prefix of the bench's broker keys in Redis (kombu's `global_keyprefix`)."""
    return f"benchq_{name}:"


def queue_keys(name: str) -> list[str]:
    """The Redis lists that hold the bench's queued tasks (Django set up)."""
    from django.conf import settings

    return [f"{queue_prefix(name)}{queue}" for queue in settings.CELERY_QUEUE_NAMES]


def flush_redis(redis_url: str, prefix: str) -> int:
    """Deletes the bench's keys (the cache's key prefix) from Redis; answers how many."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.ping()
    deleted = 0
    batch = []
    for key in client.scan_iter(match=f"{prefix}:*", count=1000):
        batch.append(key)
        if len(batch) >= 1000:
            deleted += client.delete(*batch)
            batch = []
    if batch:
        deleted += client.delete(*batch)
    return deleted


def django_setup(env: dict[str, str]) -> None:
    os.environ.update(env)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def prepare_database(
    name: str,
    *,
    seed: Callable[[], dict] | None,
    seed_version: str,
    reseed: bool,
    env: dict[str, str],
    state_key: str | None = None,
) -> dict:
    """Creates/migrates the bench database, seeds it when needed; answers the seed's context."""
    db_url = env["DATABASE_URL"]
    state_key = state_key or name
    exists, state = _seed_state(db_url, state_key)
    fresh = reseed or not exists or state is None or state["version"] != seed_version
    if fresh:
        why = (
            "--reseed"
            if reseed
            else "new database"
            if not exists
            else "no seed yet"
            if state is None
            else f"seed version {state['version']} -> {seed_version}"
        )
        print(f"[bench] {db_url.rsplit('/', 1)[-1]}: (re)creating and seeding ({why})")
        _recreate_database(db_url)
    django_setup(env)
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", run_syncdb=True, verbosity=0)
    if not fresh:
        print(f"[bench] {db_url.rsplit('/', 1)[-1]}: seed version {seed_version} kept")
        _vacuum(connection)
        connection.close()
        return state["ctx"]

    from bench.models import FloorRow

    started = time.perf_counter()
    FloorRow.objects.bulk_create(
        [FloorRow(id=i, label=f"row {i}") for i in range(1, FLOOR_ROWS + 1)], batch_size=5000
    )
    ctx = dict(seed() if seed else {})
    json.dumps(ctx)  # the context must be JSON-able
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE IF NOT EXISTS bench_seed "
            "(name text PRIMARY KEY, version text NOT NULL, ctx jsonb NOT NULL)"
        )
        cursor.execute(
            "INSERT INTO bench_seed (name, version, ctx) VALUES (%s, %s, %s) "
            "ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version, ctx = EXCLUDED.ctx",
            [state_key, seed_version, json.dumps(ctx)],
        )
    _vacuum(connection)
    print(f"[bench] seeded in {time.perf_counter() - started:.1f} s")
    connection.close()
    return ctx


def _vacuum(connection) -> None:
    """VACUUM ANALYZE before a run: a kept database carries the previous runs' dead rows (a
    cart bench leaves some 30,000 dead versions of its 64 carts' rows, which autovacuum had
    not reached), which slowed the next run's writes by a tenth; every run starts clean."""
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
