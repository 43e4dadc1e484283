"""Authentication under load: what each credential costs a request, against F-pk.

Every portal and store request authenticates, so these are the service's hottest fixed costs:
- bearer:       GET /bench/auth/portal with a JWT (signature check + the user's row);
- api_key:      the same probe with X-API-Key (prefix lookup + SHA-256 + the account's row);
- app_password: GET /bench/auth/store with HTTP Basic and an application password;
- me:           GET /api/v1/portal/auth/me with the JWT (the real endpoint, serializer included).

The probes (bench/urls.py) only authenticate and answer the caller's id. No goal: the ratios
show the cost a credential adds to every endpoint that takes it.

    .venv/bin/python -m bench.bench_auth --rounds 5 --seconds 3
"""

import base64

from bench.harness import Case, run_bench

SEED_VERSION = "1"


def seed() -> dict:
    from datetime import timedelta

    from rest_framework_simplejwt.tokens import AccessToken

    from accounts import services
    from accounts.models import AccountType, User

    user = User.objects.create_user(
        "bench@example.com",
        "Bench-Pass-2026",
        name="Bench",
        type=AccountType.RESELLER,
        email_verified=True,
    )
    access = AccessToken.for_user(user)
    access.set_exp(lifetime=timedelta(days=3650))  # kept across runs until the next reseed
    _key, raw_key = services.api_key_create(user=user, name="bench")
    _app, app_password = services.app_password_create(user=user, name="bench")
    basic = base64.b64encode(f"bench@example.com:{app_password}".encode()).decode()
    return {"access": str(access), "api_key": raw_key, "basic": basic}


CASES = [
    Case(
        "bearer",
        path="/bench/auth/portal",
        headers={"Authorization": "Bearer {access}"},
        floor="pk",
    ),
    Case("api_key", path="/bench/auth/portal", headers={"X-API-Key": "{api_key}"}, floor="pk"),
    Case(
        "app_password",
        path="/bench/auth/store",
        headers={"Authorization": "Basic {basic}"},
        floor="pk",
    ),
    Case(
        "me",
        path="/api/v1/portal/auth/me",
        headers={"Authorization": "Bearer {access}"},
        floor="pk",
    ),
]

if __name__ == "__main__":
    run_bench("auth", seed=seed, cases=CASES, seed_version=SEED_VERSION)
