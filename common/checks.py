"""Project checks that `manage.py check --deploy` runs (tag `deploy`), beside Django's own.

Errors stop a deployment that `.ci/run` and docs/operations.md's production checklist would let
through otherwise: tokens signed with a guessable or shared key, several web processes without a
shared cache (rate limits and log-in locks per process), and sandbox payments that move no
money on a production site. One check runs with every command, not only --deploy: FRONTEND_URL
must be able to start a link (common.links).
"""

from __future__ import annotations

import math
from collections import Counter
from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

from common.links import base_url_problem

# HS256 wants a key of at least the hash's size (RFC 7518, 3.2): 256 bits. The estimate below
# (Shannon entropy of the key's own characters, times its length) under-counts a random key, so
# the bar is set at half of that; a key from the hint clears it many times over.
JWT_KEY_MIN_LENGTH = 32
JWT_KEY_MIN_BITS = 128
KEY_HINT = (
    "Set JWT_SIGNING_KEY to a long random value of its own, e.g. "
    "python3 -c 'import secrets; print(secrets.token_urlsafe(64))'."
)
# Values from examples, tutorials and libraries' documentation; compared without case, blanks
# and separators.
WELL_KNOWN_KEYS = frozenset(
    {
        "secret",
        "secretkey",
        "jwtsecret",
        "jwtsecretkey",
        "jwtsigningkey",
        "signingkey",
        "yoursecretkey",
        "your256bitsecret",
        "supersecret",
        "supersecretkey",
        "mysecret",
        "mysecretkey",
        "changeme",
        "changethis",
        "changeit",
        "password",
        "development",
        "test",
        "testing",
        "emporion",
    }
)
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def estimated_bits(value: str) -> float:
    """Length times the Shannon entropy of the value's characters: 0 for `aaaa`, ~6 a character
    for a random URL-safe string."""
    if not value:
        return 0.0
    counts = Counter(value)
    per_char = -sum((n / len(value)) * math.log2(n / len(value)) for n in counts.values())
    return per_char * len(value)


def jwt_key_problem(key: str) -> str | None:
    """Why `key` is too weak to sign tokens, or None."""
    squeezed = "".join(ch for ch in key.lower() if ch.isalnum())
    if key == settings.DEVELOPMENT_SECRET_KEY or key.startswith("django-insecure"):
        return "is the development key"
    if squeezed in WELL_KNOWN_KEYS:
        return "is a well-known example value"
    if len(key) < JWT_KEY_MIN_LENGTH:
        return f"is {len(key)} characters long (at least {JWT_KEY_MIN_LENGTH} are needed)"
    if estimated_bits(key) < JWT_KEY_MIN_BITS:
        return "has too little variety to be random (repeated or patterned characters)"
    return None


@register(Tags.security, deploy=True)
def jwt_signing_key(app_configs, **kwargs):
    key = settings.SIMPLE_JWT.get("SIGNING_KEY") or ""
    if key == settings.SECRET_KEY:
        return [
            Error(
                "JWT_SIGNING_KEY is unset: access and refresh tokens are signed with SECRET_KEY.",
                hint=KEY_HINT + " A key of their own lets either be rotated without the other "
                "(a new JWT_SIGNING_KEY logs every portal session out).",
                id="common.E001",
            )
        ]
    problem = jwt_key_problem(key)
    if problem:
        return [
            Error(
                f"JWT_SIGNING_KEY {problem}: anyone who guesses it can sign tokens for any "
                "account.",
                hint=KEY_HINT,
                id="common.E002",
            )
        ]
    return []


@register(Tags.caches, deploy=True)
def redis_in_production(app_configs, **kwargs):
    if settings.DEBUG or settings.REDIS_URL:
        return []
    return [
        Error(
            "REDIS_URL is unset with DEBUG off: the cache is per-process memory and Celery runs "
            "tasks inside the web process.",
            hint="Set REDIS_URL (redis://host:6379/0): rate limits, markers and the task queue "
            "must be shared by every web process and the worker.",
            id="common.E003",
        )
    ]


@register(Tags.security, deploy=True)
def sandbox_payments_in_production(app_configs, **kwargs):
    if settings.DEBUG or not settings.PAYMENT_SANDBOX_ALLOWED:
        return []
    return [
        Error(
            "PAYMENT_SANDBOX_ALLOWED is on with DEBUG off: sandbox payments move no money, so "
            "anyone can 'pay' for licence renewals and store orders.",
            hint="Unset it (production uses PAYMENT_PROVIDER=stripe and the store's real "
            "gateways); a staging site that wants the sandbox is not a production deployment.",
            id="common.E004",
        )
    ]


@register()
def frontend_url_is_a_base(app_configs, **kwargs):
    """Every link the site sends starts with FRONTEND_URL (common.links): a value that cannot
    start a link stops every command, development ones too."""
    problem = base_url_problem(settings.FRONTEND_URL)
    if not problem:
        return []
    return [
        Error(
            f"FRONTEND_URL is {settings.FRONTEND_URL!r}: {problem}, and every link in e-mails, "
            "feeds and API answers starts with it.",
            hint="Set it to this site's public address, e.g. https://shop.example.com (a path "
            "prefix is allowed: https://example.com/shop).",
            id="common.E005",
        )
    ]


@register(Tags.security, deploy=True)
def frontend_url_in_production(app_configs, **kwargs):
    if settings.DEBUG:
        return []
    parts = urlsplit(settings.FRONTEND_URL)
    if parts.scheme == "https" and (parts.hostname or "") not in LOOPBACK_HOSTS:
        return []
    return [
        Warning(
            f"FRONTEND_URL is {settings.FRONTEND_URL!r}: the links in e-mails, feeds and API "
            "answers (verification and password-reset pages, order pages, downloads, payment "
            "pages) would not reach this site from a reader's mailbox or a customer's machine.",
            hint="Set FRONTEND_URL to the public https:// address of this site (its "
            "/verify-email and /reset-password pages) or of the front end that serves them.",
            id="common.W001",
        )
    ]
