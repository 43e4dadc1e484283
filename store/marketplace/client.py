"""The calls to a marketplace's API: the sandbox client by default (each call recorded as a
MarketplaceCall and answered at once, nothing leaves the server), the live client with
MARKETPLACE_LIVE_API (HTTPS only, the marketplace's credentials, a short timeout; a failure,
a timeout or a non-2xx answer is 502 `marketplace_unavailable` and nothing is recorded as done).

The live calls go through common.net, the guarded client: a marketplace API address that is or
resolves to an inside address is never connected to, redirects are not followed, and every
failure answers the same message (what was behind the address is only in the server log).
"""

from __future__ import annotations

from django.conf import settings

from common import net
from store.marketplace.models import MarketplaceCall
from store.marketplace.providers.base import (
    MarketplaceProvider,
    ParsedOrder,
    not_configured,
    unavailable,
)

TIMEOUT_SECONDS = 10
ANSWER_BYTES = 1024 * 1024  # only the status is used; a larger answer is a failure


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
    if not (base.startswith("https://") or (net.allow_private() and base.startswith("http://"))):
        raise not_configured(f"The {provider.title} API address must be https://.")
    try:
        answer = net.request(
            "POST",
            base + path,
            json=body,
            headers=provider.api_headers(),
            timeout=TIMEOUT_SECONDS,
            max_bytes=ANSWER_BYTES,
        )
    except net.OutboundError:
        raise unavailable(f"{provider.title} could not be reached.") from None
    if not 200 <= answer.status_code < 300:
        raise unavailable(f"{provider.title} answered {answer.status_code} to {action}.")
    return _record(
        provider, action, order, path, body, response=str(answer.status_code), sandbox=False
    )
