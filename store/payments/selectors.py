"""Reads of the payments app: gateways as configured, their configs, attempts and refunds."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.conf import settings

from store.common.errors import not_found
from store.common.pagination import named_page, page_of
from store.payments.crypto import mask, unseal
from store.payments.gateways import GATEWAYS, ONLINE, Gateway
from store.payments.models import GatewayConfig
from store.settings import selectors as store_settings

#: The credential fields each provider takes; `secret` ones are masked when shown.
CREDENTIALS = {
    "sandbox": {"webhook_secret": True},
    "stripe": {"secret_key": True, "publishable_key": False, "webhook_secret": True},
    "paypal": {"client_id": False, "client_secret": True, "webhook_id": False},
}
#: What gateway settings each gateway has beyond enabled/title/description/order/limits.
LIMIT_KEYS = ("countries", "min_total", "max_total")
EXTRA_KEYS = {
    "bank_transfer": (
        "account_name",
        "bank_name",
        "iban",
        "bic",
        "hold_hours",
    ),
}


def sandbox_allowed() -> bool:
    return bool(settings.PAYMENT_SANDBOX_ALLOWED)


def active_config(gateway_id: str) -> GatewayConfig | None:
    return GatewayConfig.objects.filter(gateway=gateway_id, active=True).first()


def payment_methods(
    *, config: dict[str, Any] | None = None, country: str = "", total: Decimal | None = None
) -> list[Gateway]:
    """The methods a shopper can use now, in the gateways' order: enabled in the settings,
    able to take payments on this server, and offered for the cart's country and total
    (either unknown: not limited by it). The checkout's /checkout/payment-methods and
    /payment/methods both answer this list."""
    config = config or store_settings.get_all()
    offered = [
        g
        for g in GATEWAYS.values()
        if g.enabled(config) and g.applies(config, country=country, total=total) and g.configured()
    ]
    return sorted(offered, key=lambda g: (g.order(config), g.id))


def gateway_of(gateway_id: str) -> Gateway:
    gateway = GATEWAYS.get(gateway_id)
    if gateway is None:
        raise not_found("payment_gateway", gateway_id)
    return gateway


def gateway_settings(gateway: Gateway, config: dict[str, Any]) -> dict[str, Any]:
    payments = config["payments"]
    keys = (*LIMIT_KEYS, *EXTRA_KEYS.get(gateway.id, ()))
    return {key: payments[f"{gateway.id}_{key}"] for key in keys}


def gateway_data(
    gateway: Gateway,
    config: dict[str, Any],
    active: Mapping[str, GatewayConfig | None] | None = None,
) -> dict[str, Any]:
    """A gateway as staff see it; `active`: the active configs by gateway (read once for a
    list), else read for this gateway."""
    online = gateway.id in ONLINE
    if active is None:
        active = {gateway.id: active_config(gateway.id)} if online else {}
    row = active.get(gateway.id)
    if online:
        available, provider = (
            row is not None or sandbox_allowed(),
            (row.provider if row else "sandbox"),
        )
    else:
        available, provider = gateway.configured(), None
    return {
        "id": gateway.id,
        "title": gateway.title(config),
        "description": gateway.description(config),
        "type": gateway.kind,
        "enabled": gateway.enabled(config),
        "order": gateway.order(config),
        "available": available,
        "online": online,
        "providers": list(getattr(gateway, "providers", ())),
        "provider": provider,
        "config_id": row.pk if row else None,
        "settings": gateway_settings(gateway, config),
    }


def gateway_list() -> list[dict[str, Any]]:
    config = store_settings.get_all()
    active = {c.gateway: c for c in GatewayConfig.objects.filter(active=True)}  # one query
    ordered = sorted(GATEWAYS.values(), key=lambda g: (g.order(config), g.id))
    return [gateway_data(gateway, config, active) for gateway in ordered]


# --- Gateway configs -------------------------------------------------------------------------


def masked_credentials(row: GatewayConfig) -> dict[str, Any]:
    values = unseal(row.credentials_encrypted)
    fields = CREDENTIALS.get(row.provider, {})
    return {
        name: (mask(values.get(name, "")) if secret else values.get(name, ""))
        for name, secret in fields.items()
    }


def config_data(row: GatewayConfig) -> dict[str, Any]:
    return {
        "id": row.pk,
        "gateway": row.gateway,
        "provider": row.provider,
        "title": row.title,
        "mode": row.mode,
        "active": row.active,
        "credentials": masked_credentials(row),
        "last_check": {
            "at": row.last_checked_at.isoformat() if row.last_checked_at else None,
            "ok": row.last_check_ok,
            "message": row.last_check_message,
        },
        "created_at": row.created_at.isoformat(),
        "updated_at": row.updated_at.isoformat(),
    }


def config_saved_data(row: GatewayConfig) -> dict[str, Any]:
    """A config as a save answers it: config_data and `check`, the credentials check the
    save ran (models.SaveCheck; None when it ran none)."""
    outcome = getattr(row, "save_check", None)
    check = None
    if outcome is not None:
        check = {
            "ok": outcome.ok,
            "message": outcome.message,
            "account": outcome.account,
            "held_inactive": outcome.held_inactive,
        }
    return {**config_data(row), "check": check}


def config_list(query: Mapping[str, Any]) -> dict[str, Any]:
    """A page of configs, `{configs, total, page, per_page, total_pages}` (named_page)."""
    rows = GatewayConfig.objects.order_by("id")
    if query.get("gateway"):
        rows = rows.filter(gateway=query["gateway"])
    return named_page("configs", page_of(rows, query), config_data)


def config_get(config_id: int) -> GatewayConfig:
    row = GatewayConfig.objects.filter(pk=config_id).first()
    if row is None:
        raise not_found("gateway_config", config_id)
    return row
