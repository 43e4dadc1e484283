"""The benchmark harness: a hot path under load beside a floor measured in the same run.

A bench (bench/bench_<name>.py, run as `python -m bench.bench_<name>`) names its cases and a
seed function and calls `run_bench`. The harness:

1. makes sure the PostgreSQL database `emporion_bench_<name>` exists (BENCH_DATABASE_URL gives
   the server, BENCH_DB_PREFIX the prefix), migrates it, and seeds it only when it is new, when
   the bench's SEED_VERSION changed or on --reseed (a fresh database then); the seed's context
   (ids, keys, tokens) is kept in the table `bench_seed` and given back on later runs;
2. empties the bench's keys in Redis (BENCH_REDIS_URL, default db 12) and starts gunicorn with
   `bench.settings` (the project's production settings, DEBUG off, Redis cache and throttles
   on, plus the floor routes of bench/urls.py);
3. loads it with wrk (a separate process) for --seconds per measurement: after a warm-up, each
   of --rounds rounds measures, for each case, its floor and the case back to back (the order
   alternating between rounds), so every ratio compares two runs seconds apart; with a Celery
   worker running (celery_worker), each measurement waits for its queue to be empty first;
4. counts the answers' statuses in wrk (a Lua response hook) and refuses to report a case whose
   answers are not (almost all) its expected status (one, or a tuple for a case whose script
   walks several routes); a case's script may also count events of its own in the Lua table
   `bench_counts` (e.g. completed checkouts), reported per second of the case;
5. prints, per case, the median (min-max) over the rounds of the p50 and p99 ratios (case over
   floor) and of the throughput ratio (floor requests/s over the case's), and whether the goals
   hold; writes everything to bench/out/<name>.json, which `make bench` gathers into
   bench/results.md (write_results).

Floors: F-pk (`GET /bench/floor/pk`, one indexed lookup by primary key) for reads, F-pkw
(`POST /bench/floor/pkw`, select_for_update + UPDATE of one row in a transaction) for writes.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "bench" / "out"
RESULTS_MD = ROOT / "bench" / "results.md"

DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432"
DEFAULT_REDIS = "redis://127.0.0.1:6379/12"
# Not a secret: a stable key, so that tokens signed at seed time stay valid on later runs.
BENCH_SECRET_KEY = "bench-only-not-a-secret-" + "x" * 40
FLOOR_PATHS = {"pk": ("GET", "/bench/floor/pk"), "pkw": ("POST", "/bench/floor/pkw")}
FLOOR_ROWS = 10_000
# A case whose share of unexpected answers (statuses or socket errors) exceeds this is refused.
MAX_BAD_SHARE = 0.05
RESULT_MARK = "BENCH_RESULT "


@dataclass
class Case:
    name: str
    method: str = "GET"
    path: str = "/"
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    floor: str = "pk"
    goal_p50: float | None = None
    goal_p99: float | None = None
    lua: str | None = None
    # One status, or several (a script walking routes that answer 200 and 201).
    expect_status: int | tuple[int, ...] = 200

    def __post_init__(self) -> None:
        if self.floor not in FLOOR_PATHS:
            raise ValueError(f"case {self.name!r}: floor must be one of {sorted(FLOOR_PATHS)}")

    def formatted(self, ctx: dict) -> Case:
        """The case with str.format(**ctx) applied to path, body, headers and lua."""
        return Case(
            name=self.name,
            method=self.method,
            path=self.path.format(**ctx),
            body=None if self.body is None else self.body.format(**ctx),
            headers={k: v.format(**ctx) for k, v in self.headers.items()},
            floor=self.floor,
            goal_p50=self.goal_p50,
            goal_p99=self.goal_p99,
            lua=None if self.lua is None else self.lua.format(**ctx),
            expect_status=self.expect_status,
        )


# --- Pure parts: Lua script, wrk output, statistics, tables (tests/bench guards them) ----------


def lua_string(value: str) -> str:
    """A Lua (5.1/LuaJIT) string literal for value."""
    out = []
    for char in value:
        if char in '\\"':
            out.append("\\" + char)
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\{ord(char):03d}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def expected_statuses(expect_status: int | Iterable[int]) -> tuple[int, ...]:
    """A case's expected status(es) as a tuple."""
    if isinstance(expect_status, int):
        return (expect_status,)
    return tuple(int(status) for status in expect_status)


def expected_text(expect_status: int | Iterable[int]) -> str:
    """`200` or `200/201`."""
    return "/".join(str(status) for status in expected_statuses(expect_status))


def wrk_script(
    *,
    method: str,
    body: str | None,
    headers: dict[str, str],
    expect_status: int | tuple[int, ...],
    user_lua: str | None = None,
) -> str:
    """The Lua script given to wrk: the request, the case's own script (which may define init,
    request, setup, response, and count its own events in `bench_counts[name]`), then the
    harness's hooks counting statuses and printing the result line (RESULT_MARK + JSON) from
    `done`."""
    lines = [f"wrk.method = {lua_string(method)}"]
    if body is not None:
        lines.append(f"wrk.body = {lua_string(body)}")
    for name, value in headers.items():
        lines.append(f"wrk.headers[{lua_string(name)}] = {lua_string(value)}")
    if user_lua:
        lines += ["", "-- the case's script", user_lua, ""]
    expect_lua = ", ".join(f"[{status}] = true" for status in expected_statuses(expect_status))
    lines.append(
        f"""
-- the harness's hooks
local bench_expect = {{{expect_lua}}}
local bench_threads = {{}}
local bench_user_setup = setup
local bench_user_response = response
bench_ok = 0
bench_bad = 0
bench_statuses = {{}}
bench_counts = {{}}

function setup(thread)
  table.insert(bench_threads, thread)
  if bench_user_setup then bench_user_setup(thread) end
end

function response(status, headers, body)
  if bench_expect[status] then
    bench_ok = bench_ok + 1
  else
    bench_bad = bench_bad + 1
    local key = tostring(status)
    bench_statuses[key] = (bench_statuses[key] or 0) + 1
  end
  if bench_user_response then bench_user_response(status, headers, body) end
end

function done(summary, latency, requests)
  local ok, bad, statuses, counts = 0, 0, {{}}, {{}}
  for _, thread in ipairs(bench_threads) do
    ok = ok + thread:get("bench_ok")
    bad = bad + thread:get("bench_bad")
    for key, count in pairs(thread:get("bench_statuses")) do
      statuses[key] = (statuses[key] or 0) + count
    end
    for key, count in pairs(thread:get("bench_counts") or {{}}) do
      counts[key] = (counts[key] or 0) + count
    end
  end
  local parts, count_parts = {{}}, {{}}
  for key, count in pairs(statuses) do
    table.insert(parts, string.format('"%s":%d', key, count))
  end
  for key, count in pairs(counts) do
    table.insert(count_parts, string.format('"%s":%d', key, count))
  end
  local e = summary.errors
  io.write(string.format(
    '{RESULT_MARK}{{"requests":%d,"duration_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,'
    .. '"mean_us":%.1f,"max_us":%d,"ok":%d,"bad":%d,"statuses":{{%s}},'
    .. '"errors":{{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}},'
    .. '"counts":{{%s}}}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.mean, latency.max, ok, bad, table.concat(parts, ","),
    e.connect, e.read, e.write, e.status, e.timeout, table.concat(count_parts, ",")))
end
"""
    )
    return "\n".join(lines)


_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _duration_ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if not match:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(match.group(1)) * _UNITS_MS[match.group(2)]


def parse_wrk_output(text: str) -> dict:
    """One measurement from wrk's output: the harness's result line when present, else wrk's
    own text (`--latency` distribution, Requests/sec, Non-2xx, socket errors).

    Answers {"requests", "seconds", "rps", "p50_ms", "p90_ms", "p99_ms", "ok", "bad",
    "statuses", "errors", "counts"} (counts: the case script's `bench_counts`); with the text
    fallback, ok/bad come from the Non-2xx line and there are no counts."""
    for line in text.splitlines():
        if line.startswith(RESULT_MARK):
            raw = json.loads(line[len(RESULT_MARK) :])
            seconds = raw["duration_us"] / 1e6
            return {
                "requests": raw["requests"],
                "seconds": seconds,
                "rps": raw["requests"] / seconds if seconds else 0.0,
                "p50_ms": raw["p50_us"] / 1000,
                "p90_ms": raw["p90_us"] / 1000,
                "p99_ms": raw["p99_us"] / 1000,
                "mean_ms": raw["mean_us"] / 1000,
                "max_ms": raw["max_us"] / 1000,
                "ok": raw["ok"],
                "bad": raw["bad"],
                "statuses": raw["statuses"],
                "errors": raw["errors"],
                "counts": raw.get("counts", {}),
            }
    percentiles = {
        int(m.group(1)): _duration_ms(m.group(2))
        for m in re.finditer(r"^\s+(50|90|99)%\s+([\d.]+(?:us|ms|s|m))\s*$", text, re.M)
    }
    requests = re.search(r"^\s*(\d+) requests in ", text, re.M)
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    if not (requests and rps and {50, 99} <= percentiles.keys()):
        raise ValueError("wrk output has neither the result line nor --latency percentiles")
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    errors = {"connect": 0, "read": 0, "write": 0, "status": 0, "timeout": 0}
    socket = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text
    )
    if socket:
        names = ("connect", "read", "write", "timeout")
        for key, value in zip(names, socket.groups(), strict=True):
            errors[key] = int(value)
    count = int(requests.group(1))
    bad = int(non_2xx.group(1)) if non_2xx else 0
    errors["status"] = bad
    return {
        "requests": count,
        "seconds": count / float(rps.group(1)) if float(rps.group(1)) else 0.0,
        "rps": float(rps.group(1)),
        "p50_ms": percentiles[50],
        "p90_ms": percentiles.get(90, percentiles[99]),
        "p99_ms": percentiles[99],
        "ok": count - bad,
        "bad": bad,
        "statuses": {},
        "errors": errors,
        "counts": {},
    }


def bad_share(measurement: dict) -> float:
    """The share of requests that did not get the expected status or failed on the socket."""
    socket_errors = sum(v for k, v in measurement["errors"].items() if k != "status")
    total = measurement["ok"] + measurement["bad"] + socket_errors
    return (measurement["bad"] + socket_errors) / total if total else 1.0


def spread(values: Iterable[float]) -> dict:
    """{"median", "min", "max"} of values."""
    values = list(values)
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def fmt_spread(value: dict | None, digits: int = 2) -> str:
    """`1.23x (1.10-1.40)`."""
    if not value:
        return "—"
    return f"{value['median']:.{digits}f}x ({value['min']:.{digits}f}-{value['max']:.{digits}f})"


def summarise_case(case: Case, rounds: list[dict]) -> dict:
    """The ratios of a case over its rounds ({"floor": m, "case": m} measurements), its goal
    verdict, or the reason it is refused."""
    summary = {
        "case": case.name,
        "method": case.method,
        "path": case.path,
        "floor": case.floor,
        "goal_p50": case.goal_p50,
        "goal_p99": case.goal_p99,
        "expect_status": case.expect_status,
        "rounds": rounds,
        "error": None,
    }
    shares = [bad_share(r["case"]) for r in rounds]
    floor_shares = [bad_share(r["floor"]) for r in rounds]
    if not rounds:
        summary["error"] = "no rounds"
    elif max(shares) > MAX_BAD_SHARE:
        statuses: dict[str, int] = {}
        for r in rounds:
            for key, count in r["case"]["statuses"].items():
                statuses[key] = statuses.get(key, 0) + count
        summary["error"] = (
            f"refused: {max(shares):.0%} of the answers were not "
            f"{expected_text(case.expect_status)} "
            f"(unexpected statuses {statuses or '-'}, socket errors counted)"
        )
    elif max(floor_shares) > MAX_BAD_SHARE:
        summary["error"] = f"refused: the floor failed {max(floor_shares):.0%} of its requests"
    if summary["error"]:
        summary.update(p50_ratio=None, p99_ratio=None, throughput_ratio=None, passed=False)
        return summary
    summary["p50_ratio"] = spread(r["case"]["p50_ms"] / r["floor"]["p50_ms"] for r in rounds)
    summary["p99_ratio"] = spread(r["case"]["p99_ms"] / r["floor"]["p99_ms"] for r in rounds)
    summary["throughput_ratio"] = spread(r["floor"]["rps"] / r["case"]["rps"] for r in rounds)
    summary["floor_rps"] = spread(r["floor"]["rps"] for r in rounds)
    summary["case_rps"] = spread(r["case"]["rps"] for r in rounds)
    summary["case_p50_ms"] = spread(r["case"]["p50_ms"] for r in rounds)
    summary["case_p99_ms"] = spread(r["case"]["p99_ms"] for r in rounds)
    summary["floor_p50_ms"] = spread(r["floor"]["p50_ms"] for r in rounds)
    summary["floor_p99_ms"] = spread(r["floor"]["p99_ms"] for r in rounds)
    summary["counts_per_s"] = counts_per_second(rounds)
    summary["warning"] = (
        f"{max(shares):.1%} of the answers were not {expected_text(case.expect_status)}"
        if max(shares)
        else None
    )
    summary["passed"] = goal_passed(case, summary)
    return summary


def counts_per_second(rounds: list[dict]) -> dict[str, dict]:
    """{name: spread of the case's `bench_counts[name]` per second} over the rounds (a name
    missing from a round counts 0 there); {} when the case's script counts nothing."""
    names = sorted({name for r in rounds for name in r["case"].get("counts") or {}})
    out = {}
    for name in names:
        rates = []
        for r in rounds:
            m = r["case"]
            seconds = m.get("seconds") or (m["requests"] / m["rps"] if m["rps"] else 0.0)
            count = (m.get("counts") or {}).get(name, 0)
            rates.append(count / seconds if seconds else 0.0)
        out[name] = spread(rates)
    return out


def rates_text(counts_per_s: dict[str, dict] | None) -> str:
    """`complete 15.2/s (14.0-16.1), start 15.9/s (...)`."""
    return ", ".join(
        f"{name} {v['median']:.1f}/s ({v['min']:.1f}-{v['max']:.1f})"
        for name, v in (counts_per_s or {}).items()
    )


def goal_passed(case: Case, summary: dict) -> bool | None:
    """True when every goal holds for the median ratio; None when the case has no goal."""
    checks = []
    if case.goal_p50 is not None:
        checks.append(summary["p50_ratio"]["median"] <= case.goal_p50)
    if case.goal_p99 is not None:
        checks.append(summary["p99_ratio"]["median"] <= case.goal_p99)
    return all(checks) if checks else None


def goal_text(goal_p50: float | None, goal_p99: float | None) -> str:
    parts = []
    if goal_p50 is not None:
        parts.append(f"p50 ≤ {goal_p50:g}x")
    if goal_p99 is not None:
        parts.append(f"p99 ≤ {goal_p99:g}x")
    return ", ".join(parts) or "—"


def pass_text(passed: bool | None, error: str | None = None) -> str:
    if error:
        return "ERROR"
    return {True: "pass", False: "FAIL", None: "—"}[passed]


def case_table(summaries: list[dict]) -> str:
    """The console table of a bench's cases."""
    header = (
        f"{'case':<22}{'floor':<6}{'p50 ratio':<22}{'p99 ratio':<22}"
        f"{'rps floor/case':<22}{'goal':<22}{'pass'}"
    )
    lines = [header, "-" * len(header)]
    for s in summaries:
        if s["error"]:
            lines.append(f"{s['case']:<22}{s['floor']:<6}{s['error']}")
            continue
        lines.append(
            f"{s['case']:<22}{s['floor']:<6}{fmt_spread(s['p50_ratio']):<22}"
            f"{fmt_spread(s['p99_ratio']):<22}{fmt_spread(s['throughput_ratio']):<22}"
            f"{goal_text(s['goal_p50'], s['goal_p99']):<22}{pass_text(s['passed'])}"
        )
    return "\n".join(lines)


def write_results(
    out_dir: Path = OUT_DIR,
    path: Path = RESULTS_MD,
    *,
    date: str | None = None,
    commit: str | None = None,
    cores: int | None = None,
    failures: dict[str, str] | None = None,
) -> str:
    """bench/results.md from the bench/out/*.json files (benches, then the scale test)."""
    date = date or dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    commit = commit or git_commit()
    cores = cores or os.cpu_count()
    benches, scale = [], None
    for file in sorted(Path(out_dir).glob("*.json")):
        data = json.loads(file.read_text())
        if data.get("kind") == "scale":
            scale = data
        else:
            benches.append(data)
    lines = [
        "# Benchmark results",
        "",
        f"- date: {date}",
        f"- commit: {commit}",
        f"- machine: {cores} cores (server and load generator share them)",
        "",
        "Ratios are case over floor, measured in the same round; median (min-max) over the "
        "rounds. Floors: F-pk (one indexed lookup by primary key) for reads, F-pkw "
        "(select_for_update + update of one row) for writes. See bench/README.md.",
        "",
        "| bench | case | floor | p50 ratio | p99 ratio | goal | pass |",
        "|---|---|---|---|---|---|---|",
    ]
    for bench in benches:
        run = bench.get("run", {})
        for s in bench["cases"]:
            if s.get("error"):
                lines.append(
                    f"| {bench['bench']} | {s['case']} | F-{s['floor']} | — | — | "
                    f"{goal_text(s['goal_p50'], s['goal_p99'])} | ERROR: {s['error']} |"
                )
                continue
            lines.append(
                f"| {bench['bench']} | {s['case']} | F-{s['floor']} | "
                f"{fmt_spread(s['p50_ratio'])} | {fmt_spread(s['p99_ratio'])} | "
                f"{goal_text(s['goal_p50'], s['goal_p99'])} | {pass_text(s['passed'])} |"
            )
        if run:
            lines.append(
                f"| | *{bench['bench']}: {run.get('rounds')} rounds x {run.get('seconds')} s, "
                f"{run.get('connections')} connections, {run.get('workers')} workers, "
                f"commit {bench.get('commit', '?')}* | | | | | |"
            )
        for s in bench["cases"]:
            if s.get("counts_per_s") and not s.get("error"):
                lines.append(f"| | *{s['case']}: {rates_text(s['counts_per_s'])}* | | | | | |")
        for note in bench.get("notes") or []:
            lines.append(f"| | *{note}* | | | | | |")
    if scale:
        lines += [
            "",
            f"## Scale ({scale['sizes_text']})" if scale.get("sizes_text") else "## Scale",
            "",
            "| label | ms | goal ms | pass |",
            "|---|---|---|---|",
        ]
        for row in scale["rows"]:
            lines.append(
                f"| {row['label']} | {row['ms']:.1f} | {row['goal_ms']:g} | "
                f"{pass_text(row['ms'] <= row['goal_ms'])} |"
            )
        for module, error in (scale.get("errors") or {}).items():
            lines.append(f"| {module} | — | — | ERROR: {error} |")
    if failures:
        lines += ["", "## Not run, or failed", ""]
        lines += [f"- {name}: {reason}" for name, reason in failures.items()]
    text = "\n".join(lines) + "\n"
    Path(path).write_text(text)
    return text


# --- Environment: database, Redis, Django, gunicorn, wrk --------------------------------------


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


def start_server(env: dict[str, str], *, port: int, workers: int) -> subprocess.Popen:
    gunicorn = Path(sys.executable).parent / "gunicorn"
    process = subprocess.Popen(  # noqa: S603 - our own virtualenv's gunicorn
        [
            str(gunicorn),
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--log-level",
            "warning",
            "--timeout",
            "60",
        ],
        cwd=ROOT,
        env={**os.environ, **env},
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("gunicorn exited; see its output above")
        try:
            with urllib.request.urlopen(  # loopback
                f"http://127.0.0.1:{port}/bench/floor/pk", timeout=5
            ) as answer:
                if answer.status == 200:
                    return process
        except (OSError, urllib.error.URLError):
            time.sleep(0.3)
    stop_server(process)
    raise RuntimeError(f"gunicorn did not answer on port {port}")


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def probe(port: int, case: Case) -> tuple[int, str]:
    """One request as the case sends it (without its Lua script): (status, start of the body)."""
    request = urllib.request.Request(  # loopback
        f"http://127.0.0.1:{port}{case.path}",
        data=None if case.body is None else case.body.encode(),
        headers=case.headers,
        method=case.method,
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310
            return answer.status, answer.read(300).decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(300).decode(errors="replace")


def run_wrk(
    port: int,
    *,
    method: str,
    path: str,
    body: str | None,
    headers: dict[str, str],
    expect_status: int,
    lua: str | None,
    seconds: float,
    connections: int,
    threads: int,
) -> dict:
    wrk = shutil.which("wrk")
    if not wrk:
        raise RuntimeError("wrk is not installed (apt-get install wrk)")
    script = wrk_script(
        method=method, body=body, headers=headers, expect_status=expect_status, user_lua=lua
    )
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as file:
        file.write(script)
    try:
        result = subprocess.run(  # noqa: S603 - wrk with our arguments
            [
                wrk,
                f"-t{threads}",
                f"-c{connections}",
                f"-d{max(1, round(seconds))}s",
                "--timeout",
                "10s",
                "--latency",
                "-s",
                file.name,
                f"http://127.0.0.1:{port}{path}",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        os.unlink(file.name)
    if result.returncode != 0:
        raise RuntimeError(f"wrk failed ({result.returncode}): {result.stderr or result.stdout}")
    return parse_wrk_output(result.stdout)


@contextlib.contextmanager
def celery_worker(name: str, extra_env: dict[str, str] | None = None, *, drain: float = 30.0):
    """A Celery worker (one process) on the bench's database and Redis for the run, as in
    production, on the bench's own queues (queue_prefix). Tasks an earlier run left in them
    (for a database since recreated, perhaps) are dropped before it starts; on leaving, it is
    given up to `drain` seconds to empty them."""
    import redis

    redis_url = os.environ.get("BENCH_REDIS_URL") or DEFAULT_REDIS
    bench_env = {**server_env(name, database_url(name), redis_url), **(extra_env or {})}
    django_setup(bench_env)  # as the seed will: the queue names are the settings'
    env = {**os.environ, **bench_env}
    keys = queue_keys(name)
    dropped = sum(redis.Redis.from_url(redis_url).delete(key) for key in keys)
    if dropped:
        print(f"[bench] {dropped} queue(s) of an earlier {name} run emptied")
    celery = os.path.join(os.path.dirname(sys.executable), "celery")
    worker = subprocess.Popen(  # noqa: S603 - our own worker
        [celery, "-A", "config", "worker", "-c", "1", "-l", "WARNING", "--without-gossip"],
        env=env,
        cwd=ROOT,
    )
    entry = (redis_url, keys, worker)
    _WORKERS.append(entry)
    try:
        yield worker
    finally:
        _WORKERS.remove(entry)
        with contextlib.suppress(Exception):
            _wait_for_empty_queue(redis_url, keys, drain, worker)
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


# The bench's Celery workers (celery_worker), so that each measurement starts with their queue
# empty: tasks a case left behind (a status change's stock release and e-mail) are charged to
# that case's own measurement, not to the one measured next, floor or case.
_WORKERS: list[tuple[str, list[str], subprocess.Popen]] = []
SETTLE_SECONDS = 60.0


def settle() -> None:
    """Wait (bounded) until the bench's workers have emptied their queue."""
    for redis_url, keys, worker in list(_WORKERS):
        with contextlib.suppress(Exception):
            _wait_for_empty_queue(redis_url, keys, SETTLE_SECONDS, worker)
            time.sleep(0.3)  # the task taken last finishes


def _wait_for_empty_queue(
    redis_url: str, keys: list[str], seconds: float, worker: subprocess.Popen
) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    deadline = time.monotonic() + seconds
    while (
        worker.poll() is None
        and time.monotonic() < deadline
        and sum(client.llen(key) for key in keys)
    ):
        time.sleep(0.2)


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
        print(f"[bench] warning: {args.rounds} rounds; the issue asks for at least 5")
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
