"""The scale test: the large-data paths over HTTP, each beside F-pk on the same server.

Two parts, each on gunicorn (bench.settings, PostgreSQL, Redis) as the harness serves a bench:

- **at scale** (`emporion_bench_scale`): 100,000 licences, 50,000 products and 100,000 orders
  (bench/scale_licences.py, scale_catalog.py, scale_orders.py: `seed(n)`, CASES, context());
  each case reports its p50 over F-pk's (goal: a ratio), the CPU per request of the gunicorn
  workers and of the PostgreSQL backends, and (licences) a worker's peak memory growth;
- **flat** (`emporion_bench_flat_<size>`, at two sizes, default 1,000 and 100,000): the store's
  reports (bench/scale_reports.py) and the ERP's (bench/scale_erp.py) on a database of
  `size` orders (and journal lines; min(size, 50,000) products with their stock), two servers
  up at once; each case's p50 over its own server's floor at the big size, divided by the same
  at the small size, is its flat ratio (goal <= 2x; the stock levels page <= 1.5x).

Requests go one at a time, case and floor alternating request by request (harness.http_loop):
`--rounds` rounds, each measuring every case for `--seconds` (at least `--min-pairs` pairs);
figures are the median (min-max) over the rounds. Each database is seeded once (in a child
process: Django reads one DATABASE_URL), and again only when a module's SEED_VERSION or a
size changes or on --reseed; the rollup rebuild commands that exist run on every run
(scale_erp.rebuild). Writes bench/out/scale.json for bench/results.md; exits 1 when a goal
fails.

    .venv/bin/python -m bench.scale                          # as make bench runs it
    .venv/bin/python -m bench.scale --rounds 2 --seconds 1 --only reports --flat-sizes 500 5000
    .venv/bin/python -m bench.scale --only catalog --products 5000
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import harness
from bench.harness import http_loop

NAME = "scale"
SCALE_MODULES = {  # module: (size option, default size)
    "licences": ("licences", 100_000),
    "catalog": ("products", 50_000),
    "orders": ("orders", 100_000),
}
FLAT_MODULES = ("reports", "erp")
FLAT_SIZES = (1_000, 100_000)
ADMIN_EMAIL = "scale-admin@example.com"


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0, help="per case per round")
    parser.add_argument("--min-pairs", type=int, default=3, help="per case per round")
    parser.add_argument("--reseed", action="store_true")
    parser.add_argument("--only", action="append", choices=[*SCALE_MODULES, *FLAT_MODULES])
    for name, (option, default) in SCALE_MODULES.items():
        parser.add_argument(f"--{option}", type=int, default=default, dest=name)
    parser.add_argument("--flat-sizes", type=int, nargs=2, default=FLAT_SIZES)
    parser.add_argument("--workers", type=int, default=1, help="gunicorn workers per server")
    parser.add_argument("--port", type=int, default=int(os.environ.get("BENCH_PORT", 8110)) + 10)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-out", help=argparse.SUPPRESS)
    # `make bench` may pass the harness's options: those that do not apply are ignored.
    args, ignored = parser.parse_known_args(argv)
    if ignored:
        print(f"[scale] ignoring {' '.join(ignored)}")
    return args


# --- Databases (seeded in a child process each) ----------------------------------------------


def _module(name: str):
    return importlib.import_module(f"bench.scale_{name}")


def databases(args) -> list[dict]:
    """The databases the run needs: {"key", "name", "modules": {module: size}, "cases"}."""
    wanted = set(args.only or [*SCALE_MODULES, *FLAT_MODULES])
    out = []
    if wanted & set(SCALE_MODULES):
        out.append(
            {
                "key": "scale",
                "name": NAME,
                "modules": {name: getattr(args, name) for name in SCALE_MODULES},
                "only": sorted(wanted & set(SCALE_MODULES)),
            }
        )
    if wanted & set(FLAT_MODULES):
        for size in args.flat_sizes:
            out.append(
                {
                    "key": f"flat-{size}",
                    "name": f"flat_{size}",
                    # the reports read the orders, rfm too: scale_orders seeds them first
                    "modules": {"orders": size, "erp": size},
                    "only": sorted(wanted & set(FLAT_MODULES)),
                }
            )
    return out


def seed_version(modules: dict[str, int]) -> str:
    return json.dumps(
        {name: [getattr(_module(name), "SEED_VERSION", "1"), n] for name, n in modules.items()},
        sort_keys=True,
    )


def _env(db: dict) -> dict[str, str]:
    redis_url = os.environ.get("BENCH_REDIS_URL") or harness.DEFAULT_REDIS
    env = harness.server_env(db["name"], harness.database_url(db["name"]), redis_url)
    # The catalog's cases go cold (bench_store's gunicorn hooks: X-Bench-Cold-Cache).
    env["GUNICORN_CMD_ARGS"] = "--config python:bench.bench_store"
    return env


def child_prepare(db: dict, reseed: bool) -> dict:
    """In the child: the database made, migrated and seeded when needed; the rollups rebuilt;
    answers the cases' context (the seed's, plus what each module reads at run time)."""

    def seed() -> dict:
        ctx = {"auth": _admin_auth()}
        for name, size in db["modules"].items():
            started = time.perf_counter()
            ctx.update(_module(name).seed(size) or {})
            took = time.perf_counter() - started
            print(f"[scale] {db['name']}: {name} {size:,} seeded in {took:.0f} s")
        return ctx

    ctx = harness.prepare_database(
        db["name"],
        seed=seed,
        seed_version=seed_version(db["modules"]),
        reseed=reseed,
        env=_env(db),
    )
    from bench import scale_erp

    started = time.perf_counter()
    rebuilt = scale_erp.rebuild()
    if rebuilt:
        took = time.perf_counter() - started
        print(f"[scale] {db['name']}: {', '.join(rebuilt)} in {took:.1f} s")
    ctx = {**ctx, "rebuilt": rebuilt}
    for name in [*db["modules"], *db["only"]]:
        module = _module(name)
        if hasattr(module, "context"):
            ctx.update(module.context())
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")  # the rollups just rebuilt
    connection.close()
    return ctx


def _admin_auth() -> str:
    """An administrator (manage_options: the store's and the ERP's routes) with an application
    password, as the Authorization header."""
    import base64

    from django.contrib.auth.models import Group

    from accounts import services as account_services
    from accounts.models import User
    from store.common.capabilities import ADMINISTRATOR_ROLE

    user = User.objects.create_user(email=ADMIN_EMAIL, name="Scale admin", password=None)
    user.groups.add(Group.objects.get(name=ADMINISTRATOR_ROLE))
    _record, raw = account_services.app_password_create(user=user, name="bench scale")
    return "Basic " + base64.b64encode(f"{user.email}:{raw}".encode()).decode()


def prepare(db: dict, reseed: bool) -> dict:
    """Runs child_prepare in a process of its own; answers its context."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        code = subprocess.call(  # noqa: S603 - our own module
            [
                sys.executable,
                "-m",
                "bench.scale",
                "--child",
                json.dumps(db),
                "--child-out",
                out.name,
                *(["--reseed"] if reseed else []),
            ],
            cwd=harness.ROOT,
            env={**os.environ, **_env(db)},
        )
        if code:
            raise RuntimeError(f"preparing {db['name']} failed ({code})")
        return json.loads(Path(out.name).read_text())


# --- Servers --------------------------------------------------------------------------------


@contextlib.contextmanager
def server(db: dict, port: int, workers: int):
    """gunicorn on the database, with its backends' pids for the CPU figures."""
    import psycopg

    env = _env(db)
    harness.flush_redis(env["REDIS_URL"], f"bench_{db['name']}")
    process = harness.start_server(env, port=port, workers=workers)
    conn = psycopg.connect(env["DATABASE_URL"], autocommit=True)
    dbname = env["DATABASE_URL"].rsplit("/", 1)[-1]

    def backends() -> list[int]:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid() "
            "AND backend_type = 'client backend'",
            [dbname],
        ).fetchall()
        return [row[0] for row in rows]

    try:
        yield http_loop.Server(port=port, master=process.pid, backends=backends)
    finally:
        conn.close()
        harness.stop_server(process)


def warm(target: http_loop.Server, cases: list[http_loop.HttpCase]) -> None:
    for _ in range(3):
        http_loop.request(target.port, http_loop.FLOOR)
    for case in cases:
        status, _ms, _size = http_loop.request(target.port, case)
        if status != case.expect_status:
            print(f"[scale] warning: {case.label} answered {status}")


# --- The two parts --------------------------------------------------------------------------


def run_scale(db: dict, ctx: dict, args) -> list[dict]:
    cases = [c.formatted(ctx) for name in db["only"] for c in _module(name).CASES]
    rounds: dict[str, list[dict]] = {c.label: [] for c in cases}
    with server(db, args.port, args.workers) as target:
        warm(target, cases)
        for number in range(args.rounds):
            print(f"[scale] round {number + 1}/{args.rounds}")
            for case in cases:
                measured = http_loop.measure_pairs(
                    target, case, seconds=args.seconds, min_pairs=args.min_pairs
                )
                figures = http_loop.ratio_round(measured)
                rounds[case.label].append(figures)
                print(
                    f"  {case.label:<52} {figures['case_p50_ms']:8.1f} ms "
                    f"{figures['p50_ratio']:7.2f}x "
                    f"cpu {figures['cpu_ms']:6.1f} ms db {figures['db_cpu_ms']:6.1f} ms"
                )
    rows = []
    for case in cases:
        row = {"part": "scale", "label": case.label, "path": case.path, "error": None}
        row.update(goal=http_loop.goal_words(case), summary=case.summary)
        row["error"] = http_loop.refused(rounds[case.label])
        if not row["error"]:
            row.update(http_loop.summarise_rounds(rounds[case.label]))
        row["passed"] = False if row["error"] else http_loop.verdict(row, case)
        row["rounds"] = rounds[case.label]
        rows.append(row)
    return rows


def run_flat(small: tuple[dict, dict], big: tuple[dict, dict], args) -> list[dict]:
    (small_db, small_ctx), (big_db, big_ctx) = small, big
    modules = small_db["only"]
    cases = [c for name in modules for c in _module(name).CASES]
    rounds: dict[str, list[dict]] = {c.label: [] for c in cases}
    with (
        server(small_db, args.port, args.workers) as s_target,
        server(big_db, args.port + 1, args.workers) as b_target,
    ):
        warm(s_target, [c.formatted(small_ctx) for c in cases])
        warm(b_target, [c.formatted(big_ctx) for c in cases])
        for number in range(args.rounds):
            print(f"[scale] flat round {number + 1}/{args.rounds}")
            for case in cases:
                sizes = [("small", s_target, small_ctx), ("big", b_target, big_ctx)]
                if number % 2:
                    sizes.reverse()
                figures = {}
                for which, target, ctx in sizes:
                    measured = http_loop.measure_pairs(
                        target, case.formatted(ctx), seconds=args.seconds, min_pairs=args.min_pairs
                    )
                    figures[which] = http_loop.ratio_round(measured)
                flat = http_loop.flat_round(figures["small"], figures["big"])
                rounds[case.label].append({**figures, **flat})
                print(
                    f"  {case.label:<44} {figures['small']['case_p50_ms']:7.1f} / "
                    f"{figures['big']['case_p50_ms']:7.1f} ms  "
                    f"{figures['small']['p50_ratio']:6.2f}x"
                    f" / {figures['big']['p50_ratio']:6.2f}x F-pk  flat {flat['flat_ratio']:.2f}x"
                    f" (cpu {flat['cpu_flat_ratio']:.2f}x)"
                )
    rows = []
    for case in cases:
        taken = rounds[case.label]
        row = {
            "part": "flat",
            "label": case.label,
            "path": case.path,
            "summary": case.summary,
            "goal": http_loop.goal_words(case),
            "sizes": [small_db["modules"]["orders"], big_db["modules"]["orders"]],
        }
        row["error"] = http_loop.refused([r[which] for r in taken for which in ("small", "big")])
        if not row["error"]:
            row["small"] = http_loop.summarise_rounds([r["small"] for r in taken])
            row["big"] = http_loop.summarise_rounds([r["big"] for r in taken])
            row["flat_ratio"] = http_loop.spread(r["flat_ratio"] for r in taken)
            row["cpu_flat_ratio"] = http_loop.spread(r["cpu_flat_ratio"] for r in taken)
        row["passed"] = False if row["error"] else http_loop.verdict(row, case)
        row["rounds"] = taken
        rows.append(row)
    return rows


# --- Tables ---------------------------------------------------------------------------------


def _x(value: dict | None, digits: int = 2) -> str:
    return harness.fmt_spread(value, digits)


def _ms(value: dict | None) -> str:
    if not value:
        return "—"
    return f"{value['median']:.1f} ({value['min']:.1f}-{value['max']:.1f})"


def scale_table(rows: list[dict]) -> str:
    lines = [
        f"{'case':<52}{'p50 / F-pk':<26}{'CPU ms/req (app)':<24}{'db CPU ms':<10}{'goal':<30}pass",
    ]
    lines.append("-" * len(lines[0]))
    for row in rows:
        if row["error"]:
            lines.append(f"{row['label']:<52}{row['error']}")
            continue
        extra = f" (+{row['peak_growth_mib']:.1f} MiB)" if row.get("peak_growth_mib", 0) > 1 else ""
        lines.append(
            f"{row['label']:<52}{_x(row['p50_ratio']):<26}{_ms(row['cpu_ms']):<24}"
            f"{row['db_cpu_ms']['median']:<10.1f}{row['goal']:<30}"
            f"{harness.pass_text(row['passed'])}{extra}"
        )
    return "\n".join(lines)


def flat_table(rows: list[dict]) -> str:
    lines = [
        f"{'case':<44}{'small / F-pk':<14}{'big / F-pk':<14}{'flat (big/small)':<24}"
        f"{'CPU flat':<10}{'goal':<18}pass"
    ]
    lines.append("-" * len(lines[0]))
    for row in rows:
        if row["error"]:
            lines.append(f"{row['label']:<44}{row['error']}")
            continue
        lines.append(
            f"{row['label']:<44}{row['small']['p50_ratio']['median']:<14.2f}"
            f"{row['big']['p50_ratio']['median']:<14.2f}{_x(row['flat_ratio']):<24}"
            f"{row['cpu_flat_ratio']['median']:<10.2f}{row['goal']:<18}"
            f"{harness.pass_text(row['passed'])}"
        )
    return "\n".join(lines)


# --- Main -----------------------------------------------------------------------------------


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.child:
        ctx = child_prepare(json.loads(args.child), args.reseed)
        Path(args.child_out).write_text(json.dumps(ctx))
        return 0

    rows: list[dict] = []
    errors: dict[str, str] = {}
    dbs = databases(args)
    prepared = {}
    for db in dbs:
        try:
            prepared[db["key"]] = (db, prepare(db, args.reseed))
        except Exception as exc:  # noqa: BLE001 - reported; the other part still runs
            errors[db["name"]] = str(exc)
    if "scale" in prepared:
        db, ctx = prepared["scale"]
        rows += run_scale(db, ctx, args)
    small, big = (prepared.get(f"flat-{size}") for size in args.flat_sizes)
    if small and big:
        rows += run_flat(small, big, args)

    scale_rows = [r for r in rows if r["part"] == "scale"]
    flat_rows = [r for r in rows if r["part"] == "flat"]
    sizes = {name: getattr(args, name) for name in SCALE_MODULES}
    output = {
        "kind": "scale_http",
        "bench": NAME,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": harness.git_commit(),
        "cores": os.cpu_count(),
        "run": {
            "rounds": args.rounds,
            "seconds": args.seconds,
            "min_pairs": args.min_pairs,
            "workers": args.workers,
        },
        "sizes": sizes,
        "sizes_text": ", ".join(f"{sizes[n]:,} {SCALE_MODULES[n][0]}" for n in SCALE_MODULES),
        "flat_sizes": list(args.flat_sizes),
        "rows": rows,
        "errors": errors,
    }
    harness.OUT_DIR.mkdir(exist_ok=True)
    (harness.OUT_DIR / "scale.json").write_text(json.dumps(output, indent=2, default=str))
    print(
        f"\nscale: {args.rounds} rounds x {args.seconds:g} s per case (>= {args.min_pairs} pairs), "
        f"one request at a time, case and F-pk alternating; median (min-max)"
    )
    if scale_rows:
        print(f"\nat scale ({output['sizes_text']})\n" + scale_table(scale_rows))
    if flat_rows:
        small, big = args.flat_sizes
        print(f"\nflat: {small:,} vs {big:,} orders\n" + flat_table(flat_rows))
    for name, error in errors.items():
        print(f"{name}: ERROR {error}")
    print("written: bench/out/scale.json")
    return 1 if errors or any(r["passed"] is False for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
