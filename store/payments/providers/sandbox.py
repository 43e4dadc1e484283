"""The local sandbox card provider: decides by the card number, moves no money.

Test cards (any future expiry, any 3-digit CVC, 4 for American Express):

| number | answer |
|---|---|
| 4242 4242 4242 4242 (Visa), 5555 5555 5555 4444 (MC), 3782 822463 10005 (Amex) | approved |
| 4000 0000 0000 0002 | declined: card_declined |
| 4000 0000 0000 9995 | declined: insufficient_funds |
| 4000 0000 0000 0069 | declined: expired_card |
| 4000 0000 0000 0127 | declined: incorrect_cvc |
| 4000 0000 0000 0119 | declined: processing_error |

A card past its expiry month is declined `expired_card`; any other number is declined
`test_card_required` (the sandbox takes test cards only, so nobody mistakes it for a real
payment). Each charge is a SandboxCharge row; the same idempotency key answers the same one.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Mapping
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from common.jsonload import loads
from store.payments.models import SandboxCharge, SandboxChargeStatus
from store.payments.providers.base import (
    BadSignature,
    Capture,
    Card,
    Charge,
    CheckResult,
    Event,
    Intent,
    ProviderRefused,
    Refund,
)

APPROVED = {"4242424242424242", "5555555555554444", "378282246310005"}
DECLINED = {
    "4000000000000002": "card_declined",
    "4000000000009995": "insufficient_funds",
    "4000000000000069": "expired_card",
    "4000000000000127": "incorrect_cvc",
    "4000000000000119": "processing_error",
}
MESSAGES = {
    "card_declined": "The card was declined.",
    "insufficient_funds": "The card has insufficient funds.",
    "expired_card": "The card has expired.",
    "incorrect_cvc": "The card's security code is incorrect.",
    "processing_error": "The card could not be processed; try again.",
    "test_card_required": "The sandbox takes test cards only (e.g. 4242 4242 4242 4242); no "
    "money moves.",
}
TEST_CARDS = [
    {"number": "4242 4242 4242 4242", "brand": "visa", "result": "approved"},
    {"number": "5555 5555 5555 4444", "brand": "mastercard", "result": "approved"},
    {"number": "4000 0000 0000 0002", "brand": "visa", "result": "card_declined"},
    {"number": "4000 0000 0000 9995", "brand": "visa", "result": "insufficient_funds"},
]


def brand_of(number: str) -> str:
    if number.startswith("4"):
        return "visa"
    if number[:2] in {"34", "37"}:
        return "amex"
    if 51 <= int(number[:2] or 0) <= 55 or 2221 <= int(number[:4] or 0) <= 2720:
        return "mastercard"
    return "card"


def _decline_code(card: Card, today) -> str:
    """'' when the card is approved, else why it is declined."""
    if (card.exp_year, card.exp_month) < (today.year, today.month):
        return "expired_card"
    if card.number in DECLINED:
        return DECLINED[card.number]
    if card.number not in APPROVED:
        return "test_card_required"
    return ""


def _charge_of(row: SandboxCharge) -> Charge:
    approved = row.status == SandboxChargeStatus.APPROVED
    return Charge(
        transaction_id=row.transaction_id,
        approved=approved,
        amount=row.amount,
        currency=row.currency,
        brand=row.brand,
        last4=row.last4,
        decline_code=row.decline_code,
        message="" if approved else MESSAGES.get(row.decline_code, "The card was declined."),
    )


class SandboxCardProvider:
    name = "sandbox"

    def charge(
        self,
        *,
        amount: Decimal,
        currency: str,
        card: Card,
        reference: str,
        description: str,
        idempotency_key: str,
    ) -> Charge:
        found = SandboxCharge.objects.filter(idempotency_key=idempotency_key).first()
        if found is not None:
            return _charge_of(found)
        code = _decline_code(card, timezone.now().date())
        try:
            with transaction.atomic():
                row = SandboxCharge.objects.create(
                    transaction_id="sbx_" + secrets.token_hex(12),
                    idempotency_key=idempotency_key,
                    reference=reference[:64],
                    description=description[:255],
                    amount=amount,
                    currency=currency.upper(),
                    status=SandboxChargeStatus.DECLINED if code else SandboxChargeStatus.APPROVED,
                    decline_code=code,
                    brand=brand_of(card.number),
                    last4=card.last4,
                    exp_month=card.exp_month,
                    exp_year=card.exp_year,
                )
        except IntegrityError:  # the same key, charged meanwhile by a concurrent call
            row = SandboxCharge.objects.get(idempotency_key=idempotency_key)
        return _charge_of(row)

    def refund(self, *, transaction_id: str, amount: Decimal) -> None:
        SandboxCharge.objects.filter(
            transaction_id=transaction_id,
            status=SandboxChargeStatus.APPROVED,
            amount_refunded__lte=F("amount") - amount,
        ).update(amount_refunded=F("amount_refunded") + amount)


# --- The sandbox behind the online gateways (intents, wallet orders, redirects) --------------

SIGNATURE_HEADER = "Sandbox-Signature"
SIGNATURE_TOLERANCE = 300  # seconds


def sign(secret: str, body: bytes, timestamp: int | None = None) -> str:
    """The `Sandbox-Signature` header of `body`: `t=<unix time>,v1=<HMAC-SHA256 hex of
    "<t>.<body>" keyed with the config's webhook secret>` (Stripe's scheme)."""
    stamp = int(time.time()) if timestamp is None else int(timestamp)
    digest = hmac.new(secret.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={stamp},v1={digest}"


def verify(secret: str, body: bytes, header: str, *, now: float | None = None) -> None:
    parts = dict(item.split("=", 1) for item in str(header or "").split(",") if "=" in item)
    stamp, given = parts.get("t", ""), parts.get("v1", "")
    if not secret or not stamp.isdigit() or not given:
        raise BadSignature(f"Missing or malformed {SIGNATURE_HEADER} header.")
    if abs((time.time() if now is None else now) - int(stamp)) > SIGNATURE_TOLERANCE:
        raise BadSignature("The signature's timestamp is too old (or in the future).")
    if not hmac.compare_digest(sign(secret, body, int(stamp)), f"t={stamp},v1={given}"):
        raise BadSignature("The signature does not match the body.")


_PREFIX = {"card": "sbx_pi_", "wallet": "SBXPP", "redirect": "sbx_br_"}


def _derived(prefix: str, key: str) -> str:
    """An id derived from the idempotency key: the same key answers the same id."""
    return prefix + hashlib.sha256(key.encode()).hexdigest()[:24]


class SandboxProvider:
    """Moves no money. Intents and wallet orders are approved at once; what completes a card
    intent or a bank redirect is a signed event (`manage.py payment_sandbox_event`)."""

    name = "sandbox"

    def __init__(self, credentials: dict | None = None) -> None:
        self.secret = (credentials or {}).get("webhook_secret", "")

    def create_intent(
        self, *, kind, amount, currency, reference, idempotency_key, return_url=""
    ) -> Intent:
        external_id = _derived(_PREFIX.get(kind, "sbx_"), idempotency_key)
        return Intent(
            external_id=external_id,
            status="requires_payment_method" if kind == "card" else "created",
            amount=amount,
            currency=currency.upper(),
            client_secret=_derived(f"{external_id}_secret_", "secret:" + idempotency_key)
            if kind == "card"
            else "",
            redirect_url=(
                f"https://sandbox.invalid/{kind}/{external_id}?return_url={return_url}"
                if kind != "card"
                else ""
            ),
        )

    def capture(self, *, external_id, amount, currency) -> Capture:
        return Capture(
            transaction_id=_derived("SBXCAP", external_id),
            completed=True,
            amount=amount,
            currency=currency.upper(),
            status="COMPLETED",
        )

    def refund(self, *, transaction_id, amount, currency, idempotency_key) -> Refund:
        refund_id = _derived("sbx_re_", idempotency_key)
        if SandboxCharge.objects.filter(transaction_id=transaction_id).exists():
            with transaction.atomic():
                done = SandboxCharge.objects.filter(
                    transaction_id=transaction_id,
                    status=SandboxChargeStatus.APPROVED,
                    amount_refunded__lte=F("amount") - amount,
                ).update(amount_refunded=F("amount_refunded") + amount)
            if not done:
                raise ProviderRefused(
                    f"The sandbox refuses: charge {transaction_id} has less than {amount} "
                    "left to refund.",
                )
        return Refund(refund_id=refund_id, status="succeeded", amount=amount, currency=currency)

    def verify_event(self, *, body: bytes, headers: Mapping[str, str]) -> Event:
        verify(self.secret, body, headers.get(SIGNATURE_HEADER, ""))
        try:
            data = loads(body)
            inner = data.get("data") or {}
            amount = inner.get("amount")
            return Event(
                id=str(data["id"])[:255],
                type=str(data["type"])[:100],
                external_id=str(inner.get("external_id", ""))[:100],
                transaction_id=str(inner.get("transaction_id", ""))[:100],
                amount=Decimal(str(amount)) if amount is not None else None,
                currency=str(inner.get("currency", "")).upper()[:3],
            )
        except (ValueError, KeyError, TypeError, AttributeError, ArithmeticError) as exc:
            raise BadSignature("The signed body is not a sandbox event.") from exc

    def check(self) -> CheckResult:
        return CheckResult(
            ok=bool(self.secret),
            message="The sandbox answers; no money moves."
            if self.secret
            else "The sandbox config has no webhook secret.",
            account="sandbox",
        )
