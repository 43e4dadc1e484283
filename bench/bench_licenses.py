"""The portal licence list under load: `GET /api/v1/portal/licenses` (100 licences) against F-pk.

A reseller's integration listing its licences with its API key: authentication (key prefix
lookup + SHA-256), the throttle's Redis round trip, the caller's 100 licences (half of them
activated on a domain) read in one keyset chunk (licences with their product, then their
activations: two queries) and streamed as the spec's plain JSON array. Goal:
p50 <= 3x F-pk.

    .venv/bin/python -m bench.bench_licenses --rounds 5 --seconds 3
"""

from bench.harness import Case, run_bench

SEED_VERSION = "1"
LICENCES = 100


def seed() -> dict:
    from datetime import timedelta

    from django.utils import timezone

    from accounts import services
    from accounts.models import AccountType, User
    from licensing.keys import generate_license_key
    from licensing.models import Activation, License, Product

    owner = User.objects.create_user(
        "bench-licences@example.com",
        "Bench-Pass-2026",
        name="Bench",
        type=AccountType.RESELLER,
        email_verified=True,
    )
    product = Product.objects.create(slug="bench-licences", name="Bench licences")
    now = timezone.now()
    licences = License.objects.bulk_create(
        License(
            owner=owner,
            product=product,
            license_key=generate_license_key(),
            expires_at=now + timedelta(days=365),
            created_at=now - timedelta(minutes=n),
        )
        for n in range(LICENCES)
    )
    Activation.objects.bulk_create(
        Activation(license=licence, domain=f"site-{licence.pk}.example.com")
        for licence in licences[::2]
    )
    # Other accounts' licences, so that the lookup goes through the owner's index.
    other = User.objects.create_user("bench-other@example.com", "Bench-Pass-2026", name="Other")
    License.objects.bulk_create(
        License(
            owner=other,
            product=product,
            license_key=generate_license_key(),
            expires_at=now + timedelta(days=365),
        )
        for _ in range(5000)
    )
    _key, raw_key = services.api_key_create(user=owner, name="bench")
    return {"api_key": raw_key}


CASES = [
    Case(
        "list_100",
        method="GET",
        path="/api/v1/portal/licenses",
        headers={"X-API-Key": "{api_key}"},
        floor="pk",
        goal_p50=3.0,
        goal_p99=None,
    ),
]

if __name__ == "__main__":
    run_bench("licenses", seed=seed, cases=CASES, seed_version=SEED_VERSION)
