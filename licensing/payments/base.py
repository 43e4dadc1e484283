"""The interface every payment provider implements."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from common.errors import ServiceError


class ProviderUnavailable(ServiceError):
    """The provider could not be reached or answered nonsense: nothing was changed."""

    status_code = 502
    default_code = "payment_provider_unavailable"


@dataclass(frozen=True)
class Checkout:
    """A payment page the payer is sent to."""

    url: str
    reference: str  # the provider's id of the checkout


@dataclass(frozen=True)
class PaymentCheck:
    """What the provider says about one transaction."""

    transaction_id: str
    paid: bool
    amount: Decimal | None
    currency: str | None
    order_code: str | None  # the reference we gave the provider when creating the checkout


class PaymentProvider(Protocol):
    name: str

    def create_checkout(
        self,
        *,
        order_code: str,
        description: str,
        amount: Decimal,
        currency: str,
        base_url: str,
        return_url: str,
    ) -> Checkout:
        """Open a checkout for `amount`; `base_url` is this service's public address
        (common.links.site_url(): FRONTEND_URL, never a request's host)."""

    def check_transaction(self, *, transaction_id: str) -> PaymentCheck | None:
        """The transaction's state, or None when the provider does not know it."""
