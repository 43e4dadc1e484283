"""Payments: the methods offered, gateway settings and configs, online payments (intents,
wallet orders, bank redirects), inbound events and refunds. Every write of the app is here.

Orders are changed only through store.orders.services (payments and refunds recorded with
`payment_create`, the order's payment status following; the order's status with
`order_status_set`, which gives stock back on `refunded`).
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import QuerySet, Sum
from django.utils import timezone

from common import sealed
from common.errors import ServiceError
from common.jsonload import loads
from store.common.accounts import logged_in
from store.common.errors import invalid_params, not_found, rule_broken
from store.common.money import money
from store.orders import events as order_events
from store.orders import selectors as order_selectors
from store.orders import services as order_services
from store.orders.choices import (
    OrderSource,
    OrderStatus,
    PaymentKind,
    PaymentRecordStatus,
    PaymentStatus,
    holds_stock,
)
from store.orders.models import Order, Payment
from store.payments import selectors
from store.payments.crypto import mask, seal, unseal
from store.payments.gateways import GATEWAYS, ONLINE, Gateway
from store.payments.models import (
    AttemptStatus,
    GatewayConfig,
    GatewayRefund,
    PaymentAttempt,
    ProcessedEvent,
    Provider,
)
from store.payments.providers.base import (
    BadSignature,
    CheckResult,
    PaymentProvider,
    PaymentsNotConfigured,
    ProviderUnavailable,
)
from store.payments.providers.paypal import PayPalProvider
from store.payments.providers.sandbox import SandboxProvider, sign
from store.settings import selectors as store_settings

if TYPE_CHECKING:
    from accounts.models import User
from store.settings import services as settings_services

logger = logging.getLogger(__name__)


# --- The methods offered -----------------------------------------------------------------------


def cart_limits(state) -> dict:
    """What the gateways' limits read of a priced cart: its country (where it ships, as priced)
    and its total. The lists and the checkout's choice read the same."""
    return {"country": state.location.country or "", "total": state.totals["total"]}


def payment_methods(*, config: dict | None = None, state=None) -> list[Gateway]:
    """The methods offered now (selectors.payment_methods): for a priced cart (`state`),
    those offered for its country and total."""
    if state is None:
        return selectors.payment_methods(config=config)
    return selectors.payment_methods(config=config, **cart_limits(state))


def gateway_get(
    *,
    method_id: str,
    config: dict | None = None,
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
    if why:
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


def gateway_update(*, gateway_id: str, fields: dict, user=None) -> dict:
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
            errors = {
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


# --- Gateway configs (provider accounts) -----------------------------------------------------

#: What a masked credential shows in place of the characters it hides (crypto.mask).
MASK_MARK = "…"
#: Credentials as the providers issue them: printable ASCII, no spaces (they travel in headers).
CREDENTIAL_TEXT = re.compile(r"[\x21-\x7e]+")


def _check_credentials(provider: str, credentials: dict, stored: dict | None = None) -> dict:
    """The credentials a save keeps: `stored` with `credentials` merged in. A key sent empty
    removes it; a key sent as the mask of its stored value (a form sending back what it was
    shown) keeps the stored value. Refused, 400 naming each `credentials.<key>`: a key the
    provider does not take, a masked value that is not the stored one's (the secret itself is
    needed then), a value other than printable ASCII. The sandbox's webhook secret is made
    when none is left."""
    fields = selectors.CREDENTIALS[provider]
    merged = dict(stored or {})
    problems: dict[str, list[str]] = {}
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


@dataclass(frozen=True)
class SaveCheck:
    """The provider's credentials check a save ran (config_create, config_update), and
    whether it kept the config from being active (`held_inactive`)."""

    ok: bool
    message: str
    account: str = ""
    held_inactive: bool = False


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
def config_create(*, fields: dict) -> GatewayConfig:
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
def config_update(*, config_id: int, fields: dict) -> GatewayConfig:
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


def config_test(*, config_id: int) -> dict:
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
        return selectors.active_config(gateway_id)


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


# --- Online payments: intents, wallet orders, bank redirects ---------------------------------


def _payable_order(*, order_id: int, order_key: str, gateway_id: str) -> tuple[Order, Decimal]:
    """The order a shopper pays with its key: 403 `invalid_order_key` (also for no such
    order), 409 when it is not awaiting payment by this gateway; answers what is due."""
    order = order_selectors.order_received(order_id)
    if order is None or not order_selectors.key_matches(order, order_key):
        raise rule_broken(
            "The order's key does not match (or there is no such order).",
            code="invalid_order_key",
            status=403,
        )
    if order.payment_method != gateway_id:
        raise rule_broken(
            f"The order is paid by {order.payment_method or 'no method'!r}, not {gateway_id}.",
            code="payment_method_mismatch",
            status=409,
        )
    if order.status not in {OrderStatus.PENDING, OrderStatus.ON_HOLD}:
        raise rule_broken(
            f"The order is {order.status}: it is not awaiting payment.",
            code="order_not_payable",
            status=409,
        )
    due = money(order.total - order.amount_paid + order.amount_refunded)
    if due <= 0:
        raise rule_broken("The order is paid.", code="order_already_paid", status=409)
    return order, due


@dataclass(frozen=True)
class Started:
    attempt: PaymentAttempt
    client_secret: str
    redirect_url: str
    publishable_key: str


def payment_start(
    *, gateway_id: str, order_id: int, order_key: str, return_url: str = ""
) -> Started:
    """Start paying an order at its gateway's provider (a card intent, a wallet order or a
    bank redirect) for what is due; the same order and amount answer the same payment."""
    gateway = ONLINE[gateway_id]
    if not gateway.enabled(store_settings.get_all()):
        raise rule_broken(
            f"The {gateway_id} gateway is turned off.", code="payment_method_unavailable"
        )
    order, due = _payable_order(order_id=order_id, order_key=order_key, gateway_id=gateway_id)
    row, provider = provider_for(gateway_id)
    key = f"{gateway_id}:order:{order.pk}:due:{due}:{row.pk}"
    intent = provider.create_intent(
        kind=gateway.kind,
        amount=due,
        currency=order.currency,
        reference=str(order.pk),
        idempotency_key=key,
        return_url=return_url,
    )
    attempt, _ = PaymentAttempt.objects.get_or_create(
        provider=row.provider,
        external_id=intent.external_id,
        defaults={
            "order": order,
            "gateway": gateway_id,
            "kind": gateway.kind,
            "amount": due,
            "currency": order.currency,
        },
    )
    publishable = unseal(row.credentials_encrypted).get("publishable_key", "")
    return Started(attempt, intent.client_secret, intent.redirect_url, publishable)


def wallet_capture(*, external_id: str, order_key: str) -> PaymentAttempt:
    """Capture an approved wallet order and record the payment on its order (a second
    capture of the same wallet order answers it again)."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,100}", external_id or ""):
        raise not_found("wallet_order", external_id)
    attempt = (
        PaymentAttempt.objects.filter(gateway="paypal", external_id=external_id)
        .select_related("order")
        .first()
    )
    if attempt is None or not order_selectors.key_matches(attempt.order, order_key):
        raise not_found("wallet_order", external_id)
    if attempt.status == AttemptStatus.SUCCEEDED:
        return attempt
    _row, provider = provider_for("paypal", provider=attempt.provider)
    capture = provider.capture(
        external_id=attempt.external_id, amount=attempt.amount, currency=attempt.currency
    )
    if not capture.completed:
        raise rule_broken(
            f"PayPal did not complete the capture ({capture.status}).",
            code="capture_not_completed",
            status=409,
        )
    payment_record(
        attempt_id=attempt.pk,
        transaction_id=capture.transaction_id,
        amount=capture.amount,
        currency=capture.currency,
    )
    attempt.refresh_from_db()
    return attempt


@transaction.atomic
def payment_record(
    *, attempt_id: int, transaction_id: str, amount: Decimal | None, currency: str
) -> str:
    """Record a provider's completed payment on the attempt's order (once: an attempt that
    succeeded already records nothing). A currency other than the order's is not recorded.
    Paid in full, a pending or on-hold order moves to processing. Answers the outcome."""
    attempt = PaymentAttempt.objects.select_for_update().get(pk=attempt_id)
    if attempt.status == AttemptStatus.SUCCEEDED:
        return "already_recorded"
    currency = (currency or attempt.currency).upper()
    if currency != attempt.currency:
        logger.warning("payment %s in %s, order in %s", transaction_id, currency, attempt.currency)
        return "currency_mismatch"
    amount = money(amount if amount is not None else attempt.amount)
    order_services.payment_create(
        order_id=attempt.order_id,
        fields={
            "kind": PaymentKind.PAYMENT,
            "status": PaymentRecordStatus.COMPLETED,
            "amount": amount,
            "method": attempt.gateway,
            "transaction_id": transaction_id or attempt.external_id,
            "note": f"{attempt.provider} {attempt.kind} {attempt.external_id}",
        },
        source=OrderSource.SYSTEM,
    )
    attempt.status = AttemptStatus.SUCCEEDED
    attempt.transaction_id = transaction_id or attempt.external_id
    attempt.save(update_fields=["status", "transaction_id", "updated_at"])
    order = Order.objects.get(pk=attempt.order_id)
    if order.payment_status == PaymentStatus.PAID and order.status in {
        OrderStatus.PENDING,
        OrderStatus.ON_HOLD,
    }:
        order_services.order_status_set(
            order_id=order.pk,
            status=OrderStatus.PROCESSING,
            note=f"Paid through {attempt.gateway}.",
            source=OrderSource.SYSTEM,
        )
    return "recorded"


# --- Inbound events (webhooks and callbacks) -------------------------------------------------

#: The outcome kept for an event refused for naming a payment its signer did not start.
EVENT_REFUSED = "refused_other_gateway"


class EventGatewayMismatch(ServiceError):
    """409 `payment_gateway_mismatch`: the event names a payment of another gateway or
    provider than the one whose secret signed it. Final: the same event is refused again."""

    status_code = 409
    default_code = "payment_gateway_mismatch"

    def __init__(self, gateway_id: str, provider: str, event) -> None:
        super().__init__(
            f"Event {event.id!r} names payment {event.external_id!r}, which was not started "
            f"through the {gateway_id} gateway's {provider} config that signed it: refused, "
            "nothing recorded."
        )


def event_receive(*, gateway_id: str, body: bytes, headers) -> dict:
    """Verify an inbound notification with the gateway's provider (400 `invalid_signature`)
    and act on it once: the same event id again, an unknown event type or a payment we did
    not start change nothing (answered with the outcome, 200). An event naming a payment of
    another gateway, or of another provider of this one, is refused (409
    `payment_gateway_mismatch`, kept as such: the same event again is refused again)."""
    if gateway_id not in ONLINE:
        raise not_found("payment_gateway", gateway_id)
    try:
        loads(body or b"")
    except ValueError as exc:
        raise BadSignature(f"The body is not usable JSON: {exc}") from exc
    row, provider = provider_for(gateway_id)
    event = provider.verify_event(body=bytes(body), headers=headers)
    with transaction.atomic():
        try:
            with transaction.atomic():
                seen = ProcessedEvent.objects.create(
                    gateway=gateway_id, event_id=event.id, type=event.type, outcome="received"
                )
        except IntegrityError:
            kept = (
                ProcessedEvent.objects.filter(gateway=gateway_id, event_id=event.id)
                .values_list("outcome", flat=True)
                .first()
            )
            if kept == EVENT_REFUSED:
                raise EventGatewayMismatch(gateway_id, row.provider, event) from None
            return {"received": True, "event_id": event.id, "outcome": "replayed"}
        seen.outcome = _apply(gateway_id, row, event)
        seen.save(update_fields=["outcome"])
    if seen.outcome == EVENT_REFUSED:  # kept as refused (committed), then answered 409
        raise EventGatewayMismatch(gateway_id, row.provider, event)
    return {"received": True, "event_id": event.id, "outcome": seen.outcome}


def _apply(gateway_id: str, row: GatewayConfig, event) -> str:
    """Act on a verified event. The payment named must have been started through the gateway
    and provider whose config signed it: a config's secret signs for its own gateway's
    payments only (two gateways may both be served by the sandbox, each with its secret), so
    a payment of that id started elsewhere is refused (logged) and nothing is recorded."""
    if event.type not in {"payment.succeeded", "payment.failed"}:
        return "ignored"
    named = list(PaymentAttempt.objects.filter(external_id=event.external_id)[:10])
    attempt = next(
        (a for a in named if a.gateway == gateway_id and a.provider == row.provider), None
    )
    if attempt is None and named:
        logger.warning(
            "payment event %s (%s) signed for gateway %s (config %s, %s) names payment %s of "
            "gateway %s (%s): refused",
            event.id,
            event.type,
            gateway_id,
            row.pk,
            row.provider,
            event.external_id,
            named[0].gateway,
            named[0].provider,
        )
        return EVENT_REFUSED
    if attempt is None:
        return "unknown_payment"
    if event.type == "payment.failed":
        PaymentAttempt.objects.filter(pk=attempt.pk, status=AttemptStatus.CREATED).update(
            status=AttemptStatus.FAILED, updated_at=timezone.now()
        )
        return "failed"
    return payment_record(
        attempt_id=attempt.pk,
        transaction_id=event.transaction_id,
        amount=event.amount,
        currency=event.currency,
    )


# --- Refunds ------------------------------------------------------------------------------------


# A pending refund older than this was abandoned (its process died while the provider was
# called): it no longer counts, and the next refund of the order removes it.
REFUND_RESERVATION = timedelta(minutes=10)


@dataclass(frozen=True)
class RefundResult:
    order: Order
    refunds: list[GatewayRefund]
    restocked: bool
    restocked_items: list[dict[str, int]] = field(default_factory=list)  # [{item_id, quantity}]


def _charges(order: Order) -> list[tuple[Payment, Decimal]]:
    """The order's completed payments with what is left to refund of each (less the refunds
    under way), newest first."""
    charges = list(
        Payment.objects.filter(
            order=order, kind=PaymentKind.PAYMENT, status=PaymentRecordStatus.COMPLETED
        ).order_by("-paid_at", "-id")
    )
    given = dict(
        _live_refunds(order)
        .values("charge_id")
        .annotate(total=Sum("amount"))
        .values_list("charge_id", "total")
    )
    return [(c, c.amount - given.get(c.pk, Decimal(0))) for c in charges]


def _refund_through(charge: Payment) -> tuple[str, PaymentProvider | None]:
    """(provider name, provider) that took a charge; ("", None) for one taken offline or
    recorded by hand, refunded by hand too (recorded, no provider call)."""
    if charge.method in ONLINE:
        attempt = PaymentAttempt.objects.filter(
            gateway=charge.method, transaction_id=charge.transaction_id
        ).first()
        name = attempt.provider if attempt else ""
        if not name:
            return "", None
        _row, provider = provider_for(charge.method, provider=name)
        return name, provider
    if charge.method == "sandbox_card" and charge.transaction_id:
        return "sandbox", SandboxProvider()
    return "", None


@dataclass
class _PlannedRefund:
    charge: Payment
    part: Decimal
    provider_name: str
    provider: PaymentProvider | None
    row: GatewayRefund
    refund_id: str = ""
    status: str = "manual"


@dataclass
class _RefundPlan:
    order_id: int
    held_by: str
    amount: Decimal
    sequence: int
    refunds: list[_PlannedRefund]


def _abandoned_before() -> datetime:
    return timezone.now() - REFUND_RESERVATION


def _live_refunds(order: Order) -> QuerySet[GatewayRefund]:
    """The order's refunds that count: done, or pending and not abandoned."""
    return GatewayRefund.objects.filter(order=order).exclude(
        status=GatewayRefund.Status.PENDING, created_at__lt=_abandoned_before()
    )


def refund_create(
    *,
    order_id: int,
    amount: Decimal | None = None,
    currency: str = "",
    reason: str = "",
    restock: bool = False,
    items: list[dict[str, int]] | None = None,
    actor: User | None = None,
) -> RefundResult:
    """Refund an order, in full (no `amount`) or in part, through the gateways that took its
    payments (newest payment first); each refund is recorded as a refund payment on the
    order, whose payment status follows (partially_refunded, refunded). A refund that leaves
    nothing paid moves the order to refunded, its stock given back (store.orders'
    payment_create, unless the `orders` settings keep the status).

    Refused, changing nothing: 404 no order; 409 `order_not_paid` (nothing paid);
    409 `refund_exceeds_refundable`; 400 `currency_mismatch`; 400 `restock_needs_full_refund`
    (`restock` without `items` gives every unit back: only with a refund that leaves nothing
    paid, the order moving to `refunded`, which it does anyway unless `items` chose the
    units given back or the `orders` settings keep the status); 502 when a provider fails or
    refuses (nothing recorded; a retry sends the provider the same idempotency keys).

    `restock` with `items` ([{item_id, quantity}]) gives back exactly those units, with any
    refund, through store.orders' `order_items_restock` (its refusals: 400
    `order_item_not_found`, 409 `restock_exceeds_held`, 409 `order_stock_released`), before
    any provider is called; `items` without `restock` is 400 `restock_items_without_restock`.

    The providers are called outside any transaction and without the order's lock: the
    refunds are first written `pending` in a short transaction that checks everything (a
    concurrent refund counts them), then each provider is called with its idempotency key,
    then a second short transaction records the refund payments (and the restock). A provider
    that fails removes the pending refunds (nothing recorded: 502); a retry sends the same
    keys, so a provider that had refunded answers the same refund again.
    """
    plan = _refund_reserve(
        order_id=order_id,
        amount=amount,
        currency=currency,
        restock=restock,
        items=items,
    )
    try:
        for planned in plan.refunds:  # no transaction, no lock: a slow provider holds nothing
            if planned.provider is not None:
                answer = planned.provider.refund(
                    transaction_id=planned.charge.transaction_id,
                    amount=planned.part,
                    currency=planned.row.currency,
                    idempotency_key=planned.row.idempotency_key,
                )
                planned.refund_id, planned.status = answer.refund_id, answer.status
    except BaseException:
        GatewayRefund.objects.filter(
            pk__in=[planned.row.pk for planned in plan.refunds],
            status=GatewayRefund.Status.PENDING,
        ).delete()
        raise
    return _refund_record(plan, reason=reason, restock=restock, items=items, actor=actor)


@transaction.atomic
def _refund_reserve(
    *,
    order_id: int,
    amount: Decimal | None,
    currency: str,
    restock: bool,
    items: list[dict[str, int]] | None,
) -> _RefundPlan:
    """Every check of a refund, under the order's lock, then its refunds written pending."""
    order = Order.objects.select_for_update().filter(pk=order_id).first()
    if order is None:
        raise not_found("order", order_id)
    GatewayRefund.objects.filter(
        order=order, status=GatewayRefund.Status.PENDING, created_at__lt=_abandoned_before()
    ).delete()
    if currency and currency.upper() != order.currency:
        raise invalid_params(
            {"currency": [f"The order is in {order.currency}, not {currency.upper()}."]},
            code="currency_mismatch",
        )
    pending = _live_refunds(order).filter(status=GatewayRefund.Status.PENDING)
    reserved = pending.aggregate(total=Sum("amount"))["total"] or Decimal(0)
    refundable = money(order.amount_paid - order.amount_refunded - reserved)
    if order.amount_paid <= 0:
        raise rule_broken("Nothing was paid on this order.", code="order_not_paid", status=409)
    if refundable <= 0:
        raise rule_broken(
            "Everything paid on this order was refunded already.",
            code="refund_exceeds_refundable",
            status=409,
        )
    amount = money(refundable if amount is None else amount)
    if amount > refundable:
        raise rule_broken(
            f"At most {refundable} {order.currency} can be refunded (asked {amount}).",
            code="refund_exceeds_refundable",
            status=409,
        )
    if items and not restock:
        raise invalid_params(
            {"items": ["Lines to give back to stock go with `restock: true`."]},
            code="restock_items_without_restock",
        )
    if restock and not items and amount != refundable:
        raise invalid_params(
            {"restock": ["Stock comes back with a refund of everything left to refund."]},
            code="restock_needs_full_refund",
        )
    if restock and items:  # a refusal calls no provider
        order_services.restock_check(order, items)
    # The refunds recorded and those under way: a retry after a failure (nothing recorded)
    # numbers its refunds as the failed call did, and sends the providers the same keys.
    sequence = Payment.objects.filter(order=order, kind=PaymentKind.REFUND).count()
    sequence += pending.count()
    left, plan = amount, []
    for charge, remaining in _charges(order):
        part = min(left, remaining)
        if part > 0:
            name, provider = _refund_through(charge)
            row = GatewayRefund.objects.create(
                order=order,
                charge=charge,
                status=GatewayRefund.Status.PENDING,
                gateway=charge.method,
                provider=name,
                amount=part,
                currency=order.currency,
                idempotency_key=f"refund:{order.pk}:{sequence}:{charge.pk}:{part}",
            )
            plan.append(_PlannedRefund(charge, part, name, provider, row))
            left -= part
    if left > 0:  # refunds recorded by hand exceed what the charges have left
        raise rule_broken(
            f"{left} {order.currency} of the refund matches no payment left to refund.",
            code="refund_exceeds_refundable",
            status=409,
        )
    return _RefundPlan(order.pk, order.status, amount, sequence, plan)


@transaction.atomic
def _refund_record(
    plan: _RefundPlan,
    *,
    reason: str,
    restock: bool,
    items: list[dict[str, int]] | None,
    actor: User | None,
) -> RefundResult:
    """The provider answered: the refund payments, the restock and the event, in one short
    transaction under the order's lock."""
    order = Order.objects.select_for_update().get(pk=plan.order_id)
    restocked_items: list[dict[str, int]] = []
    if restock and items:
        done = order_services.order_items_restock(
            order_id=order.pk,
            items=items,
            actor=logged_in(actor),
            note=reason or "Refund",
            key=f"refund:{order.pk}:{plan.sequence}",
        )
        restocked_items = [{"item_id": item.pk, "quantity": units} for item, units in done.lines]
    made = []
    for planned in plan.refunds:
        status = planned.status
        payment = order_services.payment_create(
            order_id=order.pk,
            fields={
                "kind": PaymentKind.REFUND,
                "status": PaymentRecordStatus.COMPLETED,
                "amount": planned.part,
                "method": planned.charge.method,
                "transaction_id": planned.refund_id,
                "note": (reason or "Refund") + (f" ({status})" if status != "succeeded" else ""),
            },
            actor=actor,
            full_refund_moves_status=not restocked_items,
        )
        row = planned.row
        row.payment, row.refund_id, row.status = (
            payment,
            planned.refund_id,
            GatewayRefund.Status.DONE,
        )
        row.save(update_fields=["payment", "refund_id", "status"])
        made.append(row)
    if restock and not items:
        order_services.order_status_set(
            order_id=order.pk,
            status=OrderStatus.REFUNDED,
            note=reason or "Refunded with restock.",
            actor=logged_in(actor),
        )
    order.refresh_from_db()
    # every unit comes back with the move to refunded: asked (`restock`), or the refund left
    # nothing paid (the `orders` settings' fully_refunded_status)
    released = holds_stock(plan.held_by) and order.status == OrderStatus.REFUNDED
    restocked = bool(restocked_items) or released
    order_events.order_refunded(
        order,
        amount=plan.amount,
        refunds=[
            {
                "payment_id": refund.payment_id,
                "gateway": refund.gateway,
                "refund_id": refund.refund_id,
                "amount": refund.amount,
            }
            for refund in made
        ],
        restocked=restocked,
    )
    return RefundResult(
        order=order, refunds=made, restocked=restocked, restocked_items=restocked_items
    )


def sandbox_signed_event(
    *, gateway_id: str, external_id: str, event_type: str = "payment.succeeded"
) -> tuple[bytes, str]:
    """A sandbox event about a payment started here, signed with the gateway's sandbox
    config: (body, Sandbox-Signature header). What a real provider would send."""
    row = selectors.active_config(gateway_id)
    if row is None or row.provider != Provider.SANDBOX:
        raise rule_broken(
            f"The {gateway_id} gateway is not served by the sandbox.", code="not_sandbox"
        )
    attempt = PaymentAttempt.objects.filter(provider="sandbox", external_id=external_id).first()
    if attempt is None:
        raise not_found("payment_attempt", external_id)
    body = json.dumps(
        {
            "id": "evt_" + secrets.token_hex(12),
            "type": event_type,
            "data": {
                "external_id": attempt.external_id,
                "transaction_id": attempt.external_id.replace("_pi_", "_ch_", 1),
                "amount": str(attempt.amount),
                "currency": attempt.currency,
            },
        }
    ).encode()
    secret = unseal(row.credentials_encrypted).get("webhook_secret", "")
    return body, sign(secret, body)


def config_check(*, fields: dict, instance: GatewayConfig | None = None) -> None:
    """The checks of config_create/config_update, writing nothing (the admin's form)."""
    gateway = fields.get("gateway", instance.gateway if instance else "")
    provider = fields.get("provider", instance.provider if instance else "")
    _check_gateway_provider(gateway, provider)
    stored = {}
    if instance is not None and instance.provider == provider:
        stored = unseal(instance.credentials_encrypted)
    _check_credentials(provider, dict(fields.get("credentials") or {}), stored)
