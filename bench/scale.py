"""The scale test: the large-data paths timed on PostgreSQL + Redis.

Seeds, into its own database `emporion_bench_scale`, 100,000 licences, 50,000 products and
100,000 orders through the domain modules that exist (bench/scale_licences.py,
bench/scale_catalog.py, bench/scale_orders.py: `seed(n)` and `measure()` answering
(label, measured ms, goal ms) rows), then prints label / ms / goal / pass and writes
bench/out/scale.json for bench/results.md. The database is seeded again only when it is new,
a module appears, or a module's SEED_VERSION or size changed (or on --reseed).

    .venv/bin/python -m bench.scale                 # as make bench runs it
    .venv/bin/python -m bench.scale --only licences # one module (seeding all that exist)
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import time
import traceback

from bench import harness

NAME = "scale"
MODULES = {  # module: (size option, default size)
    "licences": ("licences", 100_000),
    "catalog": ("products", 50_000),
    "orders": ("orders", 100_000),
}


def load_modules(names) -> tuple[dict, dict]:
    """({name: module} of the scale modules that import, {name: reason} of the others)."""
    found, missing = {}, {}
    for name in names:
        try:
            found[name] = importlib.import_module(f"bench.scale_{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"bench.scale_{name}":
                missing[name] = f"import failed: {exc}"
            else:
                missing[name] = f"not written yet (bench/scale_{name}.py)"
        except Exception as exc:  # noqa: BLE001 - one broken module must not stop the others
            missing[name] = f"import failed: {exc!r}"
    return found, missing


def wanted_state(modules: dict, sizes: dict) -> str:
    return json.dumps(
        {name: [getattr(m, "SEED_VERSION", "1"), sizes[name]] for name, m in modules.items()},
        sort_keys=True,
    )


def sizes_text(sizes: dict, modules: dict) -> str:
    return ", ".join(f"{sizes[name]:,} {MODULES[name][0]}" for name in MODULES if name in modules)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reseed", action="store_true")
    parser.add_argument("--only", action="append", choices=sorted(MODULES))
    for name, (option, default) in MODULES.items():
        parser.add_argument(f"--{option}", type=int, default=default, dest=name)
    args = parser.parse_args(argv)
    sizes = {name: getattr(args, name) for name in MODULES}

    modules, errors = load_modules(MODULES)
    db_url = harness.database_url(NAME)
    redis_url = os.environ.get("BENCH_REDIS_URL") or harness.DEFAULT_REDIS
    env = harness.server_env(NAME, db_url, redis_url)
    state = wanted_state(modules, sizes)
    exists, stored = harness._seed_state(db_url, NAME)
    fresh = args.reseed or not exists or stored is None or stored["version"] != state
    if fresh:
        print(f"[scale] {db_url.rsplit('/', 1)[-1]}: (re)creating and seeding {state}")
        harness._recreate_database(db_url)
    harness.django_setup(env)
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", run_syncdb=True, verbosity=0)
    if fresh:
        for name, module in list(modules.items()):
            started = time.perf_counter()
            try:
                module.seed(sizes[name])
            except Exception:  # noqa: BLE001 - reported, the other modules still run
                errors[name] = "seed failed: " + traceback.format_exc(limit=3).splitlines()[-1]
                modules.pop(name)
                traceback.print_exc()
                continue
            took = time.perf_counter() - started
            print(f"[scale] {name}: {sizes[name]:,} seeded in {took:.0f} s")
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
            cursor.execute(
                "CREATE TABLE IF NOT EXISTS bench_seed "
                "(name text PRIMARY KEY, version text NOT NULL, ctx jsonb NOT NULL)"
            )
            if not errors or all("not written" in e for e in errors.values()):
                cursor.execute(
                    "INSERT INTO bench_seed (name, version, ctx) VALUES (%s, %s, '{}') "
                    "ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version",
                    [NAME, state],
                )
    harness.flush_redis(redis_url, f"bench_{NAME}")

    rows = []
    for name, module in modules.items():
        if args.only and name not in args.only:
            continue
        try:
            for label, ms, goal_ms in module.measure():
                rows.append(
                    {"module": name, "label": label, "ms": float(ms), "goal_ms": float(goal_ms)}
                )
        except Exception:  # noqa: BLE001 - reported, the other modules still run
            errors[name] = "measure failed: " + traceback.format_exc(limit=3).splitlines()[-1]
            traceback.print_exc()
    connection.close()

    output = {
        "kind": "scale",
        "bench": NAME,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": harness.git_commit(),
        "cores": os.cpu_count(),
        "sizes": {name: sizes[name] for name in modules},
        "sizes_text": sizes_text(sizes, modules),
        "rows": rows,
        "errors": errors,
    }
    harness.OUT_DIR.mkdir(exist_ok=True)
    (harness.OUT_DIR / "scale.json").write_text(json.dumps(output, indent=2))
    print(scale_table(rows, errors))
    return 1 if any(r["ms"] > r["goal_ms"] for r in rows) else 0


def scale_table(rows: list[dict], errors: dict[str, str]) -> str:
    lines = [f"{'label':<60}{'ms':>10}{'goal':>10}  pass", "-" * 86]
    for row in rows:
        verdict = harness.pass_text(row["ms"] <= row["goal_ms"])
        lines.append(f"{row['label']:<60}{row['ms']:>10.1f}{row['goal_ms']:>10g}  {verdict}")
    for name, error in errors.items():
        lines.append(f"{name:<60}{'—':>10}{'—':>10}  {error}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
