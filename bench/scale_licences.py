"""Scale test, licences: one account holding n licences, listed in full.

`seed(n)` bulk-creates n licences of one reseller (half of them activated on a domain, the
list shows activations), in batches; `measure()` asks the real view for the whole list
(`GET /api/v1/portal/licenses` through Django's test client, in this process: the full
middleware stack, bearer authentication, the throttle's Redis round trip) and reads the
streamed answer to its end, timing it and tracing the memory Python allocates meanwhile
(tracemalloc's peak over the start: what a worker would grow by).
"""

from __future__ import annotations

import json
import time
import tracemalloc
from datetime import timedelta

SEED_VERSION = "1"
EMAIL = "scale-licences@example.com"
BATCH = 5000
GOAL_MS = 3000.0
GOAL_MIB = 50.0


def seed(n: int) -> None:
    from django.utils import timezone

    from accounts.models import AccountType, User
    from licensing.keys import generate_license_key
    from licensing.models import Activation, License, LicenseSource, Product, Tier

    owner = User.objects.create_user(
        EMAIL, "Scale-Pass-2026", name="Scale", type=AccountType.RESELLER, email_verified=True
    )
    product = Product.objects.create(slug="scale-licences", name="Scale licences")
    now = timezone.now()
    sources = list(LicenseSource.values)
    for start in range(0, n, BATCH):
        licences = License.objects.bulk_create(
            License(
                owner=owner,
                product=product,
                license_key=generate_license_key(),
                tier=Tier.BUSINESS if i % 3 == 0 else Tier.STARTER,
                source=sources[i % len(sources)],
                expires_at=now + timedelta(days=30 + i % 400),
                created_at=now - timedelta(seconds=i),
            )
            for i in range(start, min(start + BATCH, n))
        )
        Activation.objects.bulk_create(
            Activation(license=licence, domain=f"site-{licence.pk}.example.com", activated_at=now)
            for licence in licences[::2]
        )


def measure() -> list[tuple[str, float, float]]:
    from django.test import Client

    from accounts import services
    from accounts.models import User

    owner = User.objects.get(email=EMAIL)
    token = services.issue_tokens(owner)["access_token"]
    client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Bearer {token}")
    count = owner.licenses.count()

    def full_list(*, trace: bool) -> tuple[float, float]:
        if trace:
            tracemalloc.start()
        started = time.perf_counter()
        response = client.get("/api/v1/portal/licenses", secure=True)
        assert response.status_code == 200, response
        for _piece in response.streaming_content:
            pass
        took = (time.perf_counter() - started) * 1000
        peak = 0.0
        if trace:
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        return took, peak

    full_list(trace=False)  # warm-up: connections, caches, imports
    took = sorted(full_list(trace=False)[0] for _ in range(3))[1]  # the median of 3
    peak = full_list(trace=True)[1]  # traced apart: tracing slows the run down
    # Spot-check the answer once: every licence, as a JSON array.
    response = client.get("/api/v1/portal/licenses", secure=True)
    rows = json.loads(b"".join(response.streaming_content))
    assert len(rows) == count, (len(rows), count)
    label = f"portal licence list, {count // 1000}k rows"
    return [
        (label, took, GOAL_MS),
        (f"{label}: memory growth MiB (tracemalloc peak)", peak, GOAL_MIB),
    ]
