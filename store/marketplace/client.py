"""The calls to a marketplace's API: the sandbox client by default (each call recorded as a
MarketplaceCall and answered at once, nothing leaves the server), the live client with
MARKETPLACE_LIVE_API (HTTPS only, the marketplace's credentials, a short timeout; a failure,
a timeout or a non-2xx answer is 502 `marketplace_unavailable` and nothing is recorded as done).
"""

from __future__ import annotations

import requests
from django.conf import settings

from store.marketplace.models import MarketplaceCall
from store.marketplace.providers.base import (
    MarketplaceProvider,
    ParsedOrder,
    not_configured,
    unavailable,
)

TIMEOUT_SECONDS = 10


def _record(provider, action: str, order: ParsedOrder, path: str, body: dict, *, response: str,
            sandbox: bool) -> MarketplaceCall:  # fmt: skip
    return MarketplaceCall.objects.create(
        marketplace=provider.name,
        action=action,
        order_code=order.code,
        request={"path": path, "body": body},
        ok=True,
        response=response,
        sandbox=sandbox,
    )


def call(
    provider: MarketplaceProvider, *, action: str, order: ParsedOrder, request: tuple[str, dict]
) -> MarketplaceCall:
    """Send one action (`request`: the provider's (path, body)) and record it."""
    path, body = request
    if not settings.MARKETPLACE_LIVE_API:
        sandboxed = "sandbox: accepted (no call left the server)"
        return _record(provider, action, order, path, body, response=sandboxed, sandbox=True)
    provider.ensure_configured()
    base = provider.api_base()
    if not base.startswith("https://"):
        raise not_configured(f"The {provider.title} API address must be https://.")
    try:
        answer = requests.post(
            base + path, json=body, headers=provider.api_headers(), timeout=TIMEOUT_SECONDS
        )
    except requests.RequestException as exc:
        raise unavailable(
            f"{provider.title} could not be reached: {exc.__class__.__name__}."
        ) from exc
    if not 200 <= answer.status_code < 300:
        raise unavailable(f"{provider.title} answered {answer.status_code} to {action}.")
    return _record(
        provider, action, order, path, body, response=str(answer.status_code), sandbox=False
    )
