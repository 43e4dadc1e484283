"""Licensing: the developer's licence limit, signed verify answers and downloads, the currency,
and the renewal payments' provider."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.env import env_int, env_str

# Licences a developer account may hold (nfr excluded); resellers and agencies are unlimited.
LICENSE_LIMIT_DEVELOPER = env_int("LICENSE_LIMIT_DEVELOPER", 10, minimum=0)
# Ed25519 key that signs verify answers: base64 of the 32-byte seed, or a PKCS#8 PEM. Unset: a
# stable key derived from SECRET_KEY (see docs/decisions/licensing.md).
LICENSE_SIGNING_KEY = env_str("LICENSE_SIGNING_KEY")
# How long an installed copy may trust a signed verify answer offline.
LICENSE_VERIFY_CACHE_HOURS = env_int("LICENSE_VERIFY_CACHE_HOURS", 72, minimum=0)
# Lifetime of a signed download URL.
LICENSE_DOWNLOAD_URL_SECONDS = env_int("LICENSE_DOWNLOAD_URL_SECONDS", 300, minimum=10)
LICENSE_CURRENCY = env_str("LICENSE_CURRENCY", "USD").strip().upper()
if len(LICENSE_CURRENCY) != 3 or not LICENSE_CURRENCY.isalpha():
    raise ImproperlyConfigured(
        f"LICENSE_CURRENCY must be a three-letter ISO 4217 code; got {LICENSE_CURRENCY!r}"
    )
# Renewal payments: "sandbox" (a local checkout page with a Pay button) or "stripe".
PAYMENT_PROVIDER = env_str("PAYMENT_PROVIDER", "sandbox").strip().lower()
if PAYMENT_PROVIDER not in ("sandbox", "stripe"):
    raise ImproperlyConfigured(
        f"PAYMENT_PROVIDER must be 'sandbox' or 'stripe'; got {PAYMENT_PROVIDER!r}"
    )
STRIPE_SECRET_KEY = env_str("STRIPE_SECRET_KEY")
if PAYMENT_PROVIDER == "stripe" and not STRIPE_SECRET_KEY:
    raise ImproperlyConfigured("PAYMENT_PROVIDER is 'stripe' but STRIPE_SECRET_KEY is unset.")
STRIPE_API_BASE = env_str("STRIPE_API_BASE", "https://api.stripe.com").rstrip("/")
PAYMENT_PROVIDER_TIMEOUT = env_int("PAYMENT_PROVIDER_TIMEOUT", 10, minimum=1)
# Where the payer lands after paying (order_code and transaction_id are added to the query).
# Unset: the sandbox shows its own receipt page; Stripe returns to FRONTEND_URL/renewals/complete.
RENEWAL_RETURN_URL = env_str("RENEWAL_RETURN_URL")
