"""The interface of a card payment provider (the sandbox now; a real one beside it later).

A provider charges a card for an amount and refunds a charge. `idempotency_key` makes a
repeated call answer the charge it already made (a client or a worker retrying after a lost
answer must not pay twice). Card numbers go to the provider and nowhere else: only the
brand and the last four digits come back.
"""

from __future__ import annotations

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
