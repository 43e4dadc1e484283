"""Scale test, licences: one account holding n licences, listed in full.

`seed(n)` bulk-creates n licences of one reseller (half of them activated on a domain, the
list shows activations), in batches; CASES ask the bench server for the whole list
(`GET /api/v1/portal/licenses` over HTTP, bench/scale.py: the full middleware stack, bearer
authentication, the throttle's Redis round trip) and read the streamed answer to its end,
against F-pk, with the most a gunicorn worker's resident memory grew meanwhile (its peak RSS
over its size before: what streaming must keep flat).
"""

from __future__ import annotations

from datetime import timedelta

from bench.harness.http_loop import HttpCase

SEED_VERSION = "1"
EMAIL = "scale-licences@example.com"
BATCH = 5000
# 100,000 licences streamed may cost what 1,000 F-pk requests cost (a hundredth of a floor
# request per licence: each row is one tuple of a server-side cursor and a few bytes of JSON).
GOAL_P50 = 1000.0
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


#: the whole list, streamed and read to its end, with the memory a worker grew by meanwhile
CASES = [
    HttpCase(
        "portal licence list, all licences",
        "/api/v1/portal/licenses",
        {"Authorization": "Bearer {licences_token}"},
        goal_p50=GOAL_P50,
        goal_mib=GOAL_MIB,
    )
]


def context() -> dict:
    """A fresh access token of the licences' owner (tokens expire: made on every run)."""
    from accounts import services
    from accounts.models import User

    owner = User.objects.get(email=EMAIL)
    return {"licences_token": services.issue_tokens(owner)["access_token"]}
