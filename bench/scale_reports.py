"""The store's reports at two sizes: the CPU (and wall time) per request of /orders/stats,
/dashboard/stats, /customers/stats and /customers-with-stats with 1,000 orders and with
100,000 (bench/scale_orders.py's seed: an order a minute up to now, two lines each, a tenth as
many customers), and the ratio of the two; the goal is at most 2.

Each size gets a fresh database cloned from one migrated once (SQLite: a file copy;
PostgreSQL: CREATE DATABASE ... TEMPLATE on the server of BENCH_DATABASE_URL), is seeded with
bulk_create, has its days closed by `rebuild_report_rollups` (as the nightly task leaves them:
every day before today), and is measured in a process of its own through the in-process test
client (the view, its serialisation and the middleware; no HTTP server): a warm-up, then
REPEAT calls, the median of `time.process_time` (this process's CPU: on SQLite the database's
work too) and of the wall clock (on PostgreSQL the server's work too).

    .venv/bin/python -m bench.scale_reports                        # SQLite, 1,000 and 100,000
    .venv/bin/python -m bench.scale_reports --database postgresql  # the same on PostgreSQL
    .venv/bin/python -m bench.scale_reports --sizes 1000 20000 --keep
    .venv/bin/python -m bench.scale_reports --rows-only            # without rollups: the cost
                                                                   # they save

Writes bench/out/scale_reports-<database>.json; exits 1 when a ratio is over the goal.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bench import harness

GOAL_RATIO = 2.0
REPEAT = 15
API = "/rest/ec/v1"
#: (label, path, query): the reports as the dashboard and the staff lists ask for them.
CASES = [
    ("orders/stats", "/orders/stats", {}),
    (
        "orders/stats, sales of the last 30 days",
        "/orders/stats",
        {"status": "processing,shipped,completed", "date_from": "{day_30}", "date_to": "{today}"},
    ),
    ("orders/stats, paid, by date", "/orders/stats", {"payment_status": "paid"}),
    ("dashboard/stats (30d)", "/dashboard/stats", {}),
    ("dashboard/stats, year", "/dashboard/stats", {"period": "year", "top": 20}),
    ("dashboard/stats, 7d in USD", "/dashboard/stats", {"period": "7d", "currency": "USD"}),
    ("customers/stats", "/customers/stats", {}),
    ("customers/stats, guests", "/customers/stats", {"registered": "false"}),
    ("customers/stats, with orders", "/customers/stats", {"has_orders": "true"}),
    ("customers-with-stats", "/customers-with-stats", {"per_page": 100}),
    (
        "customers-with-stats by total spent",
        "/customers-with-stats",
        {"orderby": "total_spent", "per_page": 100},
    ),
    (
        "customers-with-stats by last order",
        "/customers-with-stats",
        {"orderby": "last_order", "order": "asc", "per_page": 100},
    ),
]


def _env(database_url: str, var_dir: Path) -> dict[str, str]:
    return {
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "DEBUG": "0",
        "SECRET_KEY": harness.BENCH_SECRET_KEY,
        "ALLOWED_HOSTS": "testserver,127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "VAR_DIR": str(var_dir),
        "DATABASE_URL": database_url,
        "REDIS_URL": "",
        "BENCH_NAME": "scale_reports",
        "LOG_LEVEL": "WARNING",
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "PYTHONPATH": str(harness.ROOT),
    }


def _child(args: list[str], env: dict[str, str]) -> dict:
    """Run this module with `args` in a fresh process; answer the JSON it prints last."""
    completed = subprocess.run(  # noqa: S603 - our own module, our own arguments
        [sys.executable, "-m", "bench.scale_reports", *args],
        env={**os.environ, **env},
        cwd=harness.ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        sys.stderr.write(completed.stdout + completed.stderr)
        raise SystemExit(f"[scale_reports] {' '.join(args)} failed")
    return json.loads(completed.stdout.strip().splitlines()[-1])


# --- In the child process -------------------------------------------------------------------


def _setup() -> None:
    import django

    django.setup()


def child_migrate() -> dict:
    _setup()
    from django.core.management import call_command

    call_command("migrate", run_syncdb=True, verbosity=0)
    return {"migrated": True}


def _client():
    from rest_framework.test import APIClient

    from tests.fixtures.store import basic_auth, shop_manager

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(shop_manager("reports@example.com")))
    return client


def _median_ms(client, path: str, query: dict) -> tuple[float, float, int]:
    """(median CPU ms, median wall ms, answer size) of REPEAT calls after two warm-ups."""
    for _ in range(2):
        response = client.get(path, query)
        if response.status_code != 200:
            raise SystemExit(f"{path} {query}: {response.status_code} {response.content[:300]!r}")
    cpu, wall = [], []
    for _ in range(REPEAT):
        started_cpu, started = time.process_time(), time.perf_counter()
        response = client.get(path, query)
        cpu.append((time.process_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    return statistics.median(cpu), statistics.median(wall), len(response.content)


def child_measure(size: int, *, rows_only: bool = False) -> dict:
    _setup()
    from django.core.management import call_command
    from django.utils import timezone

    from bench import scale_orders

    started = time.perf_counter()
    scale_orders.seed(size)
    seeded = time.perf_counter() - started
    started = time.perf_counter()
    if not rows_only:
        call_command("rebuild_report_rollups", verbosity=0)
    rolled = time.perf_counter() - started
    client = _client()
    today = timezone.now().date()
    values = {"today": today.isoformat(), "day_30": (today - dt.timedelta(days=29)).isoformat()}
    rows = {}
    for label, path, query in CASES:
        filled = {key: str(value).format(**values) for key, value in query.items()}
        cpu, wall, size_bytes = _median_ms(client, API + path, filled)
        rows[label] = {"cpu_ms": cpu, "wall_ms": wall, "bytes": size_bytes}
    return {"size": size, "seed_s": seeded, "rollups_s": rolled, "rows": rows}


# --- In the parent --------------------------------------------------------------------------


def _sqlite_copies(workdir: Path):
    template = workdir / "template.sqlite3"

    def url(path: Path) -> str:
        return f"sqlite:///{path}"

    def fresh(size: int) -> str:
        target = workdir / f"reports-{size}.sqlite3"
        shutil.copyfile(template, target)
        return url(target)

    return url(template), fresh, lambda: None


def _postgresql_copies():
    server = urlsplit(os.environ.get("BENCH_DATABASE_URL") or harness.DEFAULT_SERVER)
    prefix = os.environ.get("BENCH_DB_PREFIX", "emporion_bench")

    def url(name: str) -> str:
        return urlunsplit((server.scheme, server.netloc, f"/{name}", server.query, ""))

    template = f"{prefix}_reports_template"
    made = [template]

    def fresh(size: int) -> str:
        from psycopg import sql

        name = f"{prefix}_reports_{size}"
        made.append(name)
        with harness._admin_connection(url(template)) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
            admin.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                    sql.Identifier(name), sql.Identifier(template)
                )
            )
        return url(name)

    def drop() -> None:
        from psycopg import sql

        with harness._admin_connection(url(template)) as admin:
            for name in made:
                admin.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )

    harness._recreate_database(url(template))
    return url(template), fresh, drop


def table(results: list[dict]) -> tuple[str, bool]:
    small, large = results[0], results[-1]
    ok = True
    head = (
        f"{'report':<42}{'CPU ms':>9}{'CPU ms':>9}{'ratio':>7}"
        f"{'wall ms':>9}{'wall ms':>9}{'ratio':>7}  pass"
    )
    sizes = f"{small['size']:>9,}{large['size']:>9,}{'':>7}"
    lines = [head, f"{'orders':<42}{sizes}{sizes}", "-" * len(head)]
    for label, _path, _query in CASES:
        a, b = small["rows"][label], large["rows"][label]
        cpu_ratio = b["cpu_ms"] / a["cpu_ms"]
        wall_ratio = b["wall_ms"] / a["wall_ms"]
        passed = max(cpu_ratio, wall_ratio) <= GOAL_RATIO
        ok = ok and passed
        lines.append(
            f"{label:<42}{a['cpu_ms']:>9.2f}{b['cpu_ms']:>9.2f}{cpu_ratio:>7.2f}"
            f"{a['wall_ms']:>9.2f}{b['wall_ms']:>9.2f}{wall_ratio:>7.2f}  "
            + harness.pass_text(passed)
        )
    return "\n".join(lines), ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--sizes", type=int, nargs=2, default=(1_000, 100_000))
    parser.add_argument("--keep", action="store_true", help="keep the databases made")
    parser.add_argument(
        "--rows-only",
        action="store_true",
        help="close no day: every report reads the rows (what they cost without rollups)",
    )
    parser.add_argument("--child", choices=("migrate", "measure"), help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child == "migrate":
        print(json.dumps(child_migrate()))
        return 0
    if args.child == "measure":
        print(json.dumps(child_measure(args.size, rows_only=args.rows_only)))
        return 0

    workdir = Path(tempfile.mkdtemp(prefix="scale_reports-"))
    var_dir = workdir / "var"
    if args.database == "sqlite":
        template, fresh, drop = _sqlite_copies(workdir)
    else:
        template, fresh, drop = _postgresql_copies()
    try:
        print(f"[scale_reports] migrating a template database ({args.database})")
        _child(["--child", "migrate"], _env(template, var_dir))
        results = []
        for size in args.sizes:
            print(f"[scale_reports] {size:,} orders: seeding and measuring")
            child = ["--child", "measure", "--size", str(size)]
            child += ["--rows-only"] if args.rows_only else []
            result = _child(child, _env(fresh(size), var_dir))
            print(
                f"[scale_reports] {size:,} orders seeded in {result['seed_s']:.0f} s, "
                f"rollups rebuilt in {result['rollups_s']:.1f} s"
            )
            results.append(result)
    finally:
        if not args.keep:
            drop()
            shutil.rmtree(workdir, ignore_errors=True)
    text, ok = table(results)
    print(text)
    output = {
        "kind": "scale_reports",
        "database": args.database,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": harness.git_commit(),
        "cores": os.cpu_count(),
        "goal_ratio": GOAL_RATIO,
        "rows_only": args.rows_only,
        "results": results,
    }
    harness.OUT_DIR.mkdir(exist_ok=True)
    name = f"scale_reports-{args.database}{'-rows' if args.rows_only else ''}"
    (harness.OUT_DIR / f"{name}.json").write_text(json.dumps(output, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
