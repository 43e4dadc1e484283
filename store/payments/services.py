"""Payment methods for the checkout: which are offered, and the one a shopper chose."""

from __future__ import annotations

from decimal import Decimal

from store.common.errors import rule_broken
from store.payments.gateways import GATEWAYS, Gateway
from store.settings import selectors as store_settings


def payment_methods(*, config: dict | None = None) -> list[Gateway]:
    """The methods offered now: enabled in the settings and able to take payments here."""
    config = config or store_settings.get_all()
    return [g for g in GATEWAYS.values() if g.enabled(config) and g.configured()]


def gateway_get(*, method_id: str, config: dict | None = None) -> Gateway:
    """The gateway of `method_id`: 400 `payment_method_unavailable` when unknown or turned
    off; 503 `payments_not_configured` for the sandbox outside development."""
    config = config or store_settings.get_all()
    gateway = GATEWAYS.get(method_id or "")
    if gateway is None or not gateway.enabled(config):
        offered = ", ".join(g.id for g in payment_methods(config=config)) or "none"
        raise rule_broken(
            f"Payment method {method_id!r} is not offered (offered: {offered}).",
            code="payment_method_unavailable",
        )
    gateway.ensure_configured()
    return gateway


def card_refund(*, gateway: Gateway, transaction_id: str, amount: Decimal) -> None:
    """Give a charge back (a placement that failed after the card was charged)."""
    provider = getattr(gateway, "provider", None)
    if provider is not None and transaction_id:
        provider.refund(transaction_id=transaction_id, amount=amount)
