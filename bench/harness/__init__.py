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

The harness is one module per part:

- `cases`: a case, the Lua script given to wrk, wrk's output read (pure)
- `results`: ratios, goals, refusals, the console table and bench/results.md (pure)
- `environment`: the database (made, migrated, seeded), Redis, the server's environment
- `load`: gunicorn, wrk and a Celery worker, run as processes
- `runner`: run_bench, a bench's rounds
- `http_loop`: the scale test's timed HTTP loop and its figures (not re-exported)

Benches use it as `from bench import harness` (harness.run_bench, harness.server_env, ...): the
names are re-exported here; the modules of this package never import from it. The seed helpers
`_admin_connection`, `_seed_state` and `_recreate_database` are re-exported too.

`http_loop` (imported as `bench.harness.http_loop`) is the scale test's measure: a case's
requests interleaved one by one with F-pk's on one connection, with the CPU each cost the
server's workers and database backends (bench/scale.py).
"""

from bench.harness.cases import (
    FLOOR_PATHS,
    RESULT_MARK,
    Case,
    expected_statuses,
    expected_text,
    lua_string,
    parse_wrk_output,
    wrk_script,
)
from bench.harness.environment import (
    BENCH_SECRET_KEY,
    DEFAULT_REDIS,
    DEFAULT_SERVER,
    FLOOR_ROWS,
    OUT_DIR,
    RESULTS_MD,
    ROOT,
    _admin_connection,
    _recreate_database,
    _seed_state,
    database_url,
    django_setup,
    flush_redis,
    git_commit,
    prepare_database,
    queue_keys,
    queue_prefix,
    server_env,
)
from bench.harness.load import (
    SETTLE_SECONDS,
    celery_worker,
    probe,
    run_wrk,
    settle,
    start_server,
    stop_server,
)
from bench.harness.results import (
    MAX_BAD_SHARE,
    bad_share,
    case_table,
    counts_per_second,
    fmt_spread,
    goal_passed,
    goal_text,
    pass_text,
    rates_text,
    spread,
    summarise_case,
    write_results,
)
from bench.harness.runner import floor_case, parse_args, run_bench

__all__ = [
    "BENCH_SECRET_KEY",
    "DEFAULT_REDIS",
    "DEFAULT_SERVER",
    "FLOOR_PATHS",
    "FLOOR_ROWS",
    "MAX_BAD_SHARE",
    "OUT_DIR",
    "RESULTS_MD",
    "RESULT_MARK",
    "ROOT",
    "SETTLE_SECONDS",
    "Case",
    "_admin_connection",
    "_recreate_database",
    "_seed_state",
    "bad_share",
    "case_table",
    "celery_worker",
    "counts_per_second",
    "database_url",
    "django_setup",
    "expected_statuses",
    "expected_text",
    "floor_case",
    "flush_redis",
    "fmt_spread",
    "git_commit",
    "goal_passed",
    "goal_text",
    "lua_string",
    "parse_args",
    "parse_wrk_output",
    "pass_text",
    "prepare_database",
    "probe",
    "queue_keys",
    "queue_prefix",
    "rates_text",
    "run_bench",
    "run_wrk",
    "server_env",
    "settle",
    "spread",
    "start_server",
    "stop_server",
    "summarise_case",
    "write_results",
    "wrk_script",
]
