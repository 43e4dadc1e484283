"""Store orders under load, as a ratio against a floor measured in the same run.

- floor:         a bare Django view doing one indexed lookup (full middleware stack);
- order_list:    GET /orders?per_page=100 as a shop manager (application password over Basic);
- order_read:    GET /orders/{id}, the full order (items, payments, shipments, history);
- status_change: PATCH /orders/{id}/status, each client moving its own orders between
                 cancelled and processing: every request gives 2 lines of stock back or takes
                 them again, with the check, the ledger rows and the products' stock fields.

It builds 200 products and 2,000 orders in a throw-away SQLite database (or DATABASE_URL if
set), starts gunicorn on 127.0.0.1:8104 (BENCH_PORT) with DEBUG off, and drives each case with
concurrent keep-alive clients. Without REDIS_URL the stock release runs eagerly right after the
commit, inside the request, so the figure includes it; with REDIS_URL it is queued for a
worker (start one to drain it). The ratio is the floor's throughput over the case's. The
queries of one request of each case are counted in-process, and at the end the stock is
checked: for every product, the initial stock minus what the orders in a non-terminal status
hold.

    .venv/bin/python bench/bench_orders.py [--seconds 5] [--clients 8] [--workers 2]
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
VAR_DIR = tempfile.mkdtemp(prefix="emporion-bench-orders-")
Path(VAR_DIR, "static").mkdir()
ENV = {
    **os.environ,
    "DJANGO_SETTINGS_MODULE": "bench.orders_settings",
    "VAR_DIR": VAR_DIR,
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
    "SECURE_SSL_REDIRECT": "0",
    "SESSION_COOKIE_SECURE": "0",
    "CSRF_COOKIE_SECURE": "0",
    "LOG_LEVEL": "WARNING",
}
os.environ.update(ENV)

import django

django.setup()

from django.core.management import call_command
from django.db import connection
from django.db.models import Sum
from django.test import Client
from django.test.utils import CaptureQueriesContext

PRODUCTS = 200
ORDERS = 2000
STOCK = 1_000_000
STATUSES = ["pending", "processing", "on_hold", "completed", "cancelled"]


def build() -> tuple[str, list[int]]:
    """The catalog, the orders and a manager's Basic credentials."""
    from django.contrib.auth.models import Group

    from accounts import services as account_services
    from accounts.models import User
    from store.catalog.services import products as product_services
    from store.common.capabilities import SHOP_MANAGER_ROLE
    from store.customers.models import Customer
    from store.orders import services

    products = [
        product_services.product_create(
            fields={
                "title": f"Product {n}",
                "status": "active",
                "sku": f"SKU-{n}",
                "regular_price": Decimal(5 + n % 50),
                "stock_quantity": STOCK,
            }
        )
        for n in range(PRODUCTS)
    ]
    customers = [
        Customer.objects.create(email=f"c{n}@example.com", first_name="C", last_name=str(n))
        for n in range(50)
    ]
    ids = []
    for n in range(ORDERS):
        order = services.order_create(
            items=[
                {"product_id": products[n % PRODUCTS].pk, "quantity": 1 + n % 3},
                {"product_id": products[(n * 7 + 3) % PRODUCTS].pk, "quantity": 1},
            ],
            customer=customers[n % 50],
            status=STATUSES[n % len(STATUSES)],
            billing_address={"email": f"c{n % 50}@example.com", "city": "Athens"},
            shipping_total=Decimal("4.50"),
        )
        if n % 4 == 0:
            services.payment_create(order_id=order.pk, fields={"amount": order.total})
        ids.append(order.pk)
    user = User.objects.create_user(email="bench@example.com", name="Bench", password=None)
    user.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    _record, raw = account_services.app_password_create(user=user, name="bench")
    token = base64.b64encode(f"{user.email}:{raw}".encode()).decode()
    return f"Basic {token}", ids


def query_counts(auth: str, paths: dict[str, tuple[str, str, dict | None]]) -> dict[str, int]:
    client = Client(HTTP_AUTHORIZATION=auth)
    client.get(paths["order_list"][1])  # the app password's use is recorded once a minute
    out = {}
    for name, (method, path, body) in paths.items():
        with CaptureQueriesContext(connection) as queries:
            if method == "GET":
                response = client.get(path)
            else:
                response = client.patch(path, json.dumps(body), content_type="application/json")
        assert response.status_code == 200, (path, response.status_code, response.content[:300])
        out[name] = len(queries)
    return out


def drive(port: int, request_for, seconds: float, clients: int, auth: str) -> dict:
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        i = 0
        while time.monotonic() < stop:
            i += 1
            method, path, body = request_for(index, i)
            headers = {"Authorization": auth}
            payload = None
            if body is not None:
                payload = json.dumps(body)
                headers["Content-Type"] = "application/json"
            started = time.perf_counter()
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            response.read()
            mine.append(time.perf_counter() - started)
            if response.status != 200:
                with lock:
                    errors[0] += 1
        conn.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    latencies.sort()
    return {
        "rps": len(latencies) / elapsed,
        "p50": statistics.median(latencies) * 1000,
        "p95": latencies[int(len(latencies) * 0.95) - 1] * 1000,
        "errors": errors[0],
        "count": len(latencies),
    }


def wait_for(port: int) -> None:
    for _ in range(100):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status in (200, 503):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the benchmark server did not start")


def check_stock() -> int:
    """Every product: the initial stock minus what live orders hold. Answers the products."""
    from store.catalog.models import Product
    from store.orders.choices import TERMINAL
    from store.orders.models import OrderItem

    held = dict(
        OrderItem.objects.exclude(order__status__in=TERMINAL)
        .values_list("product_id")
        .annotate(units=Sum("quantity"))
        .order_by()
    )
    wrong = [
        (pk, quantity, STOCK - held.get(pk, 0))
        for pk, quantity in Product.objects.values_list("pk", "stock_quantity")
        if quantity != STOCK - held.get(pk, 0)
    ]
    assert not wrong, f"stock does not add up: {wrong[:5]}"
    return Product.objects.count()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    options = parser.parse_args()
    port = int(os.environ.get("BENCH_PORT", "8104"))

    call_command("migrate", verbosity=0)
    print(f"building {PRODUCTS} products and {ORDERS} orders ...", flush=True)
    auth, ids = build()
    # Each client moves orders of its own between cancelled and processing (both directions
    # are allowed and move stock), so no request is refused by another's move.
    from store.orders import services

    movable = [
        pk for n, pk in enumerate(ids) if STATUSES[n % len(STATUSES)] in ("processing", "cancelled")
    ]
    for pk in movable:
        services.order_status_set(order_id=pk, status="processing")
    lanes = [movable[i :: options.clients] for i in range(options.clients)]
    state = dict.fromkeys(movable, "processing")

    def status_change(client: int, i: int):
        lane = lanes[client]
        pk = lane[i % len(lane)]
        state[pk] = "cancelled" if state[pk] == "processing" else "processing"
        return "PATCH", f"/rest/ec/v1/orders/{pk}/status", {"status": state[pk]}

    list_path = "/rest/ec/v1/orders?per_page=100"
    paths = {
        "floor": ("GET", f"/bench/floor/{ids[-1]}", None),
        "order_list": ("GET", list_path, None),
        "order_read": ("GET", f"/rest/ec/v1/orders/{ids[0]}", None),
        # A cancel: the status, the history, the release of 2 lines (eager: in the request).
        "status_change": ("PATCH", f"/rest/ec/v1/orders/{ids[1]}/status", {"status": "cancelled"}),
    }
    queries = query_counts(auth, paths)
    body = json.loads(Client(HTTP_AUTHORIZATION=auth).get(list_path).content)
    assert len(body["orders"]) == 100

    server = subprocess.Popen(  # noqa: S603 - our own gunicorn, fixed arguments
        [
            str(ROOT / ".venv/bin/gunicorn"),
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(options.workers),
            "--chdir",
            str(ROOT),
            "--log-level",
            "warning",
        ],
        env=ENV,
        cwd=ROOT,
    )
    try:
        wait_for(port)
        cases = {
            "floor": lambda c, i: paths["floor"],
            "order_list": lambda c, i: paths["order_list"],
            "order_read": lambda c, i: (
                "GET",
                f"/rest/ec/v1/orders/{ids[(c * 97 + i) % 2000]}",
                None,
            ),
            "status_change": status_change,
        }
        for name in ("floor", "order_list", "order_read"):  # warm every worker a little
            drive(port, cases[name], 0.5, options.workers * 2, auth)
        results = {
            name: drive(port, make, options.seconds, options.clients, auth)
            for name, make in cases.items()
        }
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
    checked = check_stock()

    from django.conf import settings

    floor = results["floor"]["rps"]
    print(
        f"database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, "
        f"celery: {'eager' if settings.CELERY_TASK_ALWAYS_EAGER else 'broker'}, "
        f"gunicorn workers: {options.workers}, clients: {options.clients}, "
        f"{options.seconds:.0f} s each"
    )
    print(
        f"{'case':<15}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'queries':>9}"
        f"{'x floor':>9}{'errors':>8}"
    )
    for name, r in results.items():
        print(
            f"{name:<15}{r['rps']:>9.0f}{r['p50']:>9.1f}{r['p95']:>9.1f}{queries[name]:>9}"
            f"{floor / r['rps']:>9.2f}{r['errors']:>8}"
        )
    moves = results["status_change"]["count"]
    print(f"stock checked after {moves} status changes: {checked} products add up")


if __name__ == "__main__":
    main()
