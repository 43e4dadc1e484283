"""Webhook fan-out through real Celery workers, as a ratio against a no-op task floor.

- floor:      N no-op tasks (`common.ping`) through the same broker and workers, tasks/s;
- deliveries: N events emitted in one transaction to an account with W webhooks, all pointing at
              a local receiver; deliveries/s from the commit until every delivery is recorded
              as succeeded (claim, signed POST, log insert with pruning, for each).

Needs REDIS_URL (the broker). The database is a throw-away SQLite file shared with the workers,
or a scratch PostgreSQL database given with --database-url (it is migrated and written to).
The workers consume a queue of their own, so other work on the same Redis is left alone.

    REDIS_URL=redis://127.0.0.1:6379/11 .venv/bin/python bench/bench_webhooks.py --events 500
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=500, help="events to emit (N)")
    parser.add_argument("--webhooks", type=int, default=2, help="webhooks of the account (W)")
    parser.add_argument("--concurrency", type=int, default=4, help="worker processes")
    parser.add_argument("--database-url", default="", help="a scratch PostgreSQL database")
    return parser.parse_args()


ARGS = parse_args()
if not os.environ.get("REDIS_URL"):
    sys.exit("bench_webhooks needs REDIS_URL: the point is to go through a broker and workers.")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["VAR_DIR"] = tempfile.mkdtemp(prefix="emporion-bench-")
os.environ["WEBHOOKS_ALLOW_PRIVATE_URLS"] = "1"  # the receiver is on loopback
if ARGS.database_url:
    os.environ["DATABASE_URL"] = ARGS.database_url
else:
    os.environ.pop("DATABASE_URL", None)
QUEUE = f"bench-{uuid.uuid4().hex[:8]}"

import django

django.setup()

from django.core.management import call_command
from django.db import transaction

from config.celery import app


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


def start_workers() -> subprocess.Popen:
    return subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            f"--concurrency={ARGS.concurrency}",
            f"--queues={QUEUE}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=WARNING",
            f"--hostname=bench-{QUEUE}@%h",
        ],
        cwd=ROOT,
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,  # the banner; warnings and errors still reach stderr
    )


def floor_rate(n: int) -> float:
    from common.tasks import ping

    started = time.perf_counter()
    results = [ping.apply_async(queue=QUEUE) for _ in range(n)]
    for result in results:
        assert result.get(timeout=120) == "pong"
    return n / (time.perf_counter() - started)


def delivery_rate(n: int, webhooks: int) -> tuple[float, int]:
    from accounts.models import AccountType, User
    from webhooks import services
    from webhooks.models import Delivery

    account = User.objects.create_user(
        f"bench-{uuid.uuid4().hex[:6]}@example.com",
        "Bench-Pass-2026",
        name="Bench",
        type=AccountType.RESELLER,
        email_verified=True,
    )
    receiver = Receiver()
    for _ in range(webhooks):
        services.webhook_create(account=account, url=receiver.url, events=["license.created"])
    total = n * webhooks
    data = {"license_id": 1, "license_key": "EMP-BENC-HMAR-KING", "tier": "starter"}
    started = time.perf_counter()
    with transaction.atomic():
        for _ in range(n):
            services.emit(account, "license.created", data)
    deadline = time.monotonic() + 600
    pending = Delivery.objects.filter(webhook__account=account).exclude(
        status=Delivery.Status.SUCCEEDED
    )
    while receiver.count < total or pending.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out: {receiver.count}/{total} received")
        time.sleep(0.02)
    elapsed = time.perf_counter() - started
    failed = Delivery.objects.filter(webhook__account=account, status="failed").count()
    assert failed == 0, f"{failed} deliveries failed"
    return total / elapsed, total


def main() -> None:
    call_command("migrate", verbosity=0)
    app.conf.task_default_queue = QUEUE  # emit's tasks go to the bench's workers only
    workers = start_workers()
    try:
        floor_rate(20)  # warm-up: the workers are up and connected
        floor = floor_rate(ARGS.events * ARGS.webhooks)
        rate, total = delivery_rate(ARGS.events, ARGS.webhooks)
    finally:
        workers.terminate()
        workers.wait(timeout=30)
    print(
        f"workers: {ARGS.concurrency} processes; {ARGS.events} events x {ARGS.webhooks} "
        f"webhooks = {total} deliveries; database: {django.db.connection.vendor}"
    )
    print(f"{'floor (no-op task)':<22} {floor:10.1f} tasks/s      1.00x")
    print(f"{'webhook deliveries':<22} {rate:10.1f} deliveries/s {rate / floor:5.2f}x")


if __name__ == "__main__":
    main()
