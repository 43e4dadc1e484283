"""Chaos under load: the worker killed and Redis stopped, and not one webhook delivery lost.

Run by hand (bench/README.md, "Chaos"); loopback only, about 80 s:

    .venv/bin/python -m bench.chaos                  # 60 s of load, then the wait for stragglers
    .venv/bin/python -m bench.chaos --seconds 90 --rate 3

1. The PostgreSQL database `emporion_bench_chaos` (harness.prepare_database: a shop seeded
   once), a Redis of its own on a free loopback port without persistence (stopping it loses
   everything it held: the queues, the held messages, the beat lock), gunicorn (2 workers,
   bench.settings: DEBUG off) and one Celery worker with its beat, as `make worker` runs it
   (`celery -A config worker --beat`), in a process group of its own.
2. A store webhook subscribed to the order events, pointed at a local receiver that counts
   the requests per X-Hub-Delivery and answers 204, but 500 to the first request of one
   delivery in --fail-every (5): its retry waits on a 5 s countdown, held by the worker.
3. A steady load for --seconds: shoppers complete checkouts (cart, checkout, sandbox card) at
   --rate per second, and a shop manager moves each new order to shipped, then completed. The
   deliveries due are the Delivery rows the database creates for the webhook (read as they
   appear: a finished delivery's row is pruned once its webhook has 100 newer log entries).
4. Faults on a timeline: at 15% of the load the worker is killed with SIGKILL (its pool and
   beat with it) and started again 3 s later; at 45% Redis is stopped for --redis-down seconds
   (10) and started again, empty.
5. After the load it waits (at most --settle seconds) until the receiver has seen every due
   delivery, then prints orders placed, deliveries due, deliveries made (answered 204), lost
   (must be 0) and duplicates (answered 204 more than once: webhooks are at-least-once), the
   messages the worker held when Redis stopped, and whether the worker kept its process
   through the outage (it must). Exits with status 1 when a delivery was lost or the worker
   died.

The worker's work comes back through the database, not the broker: a delivery is a row with a
lease, which the beat's `webhooks.dispatch_due` dispatches again when its task was lost (in the
killed worker, or in the emptied Redis). The run sets what a deployment that wants that within
a minute sets (WEBHOOK_REDISPATCH_SECONDS=15, WEBHOOK_CLAIM_LEASE_SECONDS=15,
BEAT_LOCK_SECONDS=9; the defaults, 300, 60 and 30, take some six minutes).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import datetime as dt
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bench import harness
from bench.bench_checkout import ADDRESS, CARD

NAME = "chaos"
SEED_VERSION = "1"
PRODUCTS = 10
STOCK = 1_000_000_000
LIFTED = "1000000000/min"
ORDER_EVENTS = ["order.created", "order.status_changed", "order.paid"]
LOG_DIR = harness.ROOT / "var" / "bench" / NAME
EXTRA_ENV = {
    "PAYMENT_SANDBOX_ALLOWED": "1",
    "WEBHOOKS_ALLOW_PRIVATE_URLS": "1",  # the receiver is on loopback
    "WEBHOOK_REDISPATCH_SECONDS": "15",
    "WEBHOOK_CLAIM_LEASE_SECONDS": "15",
    "BEAT_LOCK_SECONDS": "9",
    "THROTTLE_RATE_CART_WRITE": LIFTED,
    "THROTTLE_RATE_CHECKOUT_START": LIFTED,
    "THROTTLE_RATE_CHECKOUT_COMPLETE": LIFTED,
}


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="how long the load runs")
    parser.add_argument("--rate", type=float, default=2, help="checkouts per second")
    parser.add_argument("--shoppers", type=int, default=2, help="shopper threads")
    parser.add_argument("--redis-down", type=float, default=10, help="seconds Redis is down")
    parser.add_argument(
        "--fail-every", type=int, default=5, help="the receiver fails one delivery in N once"
    )
    parser.add_argument("--settle", type=float, default=180, help="most seconds to wait after")
    parser.add_argument("--port", type=int, default=int(os.environ.get("BENCH_PORT", 8741)))
    parser.add_argument("--reseed", action="store_true")
    return parser.parse_args(argv)


def seed() -> dict:
    from decimal import Decimal

    from django.contrib.auth.models import Group

    from accounts import services as account_services
    from accounts.models import User
    from store.catalog.services import products as product_services
    from store.common.capabilities import SHOP_MANAGER_ROLE
    from store.shipping import demo as shipping_demo
    from store.shipping.models import ShippingMethod
    from store.tax import services as tax_services

    shipping_demo.seed()
    tax_services.eu_vat_rates_load()
    products = [
        product_services.product_create(
            fields={
                "title": f"Chaos product {n}",
                "status": "active",
                "sku": f"CHAOS-{n}",
                "regular_price": Decimal(10 + n),
                "stock_quantity": STOCK,
                "weight": Decimal("0.5"),
            }
        ).pk
        for n in range(PRODUCTS)
    ]
    method = ShippingMethod.objects.get(zone__name="Attica", type="flat_rate")
    manager = User.objects.create_user(email="chaos@example.com", name="Chaos", password=None)
    manager.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    _record, raw = account_services.app_password_create(user=manager, name="chaos")
    token = base64.b64encode(f"{manager.email}:{raw}".encode()).decode()
    return {"products": products, "method": method.pk, "auth": f"Basic {token}"}


# --- The pieces: Redis, the worker, the receiver --------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Redis:
    """redis-server on a free loopback port, without persistence."""

    def __init__(self) -> None:
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            raise SystemExit("redis-server is not on PATH")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(  # noqa: S603 - a fixed binary and our own arguments
            [
                self.binary,
                *("--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not self.answers():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise SystemExit(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None


class Worker:
    """`celery -A config worker --beat` in a process group of its own, logging to a file."""

    def __init__(self, env: dict, number: int) -> None:
        self.log = LOG_DIR / f"worker-{number}.log"
        self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
            [
                sys.executable,
                *("-m", "celery", "-A", "config", "worker", "--beat", "--loglevel=INFO"),
                f"--hostname=chaos{number}@%h",
            ],
            cwd=harness.ROOT,
            env={**os.environ, **env, "LOG_LEVEL": "INFO"},
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.pid = self.process.pid

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while " ready." not in self.output():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the worker did not start; see {self.log}")
            time.sleep(0.2)

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL to the whole group: the pool and the beat die with it, nothing acknowledged."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.alive():
            os.killpg(self.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


class Receiver:
    """Counts the requests per X-Hub-Delivery. The first request of one delivery in
    `fail_every` is answered 500 (the delivery is retried 5 s later, a countdown the worker
    holds), every other one 204."""

    def __init__(self, fail_every: int) -> None:
        self.seen: dict[str, int] = {}
        self.succeeded: dict[str, int] = {}
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
                delivery = self.headers.get("X-Hub-Delivery", "")
                with receiver.lock:
                    first = delivery not in receiver.seen
                    receiver.seen[delivery] = receiver.seen.get(delivery, 0) + 1
                    fail = first and fail_every and zlib.crc32(delivery.encode()) % fail_every == 0
                    if not fail:
                        receiver.succeeded[delivery] = receiver.succeeded.get(delivery, 0) + 1
                self.send_response(500 if fail else 204)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def snapshot(self) -> tuple[dict[str, int], dict[str, int]]:
        """(requests per delivery id, requests answered 204 per delivery id)"""
        with self.lock:
            return dict(self.seen), dict(self.succeeded)


# --- The load ---------------------------------------------------------------------------------


class Load:
    """Shoppers completing checkouts at a steady rate; a shop manager moving each new order to
    shipped, then completed. Counts what it did and every answer it did not expect."""

    def __init__(self, port: int, ctx: dict, args) -> None:
        self.base = f"http://127.0.0.1:{port}/rest/ec/v1"
        self.ctx = ctx
        self.args = args
        self.stop = threading.Event()
        self.orders: queue.Queue[int] = queue.Queue()
        self.lock = threading.Lock()
        self.counts = {"orders placed": 0, "status changes": 0, "unexpected answers": 0}
        self.errors: dict[str, int] = {}

    def _count(self, name: str) -> None:
        with self.lock:
            self.counts[name] += 1

    def _error(self, what: str) -> None:
        with self.lock:
            self.counts["unexpected answers"] += 1
            self.errors[what] = self.errors.get(what, 0) + 1

    def _call(self, method: str, path: str, body: dict, headers: dict) -> tuple[int, dict, dict]:
        request = urllib.request.Request(  # noqa: S310 - loopback
            self.base + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", **headers},
            method=method,
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - loopback
                return answer.status, dict(answer.headers), json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), {}
        except (OSError, ValueError) as error:
            return 0, {}, {"error": type(error).__name__}

    def _checkout(self, n: int) -> None:
        products = self.ctx["products"]
        status, headers, _ = self._call(
            "POST", "/cart/items", {"product_id": products[n % len(products)], "quantity": 1}, {}
        )
        cart = headers.get("X-Cart-ID")
        if status not in (200, 201) or not cart:
            return self._error(f"cart {status}")
        cookie = {"Cookie": f"ec_cart_id={cart}"}
        start = {
            "email": f"shopper{n}-{os.getpid()}@example.com",
            "billing_address": ADDRESS,
            "shipping_method": self.ctx["method"],
            "payment_method": "sandbox_card",
        }
        status, _, checkout = self._call("POST", "/checkout", start, cookie)
        if status not in (200, 201) or "id" not in checkout:
            return self._error(f"checkout {status}")
        status, _, done = self._call(
            "POST", f"/checkout/{checkout['id']}/complete", {"payment_data": CARD}, cookie
        )
        if status != 200 or done.get("payment_status") != "paid":
            return self._error(f"complete {status}")
        self._count("orders placed")
        self.orders.put(done["order_id"])
        return None

    def shopper(self, first: int) -> None:
        interval = self.args.shoppers / self.args.rate
        started, n = time.monotonic(), 0
        while not self.stop.is_set():
            self._checkout(first + n * self.args.shoppers)
            n += 1
            self.stop.wait(max(0.0, started + n * interval - time.monotonic()))

    def manager(self) -> None:
        auth = {"Authorization": self.ctx["auth"]}
        while not (self.stop.is_set() and self.orders.empty()):
            try:
                order = self.orders.get(timeout=0.2)
            except queue.Empty:
                continue
            for status in ("shipped", "completed"):
                code, _, _ = self._call(
                    "PATCH", f"/orders/{order}/status", {"status": status}, auth
                )
                if code == 200:
                    self._count("status changes")
                else:
                    self._error(f"status {code}")

    def start(self) -> list[threading.Thread]:
        threads = [
            threading.Thread(target=self.shopper, args=(n,), daemon=True)
            for n in range(self.args.shoppers)
        ]
        threads.append(threading.Thread(target=self.manager, daemon=True))
        for thread in threads:
            thread.start()
        return threads


class DueDeliveries:
    """The webhook's Delivery rows, read as they appear: all of them every time (a row may
    commit after one with a higher id; a finished one is pruned later, so they stay few)."""

    def __init__(self, webhook_id: int) -> None:
        self.webhook_id = webhook_id
        self.uuids: set[str] = set()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def read(self) -> None:
        from webhooks.models import Delivery

        rows = Delivery.objects.filter(webhook_id=self.webhook_id).values_list("uuid", flat=True)
        self.uuids.update(str(uuid) for uuid in rows)

    def _run(self) -> None:
        from django.db import connection

        try:
            while not self.stop.wait(0.3):
                self.read()
        finally:
            connection.close()

    def pending(self) -> int:
        from webhooks.models import Delivery

        return Delivery.objects.filter(
            webhook_id=self.webhook_id, status=Delivery.Status.PENDING
        ).count()


# --- The run ----------------------------------------------------------------------------------


def subscribe(url: str):
    from webhooks import services
    from webhooks.models import Scope, Webhook

    for old in Webhook.objects.filter(scope=Scope.STORE):  # an earlier run's
        services.webhook_delete(webhook=old)
    return services.store_webhook_create(url=url, events=ORDER_EVENTS, description="chaos")


def held_at_redis_stop(output: str) -> int:
    """How many messages the worker held unacknowledged when it lost Redis (kombu logs them
    as it tries to put them back)."""
    held = 0
    for line in output.splitlines():
        if "unacknowledged message(s)" in line:
            held += int(line.split("Restoring ", 1)[1].split(" ", 1)[0])
    return held


def run(args) -> dict:
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    redis = Redis()
    redis.start()
    env = harness.server_env(NAME, harness.database_url(NAME), redis.url) | EXTRA_ENV
    server = None
    workers: list[Worker] = []
    try:
        ctx = harness.prepare_database(
            NAME, seed=seed, seed_version=SEED_VERSION, reseed=args.reseed, env=env
        )
        receiver = Receiver(args.fail_every)
        webhook = subscribe(receiver.url)
        due = DueDeliveries(webhook.pk)
        server = harness.start_server(env, port=args.port, workers=2)
        workers.append(Worker(env, 1))
        workers[-1].wait_ready()
        print(f"[chaos] gunicorn on :{args.port}, worker pid {workers[-1].pid}, {redis.url}")

        load = Load(args.port, ctx, args)
        started = time.monotonic()
        due.thread.start()
        threads = load.start()

        def at(share: float) -> None:
            time.sleep(max(0.0, started + share * args.seconds - time.monotonic()))

        def now() -> float:
            return round(time.monotonic() - started, 1)

        timeline = []
        at(0.15)
        workers[-1].kill()
        timeline.append(f"{now()} s: worker killed (SIGKILL, its pool and beat too)")
        time.sleep(3)
        workers.append(Worker(env, 2))
        timeline.append(f"{now()} s: worker started again (pid {workers[-1].pid})")
        at(0.45)
        survivor = workers[-1]
        redis.stop()
        timeline.append(f"{now()} s: Redis stopped (everything it held is lost)")
        time.sleep(args.redis_down)
        redis.start()
        timeline.append(f"{now()} s: Redis started again, empty")
        at(1.0)
        load.stop.set()
        for thread in threads:
            thread.join(timeout=60)
        ended = time.monotonic()
        timeline.append(f"{now()} s: load stopped")
        for line in timeline:
            print(f"[chaos] {line}")

        deadline = ended + args.settle
        while time.monotonic() < deadline:
            due.read()
            if not due.pending() and due.uuids <= set(receiver.snapshot()[1]):
                break
            time.sleep(1)
        settled = round(time.monotonic() - ended, 1)
        due.stop.set()
        due.thread.join(timeout=5)
        due.read()
        seen, succeeded = receiver.snapshot()
        made = due.uuids & set(succeeded)
        output = survivor.output()
        worker_kept = survivor.alive() and "Unrecoverable error" not in output
        return {
            "kind": NAME,
            "bench": NAME,
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "commit": harness.git_commit(),
            "cores": os.cpu_count(),
            "seconds": args.seconds,
            "rate": args.rate,
            "redis_down": args.redis_down,
            "timeline": timeline,
            **{key.replace(" ", "_"): value for key, value in load.counts.items()},
            "errors": load.errors,
            "deliveries_due": len(due.uuids),
            "deliveries_made": len(made),
            "lost": len(due.uuids - made),
            "duplicates": sum(succeeded[uuid] - 1 for uuid in made),
            "failed_on_purpose": sum(seen.values()) - sum(succeeded.values()),
            "unknown_ids": len(set(seen) - due.uuids),
            "held_at_redis_stop": held_at_redis_stop(output),
            "pending_left": due.pending(),
            "settled_after_s": settled,
            "worker_kept_its_process": worker_kept,
            "worker_pid": survivor.pid,
            # No cases: the figures are notes (harness.write_results keeps them in results.md).
            "cases": [],
        }
    finally:
        for worker in workers:
            worker.stop()
        if server is not None:
            harness.stop_server(server)
        redis.stop()


def main(argv=None) -> None:
    args = parse_args(argv)
    result = run(args)
    result["notes"] = [
        f"chaos: {result['seconds']:g} s of load at {result['rate']:g} checkouts/s; the worker "
        f"killed (SIGKILL) and restarted, Redis down {result['redis_down']:g} s and restarted "
        f"empty; commit {result['commit']}",
        f"chaos: orders placed {result['orders_placed']}, deliveries due "
        f"{result['deliveries_due']}, made {result['deliveries_made']}, lost {result['lost']}, "
        f"duplicates {result['duplicates']}; worker kept its process through the Redis outage: "
        f"{'yes' if result['worker_kept_its_process'] else 'NO'}",
    ]
    print(f"orders placed:      {result['orders_placed']}")
    print(f"status changes:     {result['status_changes']}")
    print(f"unexpected answers: {result['unexpected_answers']} {result['errors'] or ''}")
    print(f"deliveries due:     {result['deliveries_due']}")
    print(f"deliveries made:    {result['deliveries_made']}")
    print(f"lost:               {result['lost']}")
    print(f"duplicates:         {result['duplicates']}")
    print(f"held at Redis stop: {result['held_at_redis_stop']} message(s) (countdowns, running)")
    print(
        f"worker through the Redis outage: "
        f"{'same process' if result['worker_kept_its_process'] else 'DIED'} "
        f"(pid {result['worker_pid']}); all delivered {result['settled_after_s']} s after the load"
    )
    harness.OUT_DIR.mkdir(exist_ok=True)
    (harness.OUT_DIR / f"{NAME}.json").write_text(json.dumps(result, indent=2, default=str))
    print(f"written: bench/out/{NAME}.json")
    if result["lost"] or result["pending_left"] or not result["worker_kept_its_process"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
