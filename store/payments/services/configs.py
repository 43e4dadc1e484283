"""Gateway configs: the provider accounts of the online gateways (created, changed, checked
with the provider, deleted), and which config and provider serve a gateway now. A config's
credentials are checked by its provider before it may serve payments; one config per gateway
is active.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from common import sealed
from store.common.errors import invalid_params, not_found
from store.payments import selectors
from store.payments.crypto import mask, seal, unseal
from store.payments.gateways import ONLINE
from store.payments.models import GatewayConfig, Provider, SaveCheck
from store.payments.providers.base import (
    CheckResult,
    PaymentProvider,
    PaymentsNotConfigured,
    ProviderUnavailable,
)
from store.payments.providers.paypal import PayPalProvider
from store.payments.providers.sandbox import SandboxProvider

# --- Gateway configs (provider accounts) -----------------------------------------------------

#: What a masked credential shows in place of the characters it hides (crypto.mask).
MASK_MARK = "…"
#: Credentials as the providers issue them: printable ASCII, no spaces (they travel in headers).
CREDENTIAL_TEXT = re.compile(r"[\x21-\x7e]+")


def _check_credentials(
    provider: str, credentials: dict[str, Any], stored: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The credentials a save keeps: `stored` with `credentials` merged in. A key sent empty
    removes it; a key sent as the mask of its stored value (a form sending back what it was
    shown) keeps the stored value. Refused, 400 naming each `credentials.<key>`: a key the
    provider does not take, a masked value that is not the stored one's (the secret itself is
    needed then), a value other than printable ASCII. The sandbox's webhook secret is made
    when none is left."""
    fields = selectors.CREDENTIALS[provider]
    merged = dict(stored or {})
    problems: dict[str, list[str] | str] = {}
    for key, value in credentials.items():
        name = f"credentials.{str(key)[:64]}"
        if key not in fields:
            problems[name] = [f"Not a credential of {provider} (its: {', '.join(fields)})."]
        elif not isinstance(value, str):
            problems[name] = ["A string."]
        elif sealed.is_mask_of(value, merged.get(key, ""), mask=mask):
            continue
        elif MASK_MARK in value:
            problems[name] = [
                "A masked value, not the stored secret's: send the secret itself (or leave "
                "the key out to keep the stored one)."
            ]
        elif value and not CREDENTIAL_TEXT.fullmatch(value):
            problems[name] = ["Printable ASCII without spaces, as the provider issues it."]
        else:
            merged[key] = value
    if problems:
        raise invalid_params(dict(sorted(problems.items())[:20]))
    credentials = {key: value for key, value in merged.items() if value}
    if provider == Provider.SANDBOX and not credentials.get("webhook_secret"):
        credentials["webhook_secret"] = "sbxwh_" + secrets.token_hex(24)
    return credentials


def _check_gateway_provider(gateway_id: str, provider: str) -> None:
    gateway = ONLINE.get(gateway_id)
    if gateway is None:
        raise invalid_params({"gateway": [f"Not an online gateway (one of {', '.join(ONLINE)})."]})
    if provider not in gateway.providers:
        raise invalid_params({"provider": [f"{gateway_id} takes {', '.join(gateway.providers)}."]})


def _deactivate_others(row: GatewayConfig) -> None:
    if row.active:
        GatewayConfig.objects.filter(gateway=row.gateway, active=True).exclude(pk=row.pk).update(
            active=False
        )


def _provider_check(row: GatewayConfig) -> CheckResult:
    """The provider's own check of the row's credentials (saved or not); credentials missing
    fail it (ok false, saying which). Unreachable: ProviderUnavailable."""
    try:
        return provider_of(row).check()
    except PaymentsNotConfigured as exc:
        return CheckResult(ok=False, message=str(exc.detail))


def _check_then_activate(row: GatewayConfig, *, wanted_active: bool) -> SaveCheck:
    """Check the row's credentials before it may serve payments: active only when wanted and
    the check passes. A failed check (refused, missing, or the provider unreachable) leaves
    it inactive. The outcome is kept on the row (saved by the caller)."""
    try:
        result = _provider_check(row)
    except ProviderUnavailable as exc:
        result = CheckResult(ok=False, message=str(exc.detail))
    row.last_checked_at = timezone.now()
    row.last_check_ok = result.ok
    row.last_check_message = result.message[:500]
    row.active = wanted_active and result.ok
    return SaveCheck(
        ok=result.ok,
        message=result.message,
        account=result.account,
        held_inactive=wanted_active and not result.ok,
    )


@transaction.atomic
def config_create(*, fields: dict[str, Any]) -> GatewayConfig:
    """A provider account for an online gateway. Its credentials are checked by the provider
    (the check of config_test) before it serves payments: it is active (asked by default)
    only when the check passes, the gateway's other configs then made inactive; otherwise it
    is saved inactive with the outcome kept. The row answered carries that check as
    `save_check` (SaveCheck). The sandbox gets a random webhook secret if none."""
    gateway, provider = fields["gateway"], fields["provider"]
    _check_gateway_provider(gateway, provider)
    credentials = _check_credentials(provider, dict(fields.get("credentials") or {}))
    row = GatewayConfig(
        gateway=gateway,
        provider=provider,
        title=fields.get("title", ""),
        mode=fields.get("mode", "test"),
        active=False,
        credentials_encrypted=seal(credentials),
    )
    row.save_check = _check_then_activate(row, wanted_active=fields.get("active", True))
    _deactivate_others(row)
    row.save()
    return row


@transaction.atomic
def config_update(*, config_id: int, fields: dict[str, Any]) -> GatewayConfig:
    """Change a config; `credentials` merge into the stored ones (_check_credentials: a key
    sent empty removes it, a masked value sent back keeps it). When what the provider's
    check depends on changes (credentials, provider, mode) or the config is to become active
    for its gateway, the check runs (under the row's lock) and the config is active only when
    it passes (else saved inactive, the outcome kept); the row answered carries it as
    `save_check` (None when no check ran)."""
    row = GatewayConfig.objects.select_for_update().filter(pk=config_id).first()
    if row is None:
        raise not_found("gateway_config", config_id)
    provider = fields.get("provider", row.provider)
    gateway = fields.get("gateway", row.gateway)
    mode = fields.get("mode", row.mode)
    _check_gateway_provider(gateway, provider)
    before = unseal(row.credentials_encrypted)
    credentials = _check_credentials(
        provider,
        dict(fields.get("credentials") or {}),
        before if provider == row.provider else {},
    )
    wanted_active = fields.get("active", row.active)
    changed = (provider, mode, credentials) != (row.provider, row.mode, before)
    activating = wanted_active and (not row.active or gateway != row.gateway)
    row.gateway, row.provider, row.mode = gateway, provider, mode
    row.title = fields.get("title", row.title)
    row.credentials_encrypted = seal(credentials)
    row.save_check = None
    if changed or activating:
        row.save_check = _check_then_activate(row, wanted_active=wanted_active)
    else:
        row.active = wanted_active
    _deactivate_others(row)
    row.save()
    return row


@transaction.atomic
def config_delete(*, config_id: int) -> None:
    deleted, _ = GatewayConfig.objects.filter(pk=config_id).delete()
    if not deleted:
        raise not_found("gateway_config", config_id)


def provider_of(row: GatewayConfig) -> PaymentProvider:
    credentials = unseal(row.credentials_encrypted)
    if row.provider == Provider.STRIPE:
        # the Stripe SDK (and its HTTP clients) loads with the first Stripe gateway used, not
        # with every process (a third of a second of start-up)
        from store.payments.providers.stripe import StripeProvider

        return StripeProvider(credentials)
    if row.provider == Provider.PAYPAL:
        return PayPalProvider(credentials, mode=row.mode)
    return SandboxProvider(credentials)


def config_test(*, config_id: int) -> dict[str, Any]:
    """A real credentials check against the provider (or the sandbox); the outcome is kept
    on the config (a config without its credentials fails the check: ok false, saying which).
    Unreachable: 502 `payment_provider_unavailable` (nothing kept)."""
    row = selectors.config_get(config_id)
    result = _provider_check(row)
    GatewayConfig.objects.filter(pk=row.pk).update(
        last_checked_at=timezone.now(),
        last_check_ok=result.ok,
        last_check_message=result.message[:500],
    )
    return {"id": row.pk, "provider": row.provider, "mode": row.mode, **result.__dict__}


@transaction.atomic
def sandbox_config(gateway_id: str) -> GatewayConfig:
    """The gateway's sandbox config, made on first use where the sandbox is allowed (so the
    sandbox works from `make run` with nothing set up)."""
    row = selectors.active_config(gateway_id)
    if row is not None:
        return row
    if not selectors.sandbox_allowed():
        raise PaymentsNotConfigured(
            f"The {gateway_id} gateway has no active config (POST /payment/gateway-config) "
            "and the sandbox is off on this server (PAYMENT_SANDBOX_ALLOWED)."
        )
    try:
        with transaction.atomic():
            return config_create(
                fields={"gateway": gateway_id, "provider": "sandbox", "title": "Sandbox"}
            )
    except IntegrityError:  # made meanwhile by a concurrent request
        row = selectors.active_config(gateway_id)
    if row is None:  # and turned off or deleted again since
        raise PaymentsNotConfigured(
            f"The {gateway_id} gateway has no active config (POST /payment/gateway-config)."
        )
    return row


def provider_for(gateway_id: str, *, provider: str = "") -> tuple[GatewayConfig, PaymentProvider]:
    """The config and provider that serve `gateway_id` now (for `provider`, the one that
    took a payment: its active config, else its latest)."""
    row = selectors.active_config(gateway_id)
    if provider and (row is None or row.provider != provider):
        row = (
            GatewayConfig.objects.filter(gateway=gateway_id, provider=provider)
            .order_by("-active", "-id")
            .first()
        )
        if row is None and provider == Provider.SANDBOX:
            row = sandbox_config(gateway_id)
        if row is None:
            raise PaymentsNotConfigured(
                f"No {provider} config of {gateway_id} is left to refund through."
            )
    if row is None:
        row = sandbox_config(gateway_id)
    return row, provider_of(row)


def config_check(*, fields: dict[str, Any], instance: GatewayConfig | None = None) -> None:
    """The checks of config_create/config_update, writing nothing (the admin's form)."""
    gateway = fields.get("gateway", instance.gateway if instance else "")
    provider = fields.get("provider", instance.provider if instance else "")
    _check_gateway_provider(gateway, provider)
    stored = {}
    if instance is not None and instance.provider == provider:
        stored = unseal(instance.credentials_encrypted)
    _check_credentials(provider, dict(fields.get("credentials") or {}), stored)
