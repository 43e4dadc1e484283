"""Store catalog under load, as a ratio against a floor measured in the same run.

- floor:        a bare Django view doing one indexed lookup (full middleware stack);
- list_cached:  GET /products?per_page=100, a public list served from the cache;
- list_miss:    the same page with a price bound that changes every request (never cached);
- product:      GET /products/{id} of a variable product (variants, gallery, attributes).

It builds a catalog of 600 products (half variable with 3 variants, categories, brands,
images) in a throw-away SQLite database (or DATABASE_URL if set), starts gunicorn on
127.0.0.1:8103 (BENCH_PORT) with DEBUG off, and drives each case with concurrent
keep-alive clients for a few seconds. The ratio is the floor's throughput over the case's.
It also counts the database queries of each case in-process: a cached list must cost none.

    .venv/bin/python bench/bench_store.py [--seconds 5] [--clients 8] [--workers 2]
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
VAR_DIR = tempfile.mkdtemp(prefix="emporion-bench-store-")
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

from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

PRODUCTS = 600


def build_catalog() -> tuple[int, int]:
    from store.catalog.models import Attribute, AttributeTerm, Brand, Category, ProductImage
    from store.catalog.services import products as product_services
    from store.catalog.services import variants as variant_services
    from store.media.models import SIZE_NAMES, MediaImage

    def image(n: int) -> MediaImage:
        stem = f"store/bench/{n:06d}"
        renditions = {
            size: {
                "width": 10,
                "height": 10,
                "files": {fmt: f"{stem}-{size}.{fmt}" for fmt in ("jpg", "webp", "avif")},
            }
            for size in SIZE_NAMES
        }
        for size in renditions.values():
            size["files"]["base"] = size["files"].pop("jpg")
        return MediaImage.objects.create(
            file=f"{stem}.jpg",
            content_type="image/jpeg",
            size=1,
            width=800,
            height=800,
            renditions=renditions,
        )

    colour = Attribute.objects.create(name="Colour", slug="color")
    terms = [
        AttributeTerm.objects.create(attribute=colour, name=n, slug=n)
        for n in ("red", "blue", "black")
    ]
    brands = [Brand.objects.create(name=f"Brand {n}", slug=f"brand-{n}") for n in range(10)]
    categories = [
        Category.objects.create(name=f"Category {n}", slug=f"category-{n}") for n in range(20)
    ]
    counter = 0
    variable_id = 0
    for n in range(PRODUCTS):
        counter += 1
        variable = n % 2 == 0
        product = product_services.product_create(
            fields={
                "title": f"Product {n}",
                "type": "variable" if variable else "simple",
                "status": "active",
                "sku": f"SKU-{n}",
                "brand": brands[n % 10].pk,
                "category_ids": [categories[n % 20].pk, categories[(n + 7) % 20].pk],
                "regular_price": Decimal(10 + n % 90),
                "stock_quantity": n % 7,
                "featured_image_id": image(counter).pk,
                "short_description": "A product of the benchmark catalog.",
            }
        )
        for k in range(2):
            counter += 1
            ProductImage.objects.create(product=product, image=image(counter), sort_order=k)
        if variable:
            variable_id = product.pk
            for k, term in enumerate(terms):
                variant_services.variant_create(
                    product_id=product.pk,
                    fields={
                        "attributes": [{"attribute_id": colour.pk, "term_id": term.pk}],
                        "regular_price": Decimal(10 + k),
                        "stock_quantity": k,
                    },
                )
    return variable_id, product.pk


def query_counts(paths: dict[str, str]) -> dict[str, int]:
    client = Client()
    out = {}
    for name, path in paths.items():
        if name == "list_cached":
            client.get(path)  # warm
        else:
            cache.clear()
        with CaptureQueriesContext(connection) as queries:
            response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        out[name] = len(queries)
    return out


def drive(port: int, path_for, seconds: float, clients: int) -> dict:
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
            started = time.perf_counter()
            conn.request("GET", path_for(index, i))
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    options = parser.parse_args()
    port = int(os.environ.get("BENCH_PORT", "8103"))

    call_command("migrate", verbosity=0)
    print(f"building {PRODUCTS} products ...", flush=True)
    variable_id, last_id = build_catalog()
    list_path = "/rest/ec/v1/products?per_page=100"
    paths = {
        "floor": f"/bench/floor/{last_id}",
        "list_cached": list_path,
        "list_miss": list_path + "&max_price=100000",
        "product": f"/rest/ec/v1/products/{variable_id}",
    }
    queries = query_counts(paths)
    assert queries["list_cached"] == 0, f"a cached list cost {queries['list_cached']} queries"
    body = json.loads(Client().get(list_path).content)
    assert len(body["data"]) == 100

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
            "list_cached": lambda c, i: paths["list_cached"],
            # A price bound no other request used: never in the cache.
            "list_miss": lambda c, i: f"{list_path}&max_price={100000 + c * 100000 + i}",
            "product": lambda c, i: paths["product"],
        }
        for path in paths.values():  # warm every worker a little
            drive(port, lambda c, i, p=path: p, 0.5, options.workers * 2)
        results = {
            name: drive(port, make, options.seconds, options.clients)
            for name, make in cases.items()
        }
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
