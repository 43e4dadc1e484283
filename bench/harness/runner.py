"""A bench's run (run_bench): its database and server prepared, each case measured against
its floor back to back for --rounds rounds, the summary printed and written to bench/out/.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import sys
from collections.abc import Callable

from bench.harness.cases import FLOOR_PATHS, Case, expected_statuses, expected_text
from bench.harness.environment import (
    DEFAULT_REDIS,
    OUT_DIR,
    ROOT,
    database_url,
    flush_redis,
    git_commit,
    prepare_database,
    server_env,
)
from bench.harness.load import probe, run_wrk, settle, start_server, stop_server
from bench.harness.results import bad_share, case_table, rates_text, summarise_case


def floor_case(kind: str) -> Case:
    method, path = FLOOR_PATHS[kind]
    return Case(f"F-{kind}", method=method, path=path, floor=kind)


def _measure(port: int, case: Case, args) -> dict:
    return run_wrk(
        port,
        method=case.method,
        path=case.path,
        body=case.body,
        headers=case.headers,
        expect_status=case.expect_status,
        lua=case.lua,
        seconds=args.seconds,
        connections=args.connections,
        threads=args.threads,
    )


def _line(label: str, m: dict) -> str:
    bad = f" bad {m['bad']}" if m["bad"] or bad_share(m) else ""
    return (
        f"{label:<26} {m['rps']:>7.0f} req/s  p50 {m['p50_ms']:>7.2f} ms  "
        f"p99 {m['p99_ms']:>7.2f} ms{bad}"
    )


def parse_args(argv: list[str] | None, name: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=f"bench {name}: cases against their floors")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (at least 5 to report)")
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    parser.add_argument("--connections", type=int, default=4, help="wrk connections")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    parser.add_argument("--port", type=int, default=int(os.environ.get("BENCH_PORT", 8110)))
    parser.add_argument("--reseed", action="store_true", help="recreate and reseed the database")
    parser.add_argument("--only", action="append", help="only this case (repeatable)")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of warm-up per case")
    return parser.parse_args(argv)


def run_bench(
    name: str,
    *,
    seed: Callable[[], dict] | None,
    cases: list[Case],
    seed_version: str = "1",
    argv: list[str] | None = None,
    extra_env: dict[str, str] | None = None,
) -> dict:
    """Runs a bench (see the module's docstring); answers what it wrote to bench/out/.

    `extra_env` is added to the environment of the server and of the in-process seed (e.g.
    PAYMENT_SANDBOX_ALLOWED for a bench that pays with the sandbox card)."""
    args = parse_args(argv, name)
    if args.only:
        unknown = set(args.only) - {c.name for c in cases}
        if unknown:
            raise SystemExit(f"unknown case(s): {', '.join(sorted(unknown))}")
        cases = [c for c in cases if c.name in args.only]
    if args.rounds < 5:
        print(f"[bench] warning: {args.rounds} rounds; at least 5 are needed to report")
    db_url = database_url(name)
    redis_url = os.environ.get("BENCH_REDIS_URL") or DEFAULT_REDIS
    env = {**server_env(name, db_url, redis_url), **(extra_env or {})}
    ctx = prepare_database(name, seed=seed, seed_version=seed_version, reseed=args.reseed, env=env)
    cases = [c.formatted(ctx) for c in cases]
    flushed = flush_redis(redis_url, f"bench_{name}")
    print(f"[bench] Redis {redis_url}: {flushed} keys of bench_{name} deleted")

    process = start_server(env, port=args.port, workers=args.workers)
    rounds: dict[str, list[dict]] = {c.name: [] for c in cases}
    try:
        for case in cases:
            status, text = probe(args.port, case) if case.lua is None else (None, "")
            if status is not None and status not in expected_statuses(case.expect_status):
                print(
                    f"[bench] warning: {case.name} answered {status}, expected "
                    f"{expected_text(case.expect_status)}: {text!r}"
                )
        if args.warmup > 0:
            warm = argparse.Namespace(**{**vars(args), "seconds": args.warmup})
            for kind in sorted({c.floor for c in cases}):
                _measure(args.port, floor_case(kind), warm)
            for case in cases:
                _measure(args.port, case, warm)
        for number in range(args.rounds):
            print(f"round {number + 1}/{args.rounds}")
            for case in cases:
                pair = [("floor", floor_case(case.floor)), ("case", case)]
                if number % 2:
                    pair.reverse()
                measured = {}
                for role, which in pair:
                    settle()
                    measured[role] = _measure(args.port, which, args)
                rounds[case.name].append(measured)
                f, c = measured["floor"], measured["case"]
                print(
                    "  "
                    + _line(f"F-{case.floor}", f)
                    + "\n  "
                    + _line(case.name, c)
                    + f"\n  {'':<26} ratio p50 {c['p50_ms'] / f['p50_ms']:.2f}x "
                    f"p99 {c['p99_ms'] / f['p99_ms']:.2f}x rps {f['rps'] / c['rps']:.2f}x"
                )
    finally:
        stop_server(process)

    summaries = [summarise_case(case, rounds[case.name]) for case in cases]
    output = {
        "kind": "bench",
        "bench": name,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "cores": os.cpu_count(),
        "run": {
            "rounds": args.rounds,
            "seconds": args.seconds,
            "connections": args.connections,
            "threads": args.threads,
            "workers": args.workers,
            "database": db_url.rsplit("/", 1)[-1],
            "redis": redis_url,
            "extra_env": dict(extra_env or {}),
        },
        "cases": summaries,
    }
    OUT_DIR.mkdir(exist_ok=True)
    (OUT_DIR / f"{name}.json").write_text(json.dumps(output, indent=2, default=str))

    print()
    print(
        f"bench {name}: {args.rounds} rounds x {args.seconds:g} s, wrk {args.connections} "
        f"connections, gunicorn {args.workers} workers, {os.cpu_count()} cores, "
        f"PostgreSQL + Redis; ratios case/floor, median (min-max)"
    )
    print(case_table(summaries))
    for s in summaries:
        if s.get("counts_per_s"):
            print(f"{s['case']}: {rates_text(s['counts_per_s'])} (counted by its script)")
        if s.get("warning"):
            print(f"warning: {s['case']}: {s['warning']}")
    print(f"written: {(OUT_DIR / f'{name}.json').relative_to(ROOT)}")
    if any(s["error"] for s in summaries):
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        raise SystemExit(2)
    return output
