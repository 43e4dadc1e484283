"""The public verify endpoint under load, served by gunicorn, against a floor in the same run.

- floor:  a bare Django view (full middleware stack, no DRF) that does one indexed lookup of a
          licence by key and answers JSON (bench/bench_urls.py);
- verify: POST /api/v1/licenses/verify (DRF, input validation, two queries, Ed25519 signature).

gunicorn serves both on 127.0.0.1 (default port 8102) with production settings (DEBUG off); the
load comes from separate client processes on loopback, each sending requests one after another
for a fixed time. Reported per case: requests/s, p50 and p99 latency, and the ratio to the
floor (throughput floor/verify, latency verify/floor). Rounds alternate floor and verify; the
median round is reported.

    .venv/bin/python bench/bench_verify.py                      # SQLite in a temp directory
    .venv/bin/python bench/bench_verify.py --database-url postgres://postgres@127.0.0.1:5432/emporion_lic
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def server_env(args) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "bench.settings",
            "DEBUG": "0",
            "SECRET_KEY": "bench-" + secrets.token_urlsafe(48),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0",
            "VAR_DIR": args.var_dir,
            "THROTTLE_RATE_LICENSE_VERIFY": "100000000/min",
            "LOG_LEVEL": "WARNING",
        }
    )
    env.pop("REDIS_URL", None)
    if args.database_url:
        env["DATABASE_URL"] = args.database_url
    else:
        env.pop("DATABASE_URL", None)
    return env


def prepare(env: dict[str, str]) -> tuple[str, str]:
    """Migrate and create a product, a licence and its activation; answers (key, domain)."""
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from accounts.models import User
    from licensing.models import Product
    from licensing.services.activation import license_activate
    from licensing.services.licenses import license_create, licenses_issue

    user, _ = User.objects.get_or_create(
        email="bench@example.com", defaults={"name": "Bench", "email_verified": True}
    )
    product, _ = Product.objects.get_or_create(slug="bench", defaults={"name": "Bench"})
    license = license_create(owner=user, product=product, enforce_limit=False)
    license_activate(license_key=license.license_key, domain="bench.example.com")
    # Other rows, so that the lookups use the index rather than a tiny table scan.
    licenses_issue(owner=user, product=product, count=2000)
    return license.license_key, "bench.example.com"


def request_once(port: int, method: str, path: str, body: bytes | None) -> float:
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json"} if body else {}
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    if response.status != 200:
        raise RuntimeError(f"{method} {path} answered {response.status}")
    return time.perf_counter() - started


def client_loop(job: tuple) -> list[float]:
    port, method, path, body, seconds = job
    latencies = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        latencies.append(request_once(port, method, path, body))
    return latencies


def load(pool, port: int, case: tuple, clients: int, seconds: float) -> dict:
    method, path, body = case
    started = time.perf_counter()
    results = pool.map(client_loop, [(port, method, path, body, seconds)] * clients)
    elapsed = time.perf_counter() - started
    latencies = sorted(x for result in results for x in result)
    return {
        "rps": len(latencies) / elapsed,
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        "requests": len(latencies),
    }


def wait_ready(port: int, process: subprocess.Popen) -> None:
    for _ in range(100):
        if process.poll() is not None:
            raise RuntimeError("gunicorn exited; see its output above")
        try:
            request_once(port, "GET", "/api/v1/licenses/public-key", None)
            return
        except (OSError, RuntimeError):
            time.sleep(0.2)
    raise RuntimeError("gunicorn did not answer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8102)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--clients", type=int, default=4, help="concurrent client processes")
    parser.add_argument("--seconds", type=float, default=5.0, help="per case and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", default="", help="default: SQLite in a temp dir")
    args = parser.parse_args()
    args.var_dir = tempfile.mkdtemp(prefix="emporion-bench-")
    Path(args.var_dir, "static").mkdir()

    env = server_env(args)
    key, domain = prepare(env)
    from django.conf import settings

    database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    gunicorn = subprocess.Popen(  # noqa: S603 - our own virtualenv's gunicorn
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{args.port}",
            "--workers",
            str(args.workers),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    cases = {
        "floor": ("GET", f"/bench/floor?key={key}", None),
        "verify": (
            "POST",
            "/api/v1/licenses/verify",
            json.dumps({"license_key": key, "domain": domain}).encode(),
        ),
    }
    try:
        wait_ready(args.port, gunicorn)
        rounds: dict[str, list[dict]] = {name: [] for name in cases}
        with multiprocessing.get_context("spawn").Pool(args.clients) as pool:
            for case in cases.values():  # warm up
                load(pool, args.port, case, args.clients, 1.0)
            for _ in range(args.rounds):
                for name, case in cases.items():
                    rounds[name].append(load(pool, args.port, case, args.clients, args.seconds))
    finally:
        gunicorn.send_signal(signal.SIGTERM)
        gunicorn.wait(timeout=30)

    def median_round(name: str) -> dict:
        return sorted(rounds[name], key=lambda r: r["rps"])[len(rounds[name]) // 2]

    floor, verify = median_round("floor"), median_round("verify")
    print(
        f"database: {database}; gunicorn {args.workers} sync workers on 127.0.0.1:{args.port}; "
        f"{args.clients} client processes; {args.rounds} rounds of {args.seconds:g} s (median)"
    )
    print(f"{'case':<8}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'requests':>10}")
    for name, row in (("floor", floor), ("verify", verify)):
        print(
            f"{name:<8}{row['rps']:>10.0f}{row['p50']:>10.2f}{row['p99']:>10.2f}"
            f"{row['requests']:>10}"
        )
    print(
        f"ratio   throughput floor/verify {floor['rps'] / verify['rps']:.2f}x, "
        f"p50 verify/floor {verify['p50'] / floor['p50']:.2f}x, "
        f"p99 verify/floor {verify['p99'] / floor['p99']:.2f}x"
    )


if __name__ == "__main__":
    main()
