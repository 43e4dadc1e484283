"""Webhook deliveries spread over Celery workers: deliveries/s through one worker and through
two, to a receiver that takes 100 ms to answer.

Two real workers, `celery -A config worker --queues=webhooks --concurrency=8` each (prefork,
as docs/deploy.md runs the webhooks queue; --pool threads to compare), in process groups of
their own. Each round
measures, back to back (the order alternating between rounds), --deliveries (1,000) through
the first worker alone (the second's consumer cancelled) and through both: licence events
emitted in transactions of 10 (a request's worth) to an account with --webhooks (10)
webhooks, all on one local receiver: a threaded HTTP server on loopback that answers 204
after --receiver-ms (100) and counts every delivery id (X-Hub-Delivery) it is sent. A
measurement runs from the first commit until every delivery is recorded as succeeded.

Prints each round, then the median (min-max) of both rates and of their ratio (goal: two
workers >= 1.8x one), and over every round: lost (delivery ids the receiver never saw: must be
0), duplicates (ids it saw more than once), failed, and the most requests the receiver held at
once for one webhook (at most WEBHOOK_MAX_IN_FLIGHT); writes bench/out/webhook_scale.json for
bench/results.md. Exits 3 when a delivery was lost.

Its broker and cache are a redis-server the bench starts on a free loopback port and stops at
the end (--redis-url: another, whose database it empties); the database is the harness's
PostgreSQL `emporion_bench_webhook_scale` (BENCH_DATABASE_URL, BENCH_DB_PREFIX).

    .venv/bin/python -m bench.bench_webhook_scale --rounds 3
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import bench.harness as harness

NAME = "webhook_scale"
GOAL = 1.8
EVENTS_PER_COMMIT = 10
QUEUE = "webhooks"
TIMEOUT = 600  # seconds a measurement may take before the bench gives up on it


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--deliveries", type=int, default=1000, help="per measurement")
    parser.add_argument("--webhooks", type=int, default=10, help="receivers' endpoints (<= 10)")
    parser.add_argument("--concurrency", type=int, default=8, help="processes per worker")
    parser.add_argument("--pool", choices=("prefork", "threads"), default="prefork")
    parser.add_argument("--receiver-ms", type=int, default=100, help="the receiver's answer time")
    parser.add_argument("--redis-url", default="", help="use this Redis instead of starting one")
    # `make bench` gives every bench the harness's options (--seconds, --connections, ...):
    # --rounds is taken, the others do not apply to a queue and are ignored.
    args, ignored = parser.parse_known_args(argv)
    if ignored:
        print(f"[bench] {NAME}: ignoring {' '.join(ignored)} (not for a queue)")
    if not 1 <= args.webhooks <= 10 or args.deliveries % (args.webhooks * EVENTS_PER_COMMIT):
        parser.error(
            f"--webhooks is 1-10 and --deliveries a multiple of {EVENTS_PER_COMMIT} x --webhooks"
        )
    return args


class Receiver:
    """Answers 204 after `delay` seconds; counts each delivery id it is sent, and the most
    requests it held at once for one path (one webhook)."""

    def __init__(self, delay: float) -> None:
        self.seen: dict[str, int] = {}
        self.open: dict[str, int] = {}
        self.most_open = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                delivery = self.headers.get("X-Hub-Delivery", "")
                with receiver.lock:
                    receiver.seen[delivery] = receiver.seen.get(delivery, 0) + 1
                    receiver.open[self.path] = receiver.open.get(self.path, 0) + 1
                    receiver.most_open = max(receiver.most_open, receiver.open[self.path])
                time.sleep(delay)
                with receiver.lock:
                    receiver.open[self.path] -= 1
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.request_queue_size = 128
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def received(self, uuids: set[str]) -> tuple[int, int]:
        """(how many of `uuids` arrived, how many arrived more than once in all)."""
        with self.lock:
            arrived = [self.seen[u] for u in uuids if u in self.seen]
        return len(arrived), sum(count - 1 for count in arrived)


# --- Redis and the workers ---------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_redis() -> tuple[subprocess.Popen, str]:
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("redis-server is not installed (or give --redis-url)")
    port = _free_port()
    process = subprocess.Popen(  # noqa: S603 - a fixed binary and our own arguments
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn,
        ):
            conn.sendall(b"PING\r\n")
            if conn.recv(16).startswith(b"+PONG"):
                return process, f"redis://127.0.0.1:{port}/0"
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"redis-server did not start on port {port}")
        time.sleep(0.05)


def start_worker(env: dict, hostname: str, concurrency: int, pool: str) -> subprocess.Popen:
    return subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            f"--queues={QUEUE}",
            f"--concurrency={concurrency}",
            f"--pool={pool}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=WARNING",
            f"--hostname={hostname}",
        ],
        cwd=harness.ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,  # the banner; warnings and errors still reach stderr
        start_new_session=True,  # its own process group: stopping it takes its pool too
    )


def stop_worker(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_ready(app, hostname: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while not app.control.ping(destination=[hostname], timeout=1.0):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"worker {hostname} did not start")


def consume(app, hostname: str, *, on: bool) -> None:
    """Start or stop `hostname` taking tasks from the webhooks queue (its processes stay)."""
    command = app.control.add_consumer if on else app.control.cancel_consumer
    replies = command(QUEUE, destination=[hostname], reply=True, timeout=5.0)
    if not replies:
        raise SystemExit(f"worker {hostname} did not answer the consumer change")


# --- One measurement ---------------------------------------------------------------------------


def deliver(account, receiver: Receiver, total: int, webhooks: int) -> dict:
    """Emit `total` deliveries and wait until every one is recorded: their rate and fate."""
    from django.db import transaction

    from webhooks import services
    from webhooks.models import Delivery

    data = {"license_id": 1, "license_key": "EMP-BENC-HSCA-LEUP", "tier": "starter"}
    events = total // webhooks
    ids: list[int] = []
    started = time.perf_counter()
    for _commit in range(events // EVENTS_PER_COMMIT):
        with transaction.atomic():
            made = services.emit_many([(account, "license.created", data)] * EVENTS_PER_COMMIT)
        ids.extend(delivery.pk for delivery in made)
    uuids = {str(u) for u in Delivery.objects.filter(pk__in=ids).values_list("uuid", flat=True)}
    deadline = time.monotonic() + TIMEOUT
    while receiver.received(uuids)[0] < total and time.monotonic() < deadline:
        time.sleep(0.01)
    pending = Delivery.objects.filter(pk__in=ids, status=Delivery.Status.PENDING)
    while pending.exists() and time.monotonic() < deadline:  # the last results recorded
        time.sleep(0.01)
    elapsed = time.perf_counter() - started
    arrived, duplicates = receiver.received(uuids)
    return {
        "deliveries": total,
        "seconds": round(elapsed, 3),
        "rate": total / elapsed,
        "lost": total - arrived,
        "duplicates": duplicates,
        "failed": Delivery.objects.filter(pk__in=ids, status=Delivery.Status.FAILED).count(),
        "pending": pending.count(),
    }


# --- The run -----------------------------------------------------------------------------------


def main(argv=None) -> int:
    args = parse_args(argv)
    redis_process = None
    if args.redis_url:
        redis_url = args.redis_url
    else:
        redis_process, redis_url = start_redis()
    workers: list[subprocess.Popen] = []
    try:
        db_url = harness.database_url(NAME)
        env = harness.server_env(NAME, db_url, redis_url)
        env["WEBHOOKS_ALLOW_PRIVATE_URLS"] = "1"  # the receiver is on loopback
        harness.prepare_database(NAME, seed=None, seed_version="1", reseed=False, env=env)

        import redis
        from django.conf import settings

        from accounts.models import AccountType, User
        from config.celery import app
        from webhooks import services

        redis.Redis.from_url(redis_url).flushdb()  # the broker's queues and the cache's slots
        account = User.objects.create_user(
            f"bench-{uuid.uuid4().hex[:6]}@example.com",
            "Bench-Pass-2026",
            name="Bench",
            type=AccountType.RESELLER,
            email_verified=True,
        )
        receiver = Receiver(args.receiver_ms / 1000)
        for n in range(args.webhooks):
            services.webhook_create(
                account=account, url=f"{receiver.url}/hook/{n}", events=["license.created"]
            )
        names = [f"scale{n}-{uuid.uuid4().hex[:6]}@bench" for n in (1, 2)]
        for name in names:
            workers.append(start_worker(env, name, args.concurrency, args.pool))
        for name, process in zip(names, workers, strict=True):
            wait_ready(app, name, process)
        print(
            f"[bench] 2 workers x {args.concurrency} processes up; receiver answers in "
            f"{args.receiver_ms} ms; cap {settings.WEBHOOK_MAX_IN_FLIGHT} in flight per webhook"
        )
        deliver(account, receiver, args.webhooks * 20, args.webhooks)  # warm-up, both workers

        def measure(count: int) -> dict:
            consume(app, names[1], on=count == 2)
            return deliver(account, receiver, args.deliveries, args.webhooks)

        rounds = []
        for n in range(args.rounds):
            order = (1, 2) if n % 2 == 0 else (2, 1)
            result = {count: measure(count) for count in order}
            one, two = result[1], result[2]
            rounds.append({"one": one, "two": two, "ratio": two["rate"] / one["rate"]})
            print(
                f"round {n + 1}: 1 worker {one['rate']:6.1f} deliveries/s, 2 workers "
                f"{two['rate']:6.1f}/s, {two['rate'] / one['rate']:.2f}x; lost "
                f"{one['lost'] + two['lost']}, duplicates {one['duplicates'] + two['duplicates']}"
            )
        in_flight = {"most": receiver.most_open, "cap": settings.WEBHOOK_MAX_IN_FLIGHT}
    finally:
        for process in workers:
            stop_worker(process)
        if redis_process is not None:
            redis_process.terminate()
            redis_process.wait(timeout=10)

    return report(args, rounds, db_url, in_flight)


def report(args, rounds: list[dict], db_url: str, in_flight: dict) -> int:
    one = harness.spread(r["one"]["rate"] for r in rounds)
    two = harness.spread(r["two"]["rate"] for r in rounds)
    ratio = harness.spread(r["ratio"] for r in rounds)
    runs = [r[count] for r in rounds for count in ("one", "two")]
    lost = sum(run["lost"] for run in runs)
    duplicates = sum(run["duplicates"] for run in runs)
    failed = sum(run["failed"] for run in runs)
    passed = ratio["median"] >= GOAL and lost == 0
    print(
        f"\nbench {NAME}: {args.rounds} rounds of {args.deliveries} deliveries to "
        f"{args.webhooks} webhooks (receiver {args.receiver_ms} ms), workers of "
        f"{args.concurrency} ({args.pool}); median (min-max)"
    )
    print(f"1 worker        {one['median']:7.1f} deliveries/s ({one['min']:.1f}-{one['max']:.1f})")
    print(f"2 workers       {two['median']:7.1f} deliveries/s ({two['min']:.1f}-{two['max']:.1f})")
    print(
        f"ratio           {harness.fmt_spread(ratio)}  goal >= {GOAL}x: "
        f"{'pass' if passed else 'FAIL'}"
    )
    print(f"lost {lost}, duplicates {duplicates}, failed {failed} of {len(runs) * args.deliveries}")
    print(f"most deliveries in flight to one webhook: {in_flight['most']} (cap {in_flight['cap']})")
    rate_text = (
        f"1 worker {one['median']:.1f} deliveries/s ({one['min']:.1f}-{one['max']:.1f}), "
        f"2 workers {two['median']:.1f} ({two['min']:.1f}-{two['max']:.1f}); receiver "
        f"{args.receiver_ms} ms, {args.webhooks} webhooks"
    )
    output = {
        "kind": "bench",
        "bench": NAME,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": harness.git_commit(),
        "cores": os.cpu_count(),
        "run": {
            "rounds": args.rounds,
            "seconds": "-",
            "connections": f"{args.deliveries} deliveries/round",
            "workers": f"1 and 2 Celery x {args.concurrency} ({args.pool})",
            "database": db_url.rsplit("/", 1)[-1],
        },
        "cases": [
            {
                "case": f"2 workers' deliveries/s over 1 worker's (goal >= {GOAL}x)",
                "floor": "worker",
                "goal_p50": None,
                "goal_p99": None,
                "p50_ratio": ratio,
                "p99_ratio": None,
                "passed": passed,
                "error": None,
                "one_worker_s": one,
                "two_workers_s": two,
                "rounds": rounds,
            }
        ],
        "notes": [
            f"{NAME}: {rate_text}",
            f"{NAME}: lost {lost}, duplicates {duplicates}, failed {failed} "
            f"of {len(runs) * args.deliveries}; at most {in_flight['most']} in flight to one "
            f"webhook (cap {in_flight['cap']})",
        ],
        "in_flight": in_flight,
    }
    harness.OUT_DIR.mkdir(exist_ok=True)
    (harness.OUT_DIR / f"{NAME}.json").write_text(json.dumps(output, indent=2, default=str))
    print(f"written: bench/out/{NAME}.json")
    return 3 if lost else 0


if __name__ == "__main__":
    raise SystemExit(main())
