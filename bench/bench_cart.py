"""Add-to-cart under load, as a ratio against a floor measured in the same run.

- floor:       a bare Django view doing one indexed lookup (full middleware stack);
- add_to_cart: POST /cart/items, each client adding to its own cart (its ec_cart_id cookie),
               cycling through 10 products, with the EU VAT rates, shipping zones and a
               percent coupon in play (each answer is the whole priced cart);
- cart_read:   GET /cart of a cart with 5 lines, an address, a chosen method and a coupon.

The approach of bench_store.py: a throw-away SQLite database (or DATABASE_URL: a scratch
database, flushed first), gunicorn on 127.0.0.1:8105 (BENCH_PORT) with DEBUG off, concurrent
keep-alive clients for a few seconds per case. The ratio is the floor's throughput over the
case's. It also counts each case's database queries in-process.

    .venv/bin/python bench/bench_cart.py [--seconds 5] [--clients 8] [--workers 2]
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
VAR_DIR = tempfile.mkdtemp(prefix="emporion-bench-cart-")
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
PRODUCTS = 50
CYCLE = 10


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
                "regular_price": Decimal(5 + n % 40),
                "stock_quantity": 1_000_000,
                "weight": Decimal("0.2"),
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


def query_counts(paths: dict[str, tuple[str, str, dict | None]], client: Client) -> dict:
    out = {}
    for name, (method, path, body) in paths.items():
        call = (
            (lambda p=path: client.get(p))
            if method == "GET"
            else (lambda p=path, b=body: client.post(p, b, content_type="application/json"))
        )
        call()  # warm the caches (zones, rates, settings)
        with CaptureQueriesContext(connection) as queries:
            response = call()
        assert response.status_code == 200, (path, response.status_code, response.content)
        out[name] = len(queries)
    return out


def drive(port: int, request_for, seconds: float, clients: int, cookie: str | None = None):
    """Each client keeps its own connection and cookie (starting with `cookie`);
    request_for(client, i) -> (method, path, body)."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        jar = cookie
        mine = []
        i = 0
        while time.monotonic() < stop:
            i += 1
            method, path, body = request_for(index, i)
            headers = {"Content-Type": "application/json"} if body is not None else {}
            if jar:
                headers["Cookie"] = jar
            started = time.perf_counter()
            conn.request(method, path, body=json.dumps(body) if body else None, headers=headers)
            response = conn.getresponse()
            response.read()
            mine.append(time.perf_counter() - started)
            set_cookie = response.getheader("Set-Cookie")
            if set_cookie and "ec_cart_id=" in set_cookie:
                jar = set_cookie.split(";", 1)[0].strip()
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


def prepared_cart(ids: list[int]) -> str:
    """A cart with 5 lines, an address, a chosen method and a coupon; answers its cookie."""
    client = Client()
    for product_id in ids[:5]:
        client.post(
            f"{API}/cart/items", {"product_id": product_id}, content_type="application/json"
        )
    client.post(
        f"{API}/cart/shipping-address",
        {"country": "GR", "region": "I", "postcode": "10431"},
        content_type="application/json",
    )
    methods = client.get(f"{API}/cart/shipping-methods").json()["methods"]
    client.post(
        f"{API}/cart/shipping-method",
        {"method_id": methods[0]["id"]},
        content_type="application/json",
    )
    client.post(f"{API}/coupons/apply", {"code": "BENCH10"}, content_type="application/json")
    cart = client.get(f"{API}/cart").json()["cart"]
    assert len(cart["items"]) == 5, cart
    assert cart["coupons"], cart
    assert cart["tax"] != "0.00", cart
    return f"ec_cart_id={client.cookies['ec_cart_id'].value}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    options = parser.parse_args()
    port = int(os.environ.get("BENCH_PORT", "8105"))

    call_command("migrate", verbosity=0)
    if os.environ.get("DATABASE_URL"):
        call_command("flush", interactive=False, verbosity=0)
    print(f"building {PRODUCTS} products, zones, EU VAT rates, a coupon ...", flush=True)
    ids = build_store()
    cookie = prepared_cart(ids)

    floor_path = f"/bench/floor/{ids[0]}"
    client = Client()
    client.post(f"{API}/cart/items", {"product_id": ids[0]}, content_type="application/json")
    client.post(f"{API}/coupons/apply", {"code": "BENCH10"}, content_type="application/json")
    reader = Client()
    reader.cookies.load(cookie)
    queries = (
        query_counts({"floor": ("GET", floor_path, None)}, Client())
        | query_counts(
            {"add_to_cart": ("POST", f"{API}/cart/items", {"product_id": ids[1]})}, client
        )
        | query_counts({"cart_read": ("GET", f"{API}/cart", None)}, reader)
    )

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
            "floor": lambda c, i: ("GET", floor_path, None),
            "add_to_cart": lambda c, i: (
                "POST",
                f"{API}/cart/items",
                {"product_id": ids[(c * 3 + i) % CYCLE]},
            ),
        }
        for make in cases.values():  # warm every worker a little
            drive(port, make, 0.5, options.workers * 2)
        results = {
            name: drive(port, make, options.seconds, options.clients)
            for name, make in cases.items()
        }
        results["cart_read"] = drive(
            port,
            lambda c, i: ("GET", f"{API}/cart", None),
            options.seconds,
            options.clients,
            cookie,
        )
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)

    from django.conf import settings

    floor = results["floor"]["rps"]
    print(
        f"database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, "
        f"cache: {settings.CACHES['default']['BACKEND'].rsplit('.', 1)[-1]}, "
        f"gunicorn workers: {options.workers}, clients: {options.clients}, "
        f"{options.seconds:.0f} s each"
    )
    print(
        f"{'case':<13}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'queries':>9}"
        f"{'x floor':>9}{'errors':>8}"
    )
    for name, r in results.items():
        print(
            f"{name:<13}{r['rps']:>9.0f}{r['p50']:>9.1f}{r['p95']:>9.1f}{queries[name]:>9}"
            f"{floor / r['rps']:>9.2f}{r['errors']:>8}"
        )


if __name__ == "__main__":
    main()
