"""Scaling out on one machine (docs/deploy.md): two web processes on
separate ports and two Celery workers, against one PostgreSQL and one Redis.

1. Web: gunicorn processes with one worker each on two ports. Each round measures, back to
   back (the order alternating), the requests/s of one process (wrk on port A) and of two
   (two wrk processes at once, half the connections each, on ports A and B), for a real
   route (`GET /rest/ec/v1/products?per_page=20` as an anonymous shopper: the store's public
   catalog list, Redis cache and throttle on) and the F-pk floor; prints the median (min-max)
   of the throughput ratio two/one.
2. Workers: two Celery workers (separate process groups, each with `--beat`: the beat lock
   lets one of them schedule) deliver N webhook deliveries to a local receiver that answers
   slowly (so tasks are in flight). The worker that holds the beat lock is killed with SIGKILL
   (its pool included) once a quarter of the deliveries arrived. The survivor's beat takes the
   lock over and re-dispatches what the dead worker had claimed or had not started; the run
   ends when the database shows every delivery succeeded. Prints delivered, duplicates (the
   receiver saw a delivery id twice: webhooks are at-least-once), lost (must be 0) and the
   times.

    .venv/bin/python -m bench.scale_out --rounds 3 --seconds 5 --deliveries 300
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import bench.harness as harness

NAME = "scale_out"
SEED_VERSION = "1"
PORTS = (8731, 8732)
PRODUCTS_PATH = "/rest/ec/v1/products?per_page=20"


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--deliveries", type=int, default=300)
    parser.add_argument("--receiver-ms", type=int, default=40, help="receiver's answer time")
    parser.add_argument("--skip-web", action="store_true")
    parser.add_argument("--skip-workers", action="store_true")
    args, ignored = parser.parse_known_args(argv)
    if ignored:
        print(f"[bench] scale_out: ignoring {' '.join(ignored)}")
    return args


def seed() -> dict:
    from decimal import Decimal

    from store.catalog.services import products as product_services

    for n in range(200):
        product_services.product_create(
            fields={
                "title": f"Scale product {n}",
                "status": "active",
                "sku": f"SCALE-{n}",
                "regular_price": Decimal(10 + n % 50),
            }
        )
    return {}


# --- 1. Web ------------------------------------------------------------------------------------


def _wrk(port: int, path: str, seconds: float, connections: int) -> dict:
    return harness.run_wrk(
        port,
        method="GET",
        path=path,
        body=None,
        headers={},
        expect_status=200,
        lua=None,
        seconds=seconds,
        connections=connections,
        threads=1,
    )


def _rps(measurement: dict) -> float:
    assert harness.bad_share(measurement) <= harness.MAX_BAD_SHARE, measurement
    return measurement["rps"]


def one_process(path: str, args) -> float:
    return _rps(_wrk(PORTS[0], path, args.seconds, args.connections))


def two_processes(path: str, args) -> float:
    results: list[dict] = []

    def load(port):
        results.append(_wrk(port, path, args.seconds, max(1, args.connections // 2)))

    threads = [threading.Thread(target=load, args=(port,)) for port in PORTS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(_rps(result) for result in results)


def web(env: dict, args) -> list[dict]:
    servers = [harness.start_server(env, port=port, workers=1) for port in PORTS]
    out = []
    try:
        for label, path in (("F-pk", harness.FLOOR_PATHS["pk"][1]), ("products", PRODUCTS_PATH)):
            _wrk(PORTS[0], path, 1, 2)  # warm-up: the cache filled, connections open
            _wrk(PORTS[1], path, 1, 2)
            rounds = []
            for n in range(args.rounds):
                if n % 2:
                    two = two_processes(path, args)
                    one = one_process(path, args)
                else:
                    one = one_process(path, args)
                    two = two_processes(path, args)
                rounds.append({"one": one, "two": two, "ratio": two / one})
                print(f"  {label} round {n + 1}: 1 process {one:7.1f} req/s, 2 {two:7.1f}")
            ratio = harness.spread(r["ratio"] for r in rounds)
            print(f"{label}: two processes / one = {harness.fmt_spread(ratio)}")
            out.append({"route": label, "ratio": ratio, "rounds": rounds})
    finally:
        for server in servers:
            harness.stop_server(server)
    return out


# --- 2. Workers --------------------------------------------------------------------------------


class SlowReceiver:
    """Counts every delivery id it is sent; answers 204 after `delay` seconds."""

    def __init__(self, delay: float) -> None:
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle(self):  # a killed worker's connection ends mid-request: not an error
                with contextlib.suppress(ConnectionError):
                    super().handle()

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                time.sleep(delay)
                delivery = self.headers.get("X-Hub-Delivery", "")
                with receiver.lock:
                    receiver.seen[delivery] = receiver.seen.get(delivery, 0) + 1
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"


def start_worker(env: dict, name: str) -> subprocess.Popen:
    return subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--beat",
            "--concurrency=2",
            "--queues=celery,webhooks",
            "--without-gossip",
            "--without-mingle",
            "--loglevel=WARNING",
            f"--hostname={name}-{uuid.uuid4().hex[:6]}@%h",
        ],
        cwd=harness.ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: a kill takes its pool too
    )


def _lock_holder(redis_url: str) -> str | None:
    import redis

    from common.beat import LOCK_KEY

    value = redis.Redis.from_url(redis_url).get(LOCK_KEY)
    return value.decode() if value else None


def workers(env: dict, redis_url: str, args) -> dict:
    from django.db import transaction

    from accounts.models import AccountType, User
    from config.celery import app
    from webhooks import services
    from webhooks.models import Delivery

    app.control.purge()
    import redis

    from common.beat import LOCK_KEY

    redis.Redis.from_url(redis_url).delete(LOCK_KEY)
    receiver = SlowReceiver(args.receiver_ms / 1000)
    account = User.objects.create_user(
        f"scale-{uuid.uuid4().hex[:6]}@example.com",
        "Scale-Pass-2026",
        name="Scale",
        type=AccountType.RESELLER,
        email_verified=True,
    )
    services.webhook_create(account=account, url=receiver.url, events=["license.created"])
    first = start_worker(env, "first")
    deadline = time.monotonic() + 60
    while _lock_holder(redis_url) is None:  # the first worker's beat holds the lock
        if time.monotonic() > deadline or first.poll() is not None:
            raise SystemExit("the first worker's beat never took the lock")
        time.sleep(0.2)
    second = start_worker(env, "second")
    time.sleep(3)  # the second is up and consuming
    total = args.deliveries
    data = {"license_id": 1, "license_key": "EMP-SCAL-EOUT-TEST", "tier": "starter"}
    started = time.monotonic()
    for start in range(0, total, 50):
        with transaction.atomic():
            services.emit_many([(account, "license.created", data)] * min(50, total - start))
    killed_at = None
    pending = Delivery.objects.filter(webhook__account=account, status="pending")
    try:
        while len(receiver.seen) < total // 4:
            if time.monotonic() - started > 120:
                raise SystemExit(f"too slow: {len(receiver.seen)} received")
            time.sleep(0.01)
        os.killpg(first.pid, signal.SIGKILL)  # the beat's holder, mid-task
        killed_at = time.monotonic()
        at_kill = len(receiver.seen)
        print(f"  killed the first worker (beat holder) after {at_kill} deliveries")
        deadline = time.monotonic() + 600
        while pending.exists():
            if time.monotonic() > deadline:
                raise SystemExit(f"lost: {pending.count()} deliveries still pending")
            time.sleep(0.5)
        finished = time.monotonic()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(first.pid, signal.SIGKILL)
        second.terminate()
        try:
            second.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(second.pid, signal.SIGKILL)
    # Finished deliveries beyond the log's newest 100 are pruned from the database, so the
    # receiver's count of distinct delivery ids is the measure; none may still be pending.
    failed = Delivery.objects.filter(webhook__account=account, status="failed").count()
    received = len(receiver.seen)
    result = {
        "deliveries": total,
        "received_unique": received,
        "failed": failed,
        "duplicates": sum(count - 1 for count in receiver.seen.values()),
        "lost": total - received,
        "received_at_kill": at_kill,
        "seconds_total": round(finished - started, 1),
        "seconds_after_kill": round(finished - killed_at, 1),
    }
    print(
        f"workers: {received}/{total} delivered, {failed} failed, {result['lost']} lost, "
        f"{result['duplicates']} sent twice; all delivered {result['seconds_after_kill']} s "
        f"after the kill ({result['seconds_total']} s in all)"
    )
    return result


def main(argv=None) -> None:
    args = parse_args(argv)
    db_url = harness.database_url(NAME)
    redis_url = os.environ.get("BENCH_REDIS_URL") or harness.DEFAULT_REDIS
    env = harness.server_env(NAME, db_url, redis_url)
    env |= {
        "WEBHOOKS_ALLOW_PRIVATE_URLS": "1",  # the receiver is on loopback
        # What a deployment that wants a killed worker's work back within a minute sets.
        "WEBHOOK_REDISPATCH_SECONDS": "15",
        "WEBHOOK_CLAIM_LEASE_SECONDS": "15",
        "BEAT_LOCK_SECONDS": "9",
    }
    harness.prepare_database(NAME, seed=seed, seed_version=SEED_VERSION, reseed=False, env=env)
    harness.flush_redis(redis_url, f"bench_{NAME}")
    output = {
        "kind": "scale_out",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": harness.git_commit(),
        "cores": os.cpu_count(),
    }
    if not args.skip_web:
        print("== web: one gunicorn process (1 worker) vs two on separate ports")
        output["web"] = web(env, args)
    if not args.skip_workers:
        print("== workers: two Celery workers, the beat holder killed mid-task")
        output["workers"] = workers(env, redis_url, args)
    harness.OUT_DIR.mkdir(exist_ok=True)
    (harness.OUT_DIR / f"{NAME}.json").write_text(json.dumps(output, indent=2, default=str))
    print(f"written: bench/out/{NAME}.json")
    if output.get("workers", {}).get("lost"):
        raise SystemExit("deliveries were lost")


if __name__ == "__main__":
    main()
