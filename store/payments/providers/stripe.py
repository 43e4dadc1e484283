"""Stripe through its official library: PaymentIntents for cards, refunds, signed webhooks.

Credentials: `secret_key` (sk_test_/sk_live_), `publishable_key` (answered to the shopper
with an intent), `webhook_secret` (whsec_, from the webhook endpoint's page). The HTTP client
is the library's requests client on common.net's guarded session (public addresses only, no
redirects, one deadline, a capped answer), so tests replay recorded exchanges at the HTTP layer;
a network failure of any kind answers one message, its detail only in the server log.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import stripe
from django.conf import settings

from common import net
from common.money import from_minor_units as from_minor
from common.money import to_minor_units as to_minor
from store.payments.providers.base import (
    BadSignature,
    Capture,
    CheckResult,
    Event,
    Intent,
    PaymentsNotConfigured,
    ProviderRefused,
    ProviderUnavailable,
    Refund,
)

logger = logging.getLogger(__name__)

EVENT_TYPES = {
    "payment_intent.succeeded": "payment.succeeded",
    "payment_intent.payment_failed": "payment.failed",
}


def _unreachable(exc: stripe.APIConnectionError) -> ProviderUnavailable:
    logger.warning("Stripe could not be reached: %s", exc)
    return ProviderUnavailable("Stripe could not be reached.")


def _call(action):
    try:
        return action()
    except stripe.APIConnectionError as exc:
        raise _unreachable(exc) from None
    except stripe.StripeError as exc:
        status = getattr(exc, "http_status", None) or 0
        message = exc.user_message or str(exc) or "Stripe refused the request."
        if status >= 500:
            raise ProviderUnavailable(f"Stripe answered {status}: {message}") from exc
        raise ProviderRefused(f"Stripe refused: {message}") from exc


class StripeProvider:
    name = "stripe"

    def __init__(self, credentials: dict) -> None:
        self.secret_key = credentials.get("secret_key", "")
        self.webhook_secret = credentials.get("webhook_secret", "")
        self.publishable_key = credentials.get("publishable_key", "")

    @property
    def client(self) -> stripe.StripeClient:
        if not self.secret_key:
            raise PaymentsNotConfigured(
                "The Stripe gateway config has no secret_key: set it with PATCH "
                "/payment/gateway-config/{id}."
            )
        base = settings.PAYMENT_STRIPE_API_BASE
        return stripe.StripeClient(
            self.secret_key,
            http_client=stripe.RequestsClient(
                timeout=settings.PAYMENT_HTTP_TIMEOUT, session=net.session()
            ),
            max_network_retries=0,
            base_addresses={"api": base} if base else None,
        )

    def create_intent(
        self, *, kind, amount, currency, reference, idempotency_key, return_url=""
    ) -> Intent:
        client = self.client
        intent = _call(
            lambda: client.v1.payment_intents.create(
                params={
                    "amount": to_minor(amount, currency),
                    "currency": currency.lower(),
                    "metadata": {"reference": reference},
                    "automatic_payment_methods": {"enabled": True},
                },
                options={"idempotency_key": idempotency_key},
            )
        )
        return Intent(
            external_id=intent.id,
            status=intent.status,
            amount=from_minor(intent.amount, intent.currency),
            currency=intent.currency.upper(),
            client_secret=intent.client_secret or "",
        )

    def capture(self, *, external_id, amount, currency) -> Capture:
        raise ProviderRefused("Stripe card intents complete by webhook, not by capture.")

    def refund(self, *, transaction_id, amount, currency, idempotency_key) -> Refund:
        client = self.client
        refund = _call(
            lambda: client.v1.refunds.create(
                params={"payment_intent": transaction_id, "amount": to_minor(amount, currency)},
                options={"idempotency_key": idempotency_key},
            )
        )
        if refund.status in {"failed", "canceled"}:
            raise ProviderRefused(f"Stripe refused the refund ({refund.status}).")
        return Refund(
            refund_id=refund.id,
            status="succeeded" if refund.status == "succeeded" else "pending",
            amount=from_minor(refund.amount, refund.currency),
            currency=refund.currency.upper(),
        )

    def verify_event(self, *, body: bytes, headers: Mapping[str, str]) -> Event:
        if not self.webhook_secret:
            raise BadSignature("The Stripe gateway config has no webhook_secret.")
        try:
            event = stripe.Webhook.construct_event(
                body, headers.get("Stripe-Signature", ""), self.webhook_secret
            )
        except stripe.SignatureVerificationError as exc:
            raise BadSignature(f"Stripe signature: {exc.user_message or exc}") from exc
        except ValueError as exc:
            raise BadSignature("The signed body is not a Stripe event.") from exc
        try:
            event = event.to_dict()
            obj = event["data"]["object"]
            kind = EVENT_TYPES.get(event["type"], event["type"])
            if kind.startswith("payment."):
                currency = str(obj["currency"])
                received = obj.get("amount_received") or obj.get("amount") or 0
                return Event(
                    id=event["id"],
                    type=kind,
                    external_id=obj["id"],
                    transaction_id=obj["id"],
                    amount=from_minor(received, currency),
                    currency=currency.upper(),
                )
            return Event(id=event["id"], type=kind)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadSignature("The Stripe event is missing its object.") from exc

    def check(self) -> CheckResult:
        client = self.client
        try:
            balance = client.v1.balance.retrieve()
        except stripe.AuthenticationError as exc:
            return CheckResult(ok=False, message=f"Stripe refused the key: {exc.user_message}")
        except stripe.APIConnectionError as exc:
            raise _unreachable(exc) from None
        except stripe.StripeError as exc:
            return CheckResult(ok=False, message=f"Stripe: {exc.user_message or exc}")
        live = bool(getattr(balance, "livemode", False))
        return CheckResult(
            ok=True,
            message=f"Stripe accepted the key ({'live' if live else 'test'} mode).",
            account="live" if live else "test",
        )
