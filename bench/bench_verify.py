"""Licence verify under load: `POST /api/v1/licenses/verify` against F-pk.

The public, unauthenticated hot path of every installed copy: JSON in, the throttle's one Redis
round trip, one SQL query (the licence, its product and its activations joined), an Ed25519
signature over the verdict, JSON out. Goal: p50 <= 1.5x F-pk, p99 <= 2x.

    .venv/bin/python -m bench.bench_verify --rounds 5 --seconds 3
"""

from bench.harness import Case, run_bench

SEED_VERSION = "1"
DOMAIN = "bench.example.com"


def seed() -> dict:
    from accounts.models import User
    from licensing.models import Product
    from licensing.services.activation import license_activate
    from licensing.services.licenses import license_create, licenses_issue

    user = User.objects.create(email="bench@example.com", name="Bench", email_verified=True)
    product = Product.objects.create(slug="bench", name="Bench")
    license = license_create(owner=user, product=product, enforce_limit=False)
    license_activate(license_key=license.license_key, domain=DOMAIN)
    # Other licences, so that the lookup uses the index rather than a tiny table's scan.
    licenses_issue(owner=user, product=product, count=5000)
    return {"license_key": license.license_key, "domain": DOMAIN}


CASES = [
    Case(
        "verify",
        method="POST",
        path="/api/v1/licenses/verify",
        body='{{"license_key": "{license_key}", "domain": "{domain}"}}',
        headers={"Content-Type": "application/json"},
        floor="pk",
        goal_p50=1.5,
        goal_p99=2.0,
    ),
]

if __name__ == "__main__":
    run_bench("verify", seed=seed, cases=CASES, seed_version=SEED_VERSION)
