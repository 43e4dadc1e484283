"""Staff orders under load, against the framework floors:

- order_list:            GET /rest/ec/v1/orders?per_page=100 as a shop manager (application
                         password over HTTP Basic) with 100,000 orders in the database; goal
                         p50 <= 3x F-pk.
- status_change_cancel:  PATCH /rest/ec/v1/orders/{id}/status to cancelled, each request on a
                         processing order (two lines); goal p50 <= 6x F-pkw. Entering
                         cancelled records the release, which a Celery worker (started by this
                         bench, one process, on the bench's Redis) gives back, as in
                         production; the status e-mail is rendered and sent by the worker too.
- status_change_reopen:  the same to processing, each request on a cancelled order whose stock
                         the worker gave back: the request takes the two lines' stock again
                         (checked, ledger rows, stock fields); goal p50 <= 8x F-pkw.

The worker's share: after each measurement of a status case the bench waits for the worker's
queue to empty and charges the CPU seconds the worker's processes used meanwhile (from
/proc) to the case, per request. The goals count "request plus the worker's share": the
notes give (case p50 + worker CPU per request) / F-pkw p50 per round, median (min-max),
beside the harness's request-only ratios.

Contention (after the cases, same database and worker): status changes alternating cancel
and reopen on orders that all share the same two products (their lines in either order), at
1 connection and at 8, the server running 8 sync workers so that the 8 connections wait on
rows and cores rather than on the server's accept queue; goal p50 at 8 <= 2x p50 at 1
(median over the rounds). Beside it, p50 at 8 connections on the moving orders (spread over
20 products) tells what the shared rows add to what the cores cost. Reported as the case
`status_change_contention` (its "floor" F-1conn: the p50 at one connection), a note, and
under "contention" in the JSON.

The orders of each status case are those in the status it moves from, as last answered:
statuses are kept in a file beside the bench's other run files, so a run starts from where
the previous one left every order. An order comes back only after the worker has given its
stock back (each measurement starts with the worker's queue empty). Before each measurement
of a status case, when fewer orders than it could move in its time are in its source status
(250 a second), orders of the other status are moved back through the services and the
worker's work waited for (`top_up`); a case that still ran out counts `exhausted` (its
requests then change nothing, which would flatter it).

    .venv/bin/python -m bench.bench_orders --rounds 5 --seconds 3
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from bench import harness
from bench.harness import Case, run_bench
from bench.harness import runner as harness_runner

NAME = "orders"
SEED_VERSION = "3"
ORDERS = 100_000
MOVING = 3_000  # half processing, half cancelled (released) at the seed
HOT = 1_000  # sharing the same two products, for the contention measurement
PRODUCTS = 20
CONTENTION_CONNECTIONS = (1, 8)
CONTENTION_WORKERS = 8
CONTENTION_GOAL = 2.0
SHARE_CASES = {"status_change_cancel", "status_change_reopen"}


def seed() -> dict:
    import base64
    from decimal import Decimal

    from django.contrib.auth.models import Group

    from accounts import services as account_services
    from accounts.models import User
    from bench import scale_orders
    from store.catalog.services import products as product_services
    from store.common.capabilities import SHOP_MANAGER_ROLE
    from store.orders import services

    STATE_FILE.unlink(missing_ok=True)  # the statuses of the previous database's orders
    scale_orders.seed(ORDERS)
    products = [
        product_services.product_create(
            fields={
                "title": f"Bench product {n}",
                "status": "active",
                "sku": f"BENCH-{n}",
                "regular_price": Decimal(5 + n),
                "stock_quantity": 1_000_000,
            }
        ).pk
        for n in range(PRODUCTS + 2)
    ]
    hot_a, hot_b = products[PRODUCTS:]
    statuses: dict[int, str] = {}

    def placed(n: int, lines: list[dict]) -> int:
        status = "processing" if n % 2 == 0 else "cancelled"  # cancelled: holds nothing
        pk = services.order_create(
            items=lines,
            status=status,
            billing_address={"email": f"moving{n}@example.com", "first_name": "Mo"},
        ).pk
        statuses[pk] = status
        return pk

    moving = [
        placed(
            n,
            [
                {"product_id": products[n % PRODUCTS], "quantity": 1 + n % 3},
                {"product_id": products[(n * 7 + 3) % PRODUCTS], "quantity": 1},
            ],
        )
        for n in range(MOVING)
    ]
    hot = [
        placed(
            n,
            [
                {"product_id": hot_a if n % 4 < 2 else hot_b, "quantity": 1},
                {"product_id": hot_b if n % 4 < 2 else hot_a, "quantity": 1},
            ],
        )
        for n in range(HOT)
    ]
    STATE_FILE.parent.mkdir(parents=True, exist_ok=True)
    STATE_FILE.write_text("".join(f"{pk} {status}\n" for pk, status in statuses.items()))
    user = User.objects.create_user(email="bench@example.com", name="Bench", password=None)
    user.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    _record, raw = account_services.app_password_create(user=user, name="bench")
    token = base64.b64encode(f"{user.email}:{raw}".encode()).decode()
    return {
        "auth": f"Basic {token}",
        "orders": ",".join(map(str, moving)),
        "hot": ",".join(map(str, hot)),
    }


# Each wrk run is a new Lua state: the orders' statuses as last answered are kept in a file
# (read at the start, appended on each answer). The one-way script moves orders found in FROM
# to TO; the flipping script moves each order it visits to the other status.
STATE_FILE = harness.ROOT / "var" / "bench" / NAME / "statuses.txt"
LUA_STATE = """
local orders, now = {{}}, {{}}
for o in string.gmatch("@ORDERS@", "[^,]+") do table.insert(orders, o) end
local saved = io.open("@STATE@", "r")
if saved then
  for line in saved:lines() do
    local id, st = string.match(line, "^(%d+) ([%a_-]+)$")
    if id then now[id] = st end
  end
  saved:close()
end
local log = io.open("@STATE@", "a")

function response(status, headers, body)
  if status == 200 and body then
    local id = string.match(body, '"id":%s*(%d+)')
    local st = string.match(body, '"status":%s*"([%a_-]+)"')
    if id and st then
      now[id] = st
      log:write(id, " ", st, "\\n")
      log:flush()
    end
  end
end

local function patch(id, status)
  local headers = {{}}
  headers["Content-Type"] = "application/json"
  headers["Authorization"] = "{auth}"
  return wrk.format(
    "PATCH", "/rest/ec/v1/orders/" .. id .. "/status", headers,
    '{{"status": "' .. status .. '"}}'
  )
end
""".replace("@STATE@", str(STATE_FILE))

ONE_WAY_LUA = (
    LUA_STATE
    + """
local todo = {{}}
for _, id in ipairs(orders) do
  if (now[id] or "processing") == "@FROM@" then table.insert(todo, id) end
end
local n = 0

function request()
  n = n + 1
  if n > #todo then
    bench_counts["exhausted"] = (bench_counts["exhausted"] or 0) + 1
  end
  local id = #todo > 0 and todo[((n - 1) % #todo) + 1] or orders[1]
  return patch(id, "@TO@")
end
"""
)

FLIP_LUA = (
    LUA_STATE
    + """
local n = 0

function request()
  n = n + 1
  local id = orders[(n % #orders) + 1]
  local status = (now[id] == "cancelled") and "processing" or "cancelled"
  now[id] = status
  return patch(id, status)
end
"""
)


def one_way(source: str, target: str) -> str:
    return (
        ONE_WAY_LUA.replace("@ORDERS@", "{orders}")
        .replace("@FROM@", source)
        .replace("@TO@", target)
    )


STATUS_HEADERS = {"Content-Type": "application/json", "Authorization": "{auth}"}

CASES = [
    Case(
        "order_list",
        method="GET",
        path="/rest/ec/v1/orders?per_page=100",
        headers={"Authorization": "{auth}"},
        floor="pk",
        goal_p50=3.0,
    ),
    Case(
        "status_change_cancel",
        method="PATCH",
        path="/rest/ec/v1/orders/0/status",
        headers=STATUS_HEADERS,
        floor="pkw",
        goal_p50=6.0,
        lua=one_way("processing", "cancelled"),
    ),
    Case(
        "status_change_reopen",
        method="PATCH",
        path="/rest/ec/v1/orders/0/status",
        headers=STATUS_HEADERS,
        floor="pkw",
        goal_p50=8.0,
        lua=one_way("cancelled", "processing"),
    ),
]


# --- The worker's share ------------------------------------------------------------------------


def _proc_times(pid: int) -> tuple[float, int]:
    """(CPU seconds of the process and of its reaped children, parent pid) from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    # after the name: state ppid ... utime(12) stime(13) cutime(14) cstime(15), 0-based here
    utime, stime, cutime, cstime = (int(v) for v in fields[11:15])
    return (utime + stime + cutime + cstime) / ticks, int(fields[1])


def worker_cpu_seconds(root: int) -> float:
    """CPU seconds used so far by the worker `root` and every process below it (Celery's
    prefork child does the work)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            seconds, parent = _proc_times(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
        parents[int(entry.name)] = parent
        times[int(entry.name)] = seconds
    total = 0.0
    for pid, seconds in times.items():
        node = pid
        while node and node != root:
            node = parents.get(node, 0)
        if node == root:
            total += seconds
    return total


def charge_worker(worker_pid: int) -> None:
    """Wrap the harness's measurement so that a status case starts with enough orders to move
    (top_up) and its measurement waits for the worker's queue to empty and records the
    worker's CPU seconds meanwhile (per request)."""
    measure = harness_runner._measure

    def measured(port: int, case: Case, args) -> dict:
        if case.name not in SHARE_CASES:
            return measure(port, case, args)
        moved = top_up(SOURCES[case.name], needed=math.ceil(TOP_UP_RATE * args.seconds))
        if moved:
            print(f"  [{case.name}: {moved} orders moved back to {SOURCES[case.name]} first]")
        before = worker_cpu_seconds(worker_pid)
        result = measure(port, case, args)
        harness.settle()  # the tasks this measurement enqueued, charged to it
        spent = worker_cpu_seconds(worker_pid) - before
        result["worker_cpu_s"] = spent
        result["worker_ms_per_request"] = 1000 * spent / max(result["requests"], 1)
        return result

    harness_runner._measure = measured


def share_notes(output: dict) -> list[str]:
    notes = []
    for summary in output["cases"]:
        if summary["case"] not in SHARE_CASES or summary.get("error"):
            continue
        rounds = [r for r in summary["rounds"] if "worker_ms_per_request" in r["case"]]
        if not rounds:
            continue
        share = harness.spread(r["case"]["worker_ms_per_request"] for r in rounds)
        total = harness.spread(
            (r["case"]["p50_ms"] + r["case"]["worker_ms_per_request"]) / r["floor"]["p50_ms"]
            for r in rounds
        )
        goal = summary["goal_p50"]
        summary["worker_ms_per_request"] = share
        summary["p50_plus_worker_ratio"] = total
        summary["p50_plus_worker_passed"] = total["median"] <= goal
        notes.append(
            f"{summary['case']}: worker CPU {share['median']:.2f} ms per request "
            f"({share['min']:.2f}-{share['max']:.2f}); request p50 + worker share = "
            f"{harness.fmt_spread(total)} F-pkw p50, goal <= {goal:g}x: "
            f"{harness.pass_text(total['median'] <= goal)}"
        )
    return notes


# --- Enough orders to move ----------------------------------------------------------------------

# The status each one-way case moves orders from, and a bound on the changes per second a
# case makes on this machine (about 100-150 are measured): a measurement of S seconds finds
# at least TOP_UP_RATE * S orders in its source status (at most half the moving orders).
SOURCES = {"status_change_cancel": "processing", "status_change_reopen": "cancelled"}
TOP_UP_RATE = 250


def statuses() -> dict[str, str]:
    """The moving orders' statuses as last answered (the statuses file; an order's last
    line wins)."""
    now: dict[str, str] = {}
    if STATE_FILE.exists():
        for line in STATE_FILE.read_text().splitlines():
            parts = line.split()
            if len(parts) == 2:
                now[parts[0]] = parts[1]
    return now


def top_up(source: str, *, needed: int) -> int:
    """Before a one-way case: when fewer than `needed` moving orders are in its source
    status, orders of the other one are moved there through the services, as a manager's
    change (their stock given back or taken again, their e-mails sent), the worker's work is
    waited for and the statuses file told. A case that ran out of orders answered "the same
    status again" for nothing, which flattered it. Answers how many orders moved."""
    from common.errors import ServiceError
    from store.orders import services

    needed = min(needed, MOVING // 2)
    now = statuses()
    ids = _seed_ctx()["orders"].split(",")
    ready = sum(1 for pk in ids if now.get(pk, "processing") == source)
    if ready >= needed:
        return 0
    lines = []
    for pk in [pk for pk in ids if now.get(pk, "processing") != source][: needed - ready]:
        try:
            order = services.order_status_set(order_id=int(pk), status=source, note="bench")
        except ServiceError:
            continue  # left where it is: the case does not count on it
        lines.append(f"{pk} {order.status}\n")
    with STATE_FILE.open("a") as file:
        file.writelines(lines)
    harness.settle()  # the releases and e-mails of the moves, before the measurement
    return len(lines)


# --- Contention --------------------------------------------------------------------------------


def _seed_ctx() -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT ctx FROM bench_seed WHERE name = %s", [NAME])
        (ctx,) = cursor.fetchone()
    return ctx if isinstance(ctx, dict) else json.loads(ctx)


def contention(args) -> dict:
    """p50 at 1 and at 8 connections on the hot orders (sharing two products), and at 8 on
    the moving orders (spread over 20 products) for comparison, the order of the three
    alternating per round."""
    ctx = _seed_ctx()
    redis_url = os.environ.get("BENCH_REDIS_URL") or harness.DEFAULT_REDIS
    env = harness.server_env(NAME, harness.database_url(NAME), redis_url)

    def script(ids: str) -> str:
        return (
            FLIP_LUA.replace("@ORDERS@", ids)
            .replace("{auth}", ctx["auth"])
            .replace("{{", "{")
            .replace("}}", "}")
        )

    runs = {"1": (script(ctx["hot"]), 1), "8": (script(ctx["hot"]), 8)}
    runs["8 spread"] = (script(ctx["orders"]), 8)
    headers = {"Content-Type": "application/json", "Authorization": ctx["auth"]}

    def measure(label: str, seconds: float) -> dict:
        lua, connections = runs[label]
        return harness.run_wrk(
            args.port,
            method="PATCH",
            path="/rest/ec/v1/orders/0/status",
            body=None,
            headers=headers,
            expect_status=200,
            lua=lua,
            seconds=seconds,
            connections=connections,
            threads=1,
        )

    process = harness.start_server(env, port=args.port, workers=CONTENTION_WORKERS)
    rounds: list[dict] = []
    try:
        for label in runs:  # warm-up
            measure(label, args.warmup or 1)
        for number in range(args.rounds):
            labels = list(runs)
            if number % 2:
                labels.reverse()
            measured = {}
            for label in labels:
                harness.settle()
                measured[label] = measure(label, args.seconds)
            one, many, spread = measured["1"], measured["8"], measured["8 spread"]
            print(
                f"  contention round {number + 1}: p50 {one['p50_ms']:.2f} ms at 1 connection "
                f"({one['rps']:.0f} req/s), {many['p50_ms']:.2f} ms at 8 ({many['rps']:.0f} "
                f"req/s): {many['p50_ms'] / one['p50_ms']:.2f}x; at 8 on orders spread over "
                f"{PRODUCTS} products {spread['p50_ms']:.2f} ms ({spread['rps']:.0f} req/s)"
            )
            rounds.append(measured)
    finally:
        harness.stop_server(process)
    bad = max(harness.bad_share(m) for r in rounds for m in r.values())
    ratio = harness.spread(r["8"]["p50_ms"] / r["1"]["p50_ms"] for r in rounds)
    return {
        "workers": CONTENTION_WORKERS,
        "goal": CONTENTION_GOAL,
        "rounds": rounds,
        "p50_1_ms": harness.spread(r["1"]["p50_ms"] for r in rounds),
        "p50_8_ms": harness.spread(r["8"]["p50_ms"] for r in rounds),
        "rps_1": harness.spread(r["1"]["rps"] for r in rounds),
        "rps_8": harness.spread(r["8"]["rps"] for r in rounds),
        "ratio": ratio,
        "shared_over_spread": harness.spread(
            r["8"]["p50_ms"] / r["8 spread"]["p50_ms"] for r in rounds
        ),
        "bad_share": bad,
        "passed": bad <= harness.MAX_BAD_SHARE and ratio["median"] <= CONTENTION_GOAL,
    }


def contention_row(result: dict) -> dict:
    """The contention as a row of the cases' table (bench/results.md): its "floor" is the p50
    at one connection (`F-1conn`)."""
    bad = result["bad_share"] > harness.MAX_BAD_SHARE
    return {
        "case": "status_change_contention",
        "method": "PATCH",
        "path": "/rest/ec/v1/orders/{id}/status",
        "floor": "1conn",
        "goal_p50": result["goal"],
        "goal_p99": None,
        "error": f"refused: {result['bad_share']:.0%} of the answers were not 200" if bad else None,
        "p50_ratio": result["ratio"],
        "p99_ratio": harness.spread(r["8"]["p99_ms"] / r["1"]["p99_ms"] for r in result["rounds"]),
        "throughput_ratio": harness.spread(r["1"]["rps"] / r["8"]["rps"] for r in result["rounds"]),
        "passed": result["passed"],
    }


def contention_note(result: dict) -> str:
    one, many = result["p50_1_ms"], result["p50_8_ms"]
    verdict = harness.pass_text(result["passed"])
    if result["bad_share"] > harness.MAX_BAD_SHARE:
        verdict = f"ERROR: {result['bad_share']:.0%} of the answers were not 200"
    return (
        f"status_contention (cancel/reopen on {HOT} orders sharing 2 products, server "
        f"{result['workers']} workers): p50 {many['median']:.1f} ms at 8 connections vs "
        f"{one['median']:.1f} ms at 1 = {harness.fmt_spread(result['ratio'])}, goal <= "
        f"{result['goal']:g}x: {verdict}; req/s {result['rps_8']['median']:.0f} at 8 vs "
        f"{result['rps_1']['median']:.0f} at 1; at 8 connections, p50 on the shared products "
        f"/ p50 on orders spread over {PRODUCTS} products = "
        f"{harness.fmt_spread(result['shared_over_spread'])}"
    )


def main(argv: list[str] | None = None) -> int:
    args = harness.parse_args(argv, NAME)
    code = 0
    with harness.celery_worker(NAME) as worker:
        charge_worker(worker.pid)
        try:
            output = run_bench(NAME, seed=seed, cases=CASES, seed_version=SEED_VERSION, argv=argv)
        except SystemExit as exc:  # a refused case: its JSON is written; go on with the rest
            code = exc.code if isinstance(exc.code, int) else 1
            path = harness.OUT_DIR / f"{NAME}.json"
            if not path.exists():
                raise
            output = json.loads(path.read_text())
        notes = share_notes(output)
        if not args.only:
            result = contention(args)
            output["contention"] = result
            output["cases"].append(contention_row(result))
            notes.append(contention_note(result))
    output["notes"] = notes
    path = harness.OUT_DIR / f"{NAME}.json"
    path.write_text(json.dumps(output, indent=2, default=str))
    print()
    for note in notes:
        print(note)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
