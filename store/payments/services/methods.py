"""The payment methods a shopper is offered and the gateways' own settings (the store settings'
`payments` section): the lists, the checkout's choice of a method, a gateway's settings saved.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from common.errors import ServiceError
from store.common.errors import invalid_params, rule_broken
from store.common.locations import Location
from store.payments import selectors
from store.payments.gateways import GATEWAYS, Gateway
from store.settings import selectors as store_settings
from store.settings import services as settings_services

if TYPE_CHECKING:
    from accounts.models import User


# --- The methods offered -----------------------------------------------------------------------


class PricedCart(Protocol):
    """What the methods read of a priced cart (store.cart's CartState): where it ships, as
    priced, and its totals."""

    @property
    def location(self) -> Location: ...

    @property
    def totals(self) -> dict[str, Decimal]: ...


class CartLimits(TypedDict):
    """The keyword arguments of the gateways' limits (gateway_get, selectors.payment_methods)."""

    country: str
    total: Decimal


def cart_limits(state: PricedCart) -> CartLimits:
    """What the gateways' limits read of a priced cart: its country (where it ships, as priced)
    and its total. The lists and the checkout's choice read the same."""
    return {"country": state.location.country or "", "total": state.totals["total"]}


def payment_methods(
    *, config: dict[str, Any] | None = None, state: PricedCart | None = None
) -> list[Gateway]:
    """The methods offered now (selectors.payment_methods): for a priced cart (`state`),
    those offered for its country and total."""
    if state is None:
        return selectors.payment_methods(config=config)
    return selectors.payment_methods(config=config, **cart_limits(state))


def gateway_get(
    *,
    method_id: str,
    config: dict[str, Any] | None = None,
    country: str = "",
    total: Decimal | None = None,
) -> Gateway:
    """The gateway of `method_id`: 400 `payment_method_unavailable` when unknown, turned off,
    or (with `country`/`total`, e.g. `cart_limits` of a priced cart) outside the gateway's
    countries or min/max total (the rule of the lists: Gateway.unavailable_because); 503
    `payments_not_configured` for the sandbox outside development."""
    config = config or store_settings.get_all()
    gateway = GATEWAYS.get(method_id or "")
    why = ""
    if gateway is None or not gateway.enabled(config):
        why = "it is unknown or turned off"
    else:
        why = gateway.unavailable_because(config, country=country, total=total)
    if why or gateway is None:
        offered = (
            ", ".join(
                g.id for g in selectors.payment_methods(config=config, country=country, total=total)
            )
            or "none"
        )
        raise rule_broken(
            f"Payment method {method_id!r} cannot be used here: {why} (offered: {offered}).",
            code="payment_method_unavailable",
        )
    gateway.ensure_configured()
    return gateway


def card_refund(*, gateway: Gateway, transaction_id: str, amount: Decimal) -> None:
    """Give a charge back (a placement that failed after the card was charged)."""
    provider = getattr(gateway, "provider", None)
    if provider is not None and transaction_id:
        provider.refund(transaction_id=transaction_id, amount=amount)


# --- Gateway settings (the store settings' `payments` section) ------------------------------


def gateway_update(
    *, gateway_id: str, fields: dict[str, Any], user: User | None = None
) -> dict[str, Any]:
    """Set a gateway's enabled, order, title, description and settings (its limits and its
    own keys, e.g. the bank details of bank_transfer), validated by the settings section; an
    unknown setting of this gateway is refused (400 naming `settings.<key>`)."""
    gateway = selectors.gateway_of(gateway_id)
    allowed = (*selectors.LIMIT_KEYS, *selectors.EXTRA_KEYS.get(gateway.id, ()))
    own = fields.get("settings") or {}
    unknown = sorted(set(own) - set(allowed))
    if unknown:
        raise invalid_params(
            {
                f"settings.{key}": [f"Not a setting of {gateway.id} (its: {', '.join(allowed)})."]
                for key in unknown
            },
            code="unknown_setting",
        )
    values = {
        f"{gateway.id}_{name}": fields[name]
        for name in ("enabled", "order", "title", "description")
        if name in fields
    }
    values.update({f"{gateway.id}_{key}": value for key, value in own.items()})
    if values:
        try:
            settings_services.settings_update(section="payments", values=values, user=user)
        except ServiceError as exc:
            prefix = f"{gateway.id}_"
            errors: dict[str, list[str] | str] = {
                (
                    f"settings.{name[len(prefix) :]}"
                    if name[len(prefix) :] in allowed
                    else name[len(prefix) :]
                ): messages
                for name, messages in (exc.errors or {}).items()
            }
            if errors:
                raise invalid_params(errors) from exc
            raise
    return selectors.gateway_data(gateway, store_settings.get_all())
