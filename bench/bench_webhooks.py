"""Webhook deliveries through one real Celery worker, as a ratio against a no-op task floor.

Each round measures, back to back (the order alternating between rounds):
- floor:      N*W no-op tasks (`common.ping`) through the same broker and worker: tasks/s from
              the first publish until the worker has run the last;
- deliveries: N licence events emitted in batches of 100 (as a bulk licence create publishes
              them) to an account with W webhooks, all pointing at a local receiver:
              deliveries/s from the first commit until every delivery is recorded as
              succeeded (fan-out task, batched claim, signed POST over a kept-alive
              connection, batched log insert with pruning).
and prints the median (min-max) over the rounds of both rates and of their ratio (goal:
deliveries/s >= 0.5x no-op tasks/s).

It cannot go through the HTTP harness (the load is a queue, not requests), but it uses the
harness's database (PostgreSQL `emporion_bench_webhooks`, BENCH_DATABASE_URL /
BENCH_DB_PREFIX), Redis (BENCH_REDIS_URL, default db 12) and writes bench/out/webhooks.json
for bench/results.md. The worker consumes the default queue of that Redis database.

    .venv/bin/python -m bench.bench_webhooks --rounds 5 --events 200 --webhooks 2
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import bench.harness as harness

NAME = "webhooks"
GOAL = 0.5
EMIT_BATCH = 100
WORKER_COUNTS = (1, 2)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=200, help="events per round (N)")
    parser.add_argument("--webhooks", type=int, default=2, help="webhooks of the account (W)")
    parser.add_argument("--concurrency", type=int, default=1, help="processes per worker")
    parser.add_argument(
        "--worker-counts",
        type=int,
        nargs="+",
        default=WORKER_COUNTS,
        help="how many workers each measurement runs on (default 1 2)",
    )
    # `make bench` gives every bench the harness's options (--seconds, --connections, ...):
    # --rounds is taken, the others do not apply to a queue and are ignored.
    args, ignored = parser.parse_known_args(argv)
    if ignored:
        print(f"[bench] webhooks: ignoring {' '.join(ignored)} (not for a queue)")
    if min(args.worker_counts) < 1:
        parser.error("--worker-counts: counts of at least 1")
    return args


class Receiver:
    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()
                with receiver.lock:
                    receiver.count += 1

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"


def start_worker(env: dict, queues: str, concurrency: int, hostname: str) -> subprocess.Popen:
    return subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            f"--concurrency={concurrency}",
            f"--queues={queues}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=WARNING",
            f"--hostname={hostname}",
        ],
        cwd=harness.ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,  # the banner; warnings and errors still reach stderr
    )


def wait_ready(app, hostname: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while not app.control.ping(destination=[hostname], timeout=1.0):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"worker {hostname} did not start")


def use_workers(app, hostnames: list[str], count: int, queues: list[str]) -> None:
    """The first `count` workers consume the queues, the others not (their processes stay up,
    so a measurement never pays a worker's start)."""
    for n, hostname in enumerate(hostnames):
        for queue in queues:
            command = app.control.add_consumer if n < count else app.control.cancel_consumer
            if not command(queue, destination=[hostname], reply=True, timeout=5.0):
                raise SystemExit(f"worker {hostname} did not answer the consumer change")


def floor_rate(n: int, queue: str, workers: int) -> float:
    """No-op tasks/s through `workers` workers: n tasks published, the last `workers` with a
    result; done when those answered. With one worker process the last runs after every other;
    with several, another worker may still run the one task it took before (at most one of n
    per other worker: a prefetch of one, acks late)."""
    from common.tasks import ping

    started = time.perf_counter()
    for _ in range(n - workers):
        ping.apply_async(queue=queue, ignore_result=True)
    last = [ping.apply_async(queue=queue) for _ in range(workers)]
    assert all(result.get(timeout=300) == "pong" for result in last)
    return n / (time.perf_counter() - started)


def delivery_rate(account, receiver: Receiver, events: int, webhooks: int) -> float:
    from django.db import transaction

    from webhooks import services
    from webhooks.models import Delivery

    total = events * webhooks
    before = receiver.count
    data = {"license_id": 1, "license_key": "EMP-BENC-HMAR-KING", "tier": "starter"}
    started = time.perf_counter()
    for start in range(0, events, EMIT_BATCH):
        with transaction.atomic():
            services.emit_many(
                [(account, "license.created", data)] * min(EMIT_BATCH, events - start)
            )
    deadline = time.monotonic() + 600
    while receiver.count - before < total:
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out: {receiver.count - before}/{total} received")
        time.sleep(0.005)
    pending = Delivery.objects.filter(webhook__account=account, status="pending")
    while pending.exists():  # the last results recorded
        time.sleep(0.005)
    elapsed = time.perf_counter() - started
    failed = Delivery.objects.filter(webhook__account=account, status="failed").count()
    assert failed == 0, f"{failed} deliveries failed"
    return total / elapsed


def main(argv=None) -> None:
    args = parse_args(argv)
    db_url = harness.database_url(NAME)
    redis_url = os.environ.get("BENCH_REDIS_URL") or harness.DEFAULT_REDIS
    env = harness.server_env(NAME, db_url, redis_url)
    env["WEBHOOKS_ALLOW_PRIVATE_URLS"] = "1"  # the receiver is on loopback
    harness.prepare_database(NAME, seed=None, seed_version="1", reseed=False, env=env)

    from accounts.models import AccountType, User
    from config.celery import app
    from webhooks import services

    # The default queue (the no-op floor) and the webhooks queue (deliveries and the chunks
    # of a fan-out) on the bench's own Redis database, consumed by the workers.
    queue = app.conf.task_default_queue
    queues = [queue, "webhooks"]
    app.control.purge()  # what an interrupted run left
    account = User.objects.create_user(
        f"bench-{uuid.uuid4().hex[:6]}@example.com",
        "Bench-Pass-2026",
        name="Bench",
        type=AccountType.RESELLER,
        email_verified=True,
    )
    receiver = Receiver()
    for _ in range(args.webhooks):
        services.webhook_create(account=account, url=receiver.url, events=["license.created"])
    total = args.events * args.webhooks
    counts = sorted(set(args.worker_counts))
    hostnames = [f"bench{n}-{uuid.uuid4().hex[:6]}@webhooks" for n in range(max(counts))]
    workers = [
        start_worker(env, ",".join(queues), args.concurrency, hostname) for hostname in hostnames
    ]
    rounds: dict[int, list[dict]] = {count: [] for count in counts}
    try:
        for hostname, process in zip(hostnames, workers, strict=True):
            wait_ready(app, hostname, process)
        for count in counts:  # warm-up: every worker up and connected, each count once
            use_workers(app, hostnames, count, queues)
            floor_rate(50, queue, count)
            delivery_rate(account, receiver, min(args.events, 50), args.webhooks)
        for n in range(args.rounds):
            for count in counts if n % 2 == 0 else counts[::-1]:
                use_workers(app, hostnames, count, queues)
                if n % 2:
                    rate = delivery_rate(account, receiver, args.events, args.webhooks)
                    floor = floor_rate(total, queue, count)
                else:
                    floor = floor_rate(total, queue, count)
                    rate = delivery_rate(account, receiver, args.events, args.webhooks)
                rounds[count].append(
                    {"floor_tasks_s": floor, "deliveries_s": rate, "ratio": rate / floor}
                )
                print(
                    f"round {n + 1}, {_workers(count)}: no-op {floor:8.1f} tasks/s, "
                    f"{rate:8.1f} deliveries/s, {rate / floor:.2f}x"
                )
    finally:
        for process in workers:
            process.terminate()
        for process in workers:
            process.wait(timeout=30)
    report(args, rounds, db_url, redis_url)


def _workers(count: int) -> str:
    return f"{count} worker" + ("s" if count > 1 else "")


def case_name(count: int) -> str:
    """The case's name (bench/results.md's label): "webhooks, 1 worker", "webhooks, 2 workers"."""
    return f"webhooks, {_workers(count)}"


def report(args, rounds: dict[int, list[dict]], db_url: str, redis_url: str) -> None:
    total = args.events * args.webhooks
    print(
        f"\nbench webhooks: {args.rounds} rounds, {args.events} events x {args.webhooks} "
        f"webhooks = {total} deliveries per round, workers of {args.concurrency} process(es), "
        f"PostgreSQL + Redis; median (min-max)"
    )
    cases, notes = [], []
    for count, taken in rounds.items():
        ratio = harness.spread(r["ratio"] for r in taken)
        floor = harness.spread(r["floor_tasks_s"] for r in taken)
        rate = harness.spread(r["deliveries_s"] for r in taken)
        passed = ratio["median"] >= GOAL
        print(
            f"{_workers(count):<10} no-op {floor['median']:7.1f} tasks/s "
            f"({floor['min']:.1f}-{floor['max']:.1f}), {rate['median']:7.1f} deliveries/s "
            f"({rate['min']:.1f}-{rate['max']:.1f}), ratio {harness.fmt_spread(ratio)} "
            f"goal >= {GOAL}x: {'pass' if passed else 'FAIL'}"
        )
        cases.append(
            {
                "case": case_name(count),
                "floor": "task",
                "goal_p50": None,
                "goal_p99": None,
                "goal_text": f"deliveries/s ≥ {GOAL:g}x no-op tasks/s",
                "goal_min": GOAL,
                "p50_ratio": ratio,
                "p99_ratio": None,
                "passed": passed,
                "error": None,
                "workers": count,
                "floor_tasks_s": floor,
                "deliveries_s": rate,
                "rounds": taken,
            }
        )
        notes.append(
            f"{case_name(count)}: {rate['median']:.1f} deliveries/s "
            f"({rate['min']:.1f}-{rate['max']:.1f}) over {floor['median']:.1f} no-op tasks/s "
            f"({floor['min']:.1f}-{floor['max']:.1f})"
        )
    if len(rounds) > 1:
        one, *_, most = sorted(rounds)
        gains = [
            b["deliveries_s"] / a["deliveries_s"]
            for a, b in zip(rounds[one], rounds[most], strict=True)
        ]
        gain = harness.spread(gains)
        notes.append(
            f"webhooks: {_workers(most)} deliver {harness.fmt_spread(gain)} what "
            f"{_workers(one)} delivers ({os.cpu_count()} cores)"
        )
        print(notes[-1])
    output = {
        "kind": "bench",
        "bench": NAME,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": harness.git_commit(),
        "cores": os.cpu_count(),
        "run": {
            "rounds": args.rounds,
            "seconds": "-",
            "connections": f"{total} deliveries/round",
            "workers": " and ".join(f"{c} Celery x {args.concurrency}" for c in rounds),
            "database": db_url.rsplit("/", 1)[-1],
            "redis": redis_url,
        },
        "cases": cases,
        "notes": notes,
    }
    harness.OUT_DIR.mkdir(exist_ok=True)
    (harness.OUT_DIR / f"{NAME}.json").write_text(json.dumps(output, indent=2, default=str))
    print(f"written: bench/out/{NAME}.json")


if __name__ == "__main__":
    main()
