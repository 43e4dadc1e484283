"""Cost of authenticating a request, as a ratio against an unauthenticated floor.

Every portal and store request authenticates, so these are the hottest paths of the service:
- floor:        a JSON 404 from the catch-all route (full middleware stack, no database);
- bearer:       GET /portal/auth/me with a JWT (signature check + one user query);
- api_key:      a key-accepting endpoint with X-API-Key (prefix lookup + SHA-256);
- app_password: a store endpoint with HTTP Basic and an application password.

Runs in-process on a throw-away SQLite database.
"""

from __future__ import annotations

import base64
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["VAR_DIR"] = tempfile.mkdtemp(prefix="emporion-bench-")
os.environ.pop("DATABASE_URL", None)

import django

django.setup()

from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.test.utils import override_settings

ROUNDS, REQUESTS = 5, 300


def measure(client: Client, path: str, **headers) -> float:
    """Median of ROUNDS runs of REQUESTS requests, in microseconds per request."""
    timings = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for _ in range(REQUESTS):
            client.get(path, **headers)
        timings.append((time.perf_counter() - started) / REQUESTS * 1e6)
    return statistics.median(timings)


def main() -> None:
    call_command("migrate", verbosity=0)
    from accounts import services
    from accounts.models import AccountType, User

    user = User.objects.create_user(
        "bench@example.com",
        "Bench-Pass-2026",
        name="Bench",
        type=AccountType.RESELLER,
        email_verified=True,
    )
    access = services.issue_tokens(user)["access_token"]
    _key, raw_key = services.api_key_create(user=user, name="bench")
    _app, app_password = services.app_password_create(user=user, name="bench")
    basic = base64.b64encode(f"bench@example.com:{app_password}".encode()).decode()

    client = Client(HTTP_HOST="127.0.0.1")
    with override_settings(ROOT_URLCONF="tests.stand_in_urls", DEBUG=False):
        for path, headers in [
            ("/api/v1/portal/auth/me", {"HTTP_AUTHORIZATION": f"Bearer {access}"}),
            ("/api/v1/portal/stand-in/keyed", {"HTTP_X_API_KEY": raw_key}),
            ("/rest/ec/v1/stand-in/basic", {"HTTP_AUTHORIZATION": f"Basic {basic}"}),
        ]:
            assert client.get(path, **headers).status_code == 200, path
        floor = measure(client, "/api/v1/nothing-here")
        cases = {
            "bearer": measure(
                client, "/api/v1/portal/auth/me", HTTP_AUTHORIZATION=f"Bearer {access}"
            ),
            "api_key": measure(client, "/api/v1/portal/stand-in/keyed", HTTP_X_API_KEY=raw_key),
            "app_password": measure(
                client, "/rest/ec/v1/stand-in/basic", HTTP_AUTHORIZATION=f"Basic {basic}"
            ),
        }
    print(f"database: {settings.DATABASES['default']['ENGINE']}")
    print(f"{'case':<14}{'µs/request':>12}{'x floor':>10}")
    print(f"{'floor':<14}{floor:>12.0f}{1:>10.2f}")
    for name, value in cases.items():
        print(f"{name:<14}{value:>12.0f}{value / floor:>10.2f}")


if __name__ == "__main__":
    main()
