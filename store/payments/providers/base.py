"""The interface of a card payment provider (the sandbox now; a real one beside it later).

A provider charges a card for an amount and refunds a charge. `idempotency_key` makes a
repeated call answer the charge it already made (a client or a worker retrying after a lost
answer must not pay twice). Card numbers go to the provider and nowhere else: only the
brand and the last four digits come back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Protocol

from common.errors import ServiceError


class ProviderUnavailable(ServiceError):
    """The provider could not be reached or answered nonsense: nothing was charged."""

    status_code = 502
    default_code = "payment_provider_unavailable"


class PaymentsNotConfigured(ServiceError):
    """A sandbox provider outside development (it would hand goods out for free)."""

    status_code = 503
    default_code = "payments_not_configured"


@dataclass(frozen=True)
class Card:
    number: str = field(repr=False)  # digits only; never logged, never stored
    exp_month: int
    exp_year: int  # four digits
    cvc: str = field(repr=False)
    holder: str = ""

    @property
    def last4(self) -> str:
        return self.number[-4:]


@dataclass(frozen=True)
class Charge:
    transaction_id: str
    approved: bool
    amount: Decimal
    currency: str
    brand: str = ""
    last4: str = ""
    decline_code: str = ""  # e.g. card_declined, insufficient_funds, expired_card
    message: str = ""


class CardProvider(Protocol):
    name: str

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
        """Charge `card`; a declined card answers a Charge with approved False (no raise)."""

    def refund(self, *, transaction_id: str, amount: Decimal) -> None:
        """Give back `amount` of an approved charge (a placement that failed after paying)."""


# --- Online gateways: intents, wallet orders, bank redirects, refunds, webhooks -------------


class ProviderRefused(ServiceError):
    """The provider answered, and refused (bad credentials, an amount it will not refund...)."""

    status_code = 502
    default_code = "payment_provider_refused"


class BadSignature(ServiceError):
    """An inbound notification whose signature does not verify: nothing was done."""

    status_code = 400
    default_code = "invalid_signature"


@dataclass(frozen=True)
class Intent:
    """A payment started at the provider: a card PaymentIntent, a wallet order or a bank
    redirect. The shopper completes it with `client_secret` or at `redirect_url`."""

    external_id: str
    status: str
    amount: Decimal
    currency: str
    client_secret: str = field(default="", repr=False)
    redirect_url: str = ""


@dataclass(frozen=True)
class Capture:
    transaction_id: str
    completed: bool
    amount: Decimal
    currency: str
    status: str = ""


@dataclass(frozen=True)
class Refund:
    refund_id: str
    status: str  # succeeded | pending
    amount: Decimal
    currency: str


@dataclass(frozen=True)
class Event:
    """An inbound notification, verified and read into the one shape the services handle.

    `type` is normalised: `payment.succeeded`, `payment.failed`, or the provider's own type
    (answered 200 and ignored). `external_id` is the intent, wallet order or redirect it is
    about; `transaction_id` the capture/charge that moved the money."""

    id: str
    type: str
    external_id: str = ""
    transaction_id: str = ""
    amount: Decimal | None = None
    currency: str = ""


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    message: str
    account: str = ""


class PaymentProvider(Protocol):
    """What an online gateway's provider does; the sandbox, Stripe and PayPal adapters."""

    name: str

    def create_intent(
        self,
        *,
        kind: str,
        amount: Decimal,
        currency: str,
        reference: str,
        idempotency_key: str,
        return_url: str = "",
    ) -> Intent:
        """Start a payment of `kind` (card, wallet, redirect)."""

    def capture(self, *, external_id: str, amount: Decimal, currency: str) -> Capture:
        """Capture an approved wallet order."""

    def refund(
        self, *, transaction_id: str, amount: Decimal, currency: str, idempotency_key: str
    ) -> Refund:
        """Give back `amount` of a captured payment; raises rather than doing nothing."""

    def verify_event(self, *, body: bytes, headers: Mapping[str, str]) -> Event:
        """Verify an inbound notification (BadSignature) and read it."""

    def check(self) -> CheckResult:
        """A real credentials check (ProviderUnavailable when unreachable)."""
