"""A full checkout under load, as a ratio against a floor measured in the same run.

- floor:    a bare Django view doing one indexed lookup (full middleware stack);
- checkout: one shopper's whole way to a paid order, each client a new shopper every time
            (no cookie): POST /cart/items (a new cart), POST /checkout (e-mail, address,
            shipping, payment method: prices the cart, holds its stock in the ledger and its
            coupon use), POST /checkout/{id}/complete with the sandbox card (holds again, turns
            the hold into the order's stock, confirms the coupon, creates the order, charges
            the card, records the payment, empties the cart, sends the e-mail through the
            eager Celery task). Ten tracked products with plenty of stock are shared by all
            clients, so checkouts queue on the same product rows, as in a real shop; EU VAT
            rates, the demo shipping zones and a percent coupon are in play.

It reports each step (requests/s, p50, p95, queries) and the whole checkout (checkouts/s and
its latency), with ratios to the floor: per request (a step's throughput against the floor's)
and per checkout (the floor's requests/s over checkouts/s). At the end it checks that every
completed checkout has exactly one paid order and that each product's stock is its initial
stock minus what the orders hold (no hold is left over).

The approach of bench_cart.py: a throw-away SQLite database (or DATABASE_URL: a scratch
database, flushed first), gunicorn on 127.0.0.1:8106 (BENCH_PORT) with DEBUG off and
PAYMENT_SANDBOX_ALLOWED=1, concurrent keep-alive clients for a few seconds per case. The
checkout's rate limit is lifted for the run (THROTTLE_RATE_CHECKOUT_COMPLETE).

    .venv/bin/python bench/bench_checkout.py [--seconds 5] [--clients 8] [--workers 2]
"""

from __future__ import annotations

import argparse
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
VAR_DIR = tempfile.mkdtemp(prefix="emporion-bench-checkout-")
Path(VAR_DIR, "static").mkdir()
ENV = {
    **os.environ,
    "DJANGO_SETTINGS_MODULE": "bench.store_settings",
    "VAR_DIR": VAR_DIR,
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
    "SECURE_SSL_REDIRECT": "0",
    "SESSION_COOKIE_SECURE": "0",
    "CSRF_COOKIE_SECURE": "0",
    "PAYMENT_SANDBOX_ALLOWED": "1",
    "THROTTLE_RATE_CHECKOUT_COMPLETE": "100000000/min",
    "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
    "LOG_LEVEL": "WARNING",
}
os.environ.update(ENV)

import django

django.setup()

from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

API = "/rest/ec/v1"
PRODUCTS = 10
STOCK = 1_000_000
CARD = {"card_number": "4242 4242 4242 4242", "exp_month": 12, "exp_year": 2040, "cvc": "123"}
DETAILS = {
    "email": "bench@example.com",
    "billing_address": {
        "first_name": "Ana",
        "last_name": "Bench",
        "address_1": "Ermou 12",
        "city": "Athens",
        "state": "I",
        "postcode": "10431",
        "country": "GR",
    },
    "payment_method": "sandbox_card",
}
STEPS = ("add_to_cart", "start", "complete")


def build_store() -> list[int]:
    from store.catalog.services import products as product_services
    from store.coupons import services as coupon_services
    from store.shipping import demo as shipping_demo
    from store.tax import services as tax_services

    ids = [
        product_services.product_create(
            fields={
                "title": f"Product {n}",
                "status": "active",
                "sku": f"SKU-{n}",
                "regular_price": Decimal(10 + n),
                "stock_quantity": STOCK,
                "weight": Decimal("0.5"),
            }
        ).pk
        for n in range(PRODUCTS)
    ]
    shipping_demo.seed()
    tax_services.eu_vat_rates_load()
    coupon_services.coupon_create(
        fields={"code": "BENCH10", "discount_type": "percent", "amount": Decimal(10)}
    )
    return ids


def one_checkout(client: Client, product_id: int) -> dict[str, int]:
    """The three steps in-process, each with its queries counted."""
    out = {}
    calls = {
        "add_to_cart": lambda: client.post(
            f"{API}/cart/items", {"product_id": product_id}, content_type="application/json"
        ),
        "start": lambda: client.post(f"{API}/checkout", DETAILS, content_type="application/json"),
    }
    for name, call in calls.items():
        with CaptureQueriesContext(connection) as queries:
            response = call()
        assert response.status_code in (200, 201), (name, response.content)
        out[name] = len(queries)
    checkout_id = response.json()["id"]
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            f"{API}/checkout/{checkout_id}/complete",
            {"payment_data": CARD},
            content_type="application/json",
        )
    assert response.status_code == 200, response.content
    assert response.json()["payment_status"] == "paid", response.content
    out["complete"] = len(queries)
    return out


def floor_queries(path: str) -> int:
    client = Client()
    client.get(path)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return len(queries)


def drive_floor(port: int, path: str, seconds: float, clients: int) -> dict:
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        while time.monotonic() < stop:
            started = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            mine.append(time.perf_counter() - started)
            if response.status != 200:
                with lock:
                    errors[0] += 1
        conn.close()
        with lock:
            latencies.extend(mine)

    return _run(worker, clients, latencies, errors)


def _run(worker, clients: int, latencies: list[float], errors: list[int]) -> dict:
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    return {**stats(latencies, elapsed), "errors": errors[0], "elapsed": elapsed}


def stats(latencies: list[float], elapsed: float) -> dict:
    latencies = sorted(latencies) or [0.0]
    return {
        "rps": len(latencies) / elapsed,
        "p50": statistics.median(latencies) * 1000,
        "p95": latencies[max(int(len(latencies) * 0.95) - 1, 0)] * 1000,
        "count": len(latencies),
    }


def drive_checkouts(port: int, ids: list[int], seconds: float, clients: int) -> dict:
    """Each client runs whole checkouts, a new shopper (no cookie) every time."""
    steps: dict[str, list[float]] = {name: [] for name in STEPS}
    whole: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def call(conn, method, path, body, cookie):
        headers = {"Content-Type": "application/json"}
        if cookie:
            headers["Cookie"] = cookie
        started = time.perf_counter()
        conn.request(method, path, body=json.dumps(body), headers=headers)
        response = conn.getresponse()
        payload = response.read()
        return response, payload, time.perf_counter() - started

    def worker(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine = {name: [] for name in STEPS}
        mine_whole = []
        i = 0
        while time.monotonic() < stop:
            i += 1
            began = time.perf_counter()
            product_id = ids[(index * 3 + i) % len(ids)]
            response, payload, took = call(
                conn, "POST", f"{API}/cart/items", {"product_id": product_id}, None
            )
            mine["add_to_cart"].append(took)
            cookie = response.getheader("Set-Cookie", "").split(";", 1)[0]
            response, payload, took = call(conn, "POST", f"{API}/checkout", DETAILS, cookie)
            mine["start"].append(took)
            if response.status != 201:
                with lock:
                    errors[0] += 1
                continue
            checkout_id = json.loads(payload)["id"]
            response, payload, took = call(
                conn,
                "POST",
                f"{API}/checkout/{checkout_id}/complete",
                {"payment_data": CARD},
                cookie,
            )
            mine["complete"].append(took)
            if response.status != 200 or json.loads(payload)["payment_status"] != "paid":
                with lock:
                    errors[0] += 1
                continue
            mine_whole.append(time.perf_counter() - began)
        conn.close()
        with lock:
            for name in STEPS:
                steps[name].extend(mine[name])
            whole.extend(mine_whole)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    return {
        "steps": {name: stats(values, elapsed) for name, values in steps.items()},
        "whole": stats(whole, elapsed),
        "errors": errors[0],
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


def check_consistency(ids: list[int]) -> tuple[int, int]:
    """Every completed checkout has one paid order; stock = initial - what orders hold."""
    from django.db.models import Sum

    from store.catalog.models import Product
    from store.checkout.models import Checkout
    from store.orders.choices import TERMINAL
    from store.orders.models import Order, OrderItem

    completed = Checkout.objects.filter(status="completed").count()
    paid = Order.objects.filter(payment_status="paid", checkout__isnull=False).count()
    assert completed == paid, (completed, paid)
    assert not Checkout.objects.exclude(hold_cart_id=None).exclude(status="open").exists()
    for product in Product.objects.filter(pk__in=ids):
        ordered = (
            OrderItem.objects.filter(product=product)
            .exclude(order__status__in=TERMINAL)
            .aggregate(n=Sum("quantity"))["n"]
            or 0
        )
        open_holds = sum(
            c.cart.items.filter(product=product).aggregate(n=Sum("quantity"))["n"] or 0
            for c in Checkout.objects.filter(status="open").exclude(hold_cart_id=None)
        )
        assert product.stock_quantity == STOCK - ordered - open_holds, (
            product.pk,
            product.stock_quantity,
            ordered,
            open_holds,
        )
    return completed, Order.objects.count()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    options = parser.parse_args()
    port = int(os.environ.get("BENCH_PORT", "8106"))

    call_command("migrate", verbosity=0)
    if os.environ.get("DATABASE_URL"):
        call_command("flush", interactive=False, verbosity=0)
        from store.tax.models import TaxClass

        for slug, name in (("standard", "Standard"), ("reduced-rate", "Reduced rate")):
            TaxClass.objects.get_or_create(slug=slug, defaults={"name": name})
    print(f"building {PRODUCTS} products, zones, EU VAT rates, a coupon ...", flush=True)
    ids = build_store()

    floor_path = f"/bench/floor/{ids[0]}"
    one_checkout(Client(), ids[0])  # warm the caches (zones, rates, settings)
    queries = {"floor": floor_queries(floor_path), **one_checkout(Client(), ids[1])}

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
        drive_floor(port, floor_path, 0.5, options.workers * 2)  # warm every worker a little
        drive_checkouts(port, ids, 1.0, options.workers * 2)
        floor = drive_floor(port, floor_path, options.seconds, options.clients)
        flow = drive_checkouts(port, ids, options.seconds, options.clients)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)

    from django.conf import settings

    completed, orders = check_consistency(ids)
    print(
        f"database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, "
        f"cache: {settings.CACHES['default']['BACKEND'].rsplit('.', 1)[-1]}, "
        f"gunicorn workers: {options.workers}, clients: {options.clients}, "
        f"{options.seconds:.0f} s each"
    )
    print(f"{'case':<13}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'queries':>9}{'x floor':>9}")
    print(
        f"{'floor':<13}{floor['rps']:>9.0f}{floor['p50']:>9.1f}{floor['p95']:>9.1f}"
        f"{queries['floor']:>9}{1:>9.2f}"
    )
    for name in STEPS:  # a step of every checkout: x floor is its p50 over the floor's
        r = flow["steps"][name]
        print(
            f"{name:<13}{r['rps']:>9.0f}{r['p50']:>9.1f}{r['p95']:>9.1f}{queries[name]:>9}"
            f"{r['p50'] / floor['p50']:>9.2f}"
        )
    whole = flow["whole"]
    per_checkout = sum(queries[name] for name in STEPS)
    print(
        f"checkout: {whole['rps']:.1f} checkouts/s = {3 * whole['rps']:.0f} requests/s "
        f"({floor['rps'] / (3 * whole['rps']):.1f}x the floor per request); one checkout takes "
        f"p50 {whole['p50']:.0f} ms, p95 {whole['p95']:.0f} ms and {per_checkout} queries over "
        f"3 requests; the floor serves {floor['rps'] / whole['rps']:.0f} requests in the time of "
        "one checkout"
    )
    print(
        f"errors: floor {floor['errors']}, checkout {flow['errors']}; checked {completed} "
        f"completed checkouts, {orders} orders, stock consistent"
    )


if __name__ == "__main__":
    main()
