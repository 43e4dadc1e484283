"""Inbound events: a provider's notifications (webhooks and callbacks), verified with the
gateway's provider and acted on once; and the sandbox's own signed events, what a real provider
would send (for development and the walk-throughs).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from common.errors import ServiceError
from common.jsonload import loads
from store.common.errors import not_found, rule_broken
from store.payments import selectors
from store.payments.crypto import unseal
from store.payments.gateways import ONLINE
from store.payments.models import (
    AttemptStatus,
    GatewayConfig,
    PaymentAttempt,
    ProcessedEvent,
    Provider,
)
from store.payments.providers.base import BadSignature, Event
from store.payments.providers.sandbox import sign
from store.payments.services.configs import provider_for
from store.payments.services.intents import payment_record

logger = logging.getLogger(__name__)

#: The outcome kept for an event refused for naming a payment its signer did not start.
EVENT_REFUSED = "refused_other_gateway"


class EventGatewayMismatch(ServiceError):
    """409 `payment_gateway_mismatch`: the event names a payment of another gateway or
    provider than the one whose secret signed it. Final: the same event is refused again."""

    status_code = 409
    default_code = "payment_gateway_mismatch"

    def __init__(self, gateway_id: str, provider: str, event: Event) -> None:
        super().__init__(
            f"Event {event.id!r} names payment {event.external_id!r}, which was not started "
            f"through the {gateway_id} gateway's {provider} config that signed it: refused, "
            "nothing recorded."
        )


def event_receive(*, gateway_id: str, body: bytes, headers: Mapping[str, str]) -> dict[str, Any]:
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


def _apply(gateway_id: str, row: GatewayConfig, event: Event) -> str:
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
