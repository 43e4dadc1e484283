"""Payment providers for licence renewals.

`get_provider()` answers the provider named by settings.PAYMENT_PROVIDER:
- `sandbox` (default): a local checkout page (`/pay/sandbox/<token>`) where a person presses
  Pay or Decline; no money moves. For development and demos: refused unless
  settings.PAYMENT_SANDBOX_ALLOWED (on with DEBUG, off in production unless set).
- `stripe`: Stripe Checkout over its REST API (`requests`), see licensing.payments.stripe.
"""

from __future__ import annotations

from django.conf import settings

from common.errors import ServiceError
from licensing.payments.base import Checkout, PaymentCheck, PaymentProvider, ProviderUnavailable


class PaymentsNotConfigured(ServiceError):
    status_code = 503
    default_code = "payments_not_configured"


def sandbox_allowed() -> bool:
    """Sandbox payments move no money: only in development or where explicitly allowed."""
    return bool(settings.PAYMENT_SANDBOX_ALLOWED)


def get_provider(name: str | None = None) -> PaymentProvider:
    name = name or settings.PAYMENT_PROVIDER
    if name == "stripe":
        from licensing.payments.stripe import StripeProvider

        return StripeProvider(
            secret_key=settings.STRIPE_SECRET_KEY,
            api_base=settings.STRIPE_API_BASE,
            timeout=settings.PAYMENT_PROVIDER_TIMEOUT,
        )
    if not sandbox_allowed():
        raise PaymentsNotConfigured(
            "Renewal payments are not configured on this server: the sandbox provider moves no "
            "money and is off in production. The operator sets PAYMENT_PROVIDER=stripe (or "
            "PAYMENT_SANDBOX_ALLOWED=1 on a staging site)."
        )
    from licensing.payments.sandbox import SandboxProvider

    return SandboxProvider()


__all__ = [
    "Checkout",
    "PaymentCheck",
    "PaymentProvider",
    "PaymentsNotConfigured",
    "ProviderUnavailable",
    "get_provider",
    "sandbox_allowed",
]
