"""Payment providers for licence renewals.

`get_provider()` answers the provider named by settings.PAYMENT_PROVIDER:
- `sandbox` (default): a local checkout page (`/pay/sandbox/<token>`) where a person presses
  Pay or Decline; no money moves. For development and demos.
- `stripe`: Stripe Checkout over its REST API (`requests`), see licensing.payments.stripe.
"""

from __future__ import annotations

from django.conf import settings

from licensing.payments.base import Checkout, PaymentCheck, PaymentProvider, ProviderUnavailable


def get_provider(name: str | None = None) -> PaymentProvider:
    name = name or settings.PAYMENT_PROVIDER
    if name == "stripe":
        from licensing.payments.stripe import StripeProvider

        return StripeProvider(
            secret_key=settings.STRIPE_SECRET_KEY,
            api_base=settings.STRIPE_API_BASE,
            timeout=settings.PAYMENT_PROVIDER_TIMEOUT,
        )
    from licensing.payments.sandbox import SandboxProvider

    return SandboxProvider()


__all__ = ["Checkout", "PaymentCheck", "PaymentProvider", "ProviderUnavailable", "get_provider"]
