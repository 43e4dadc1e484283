"""The local sandbox provider: a checkout page of this service with Pay and Decline buttons."""

from __future__ import annotations

import secrets
from decimal import Decimal

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from licensing.models import SandboxCheckout, SandboxCheckoutStatus
from licensing.payments.base import Checkout, PaymentCheck


class SandboxProvider:
    name = "sandbox"

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
        checkout = SandboxCheckout.objects.create(
            token=secrets.token_urlsafe(24),
            order_code=order_code,
            description=description[:255],
            amount=amount,
            currency=currency,
            return_url=return_url,
        )
        path = reverse("sandbox-checkout", kwargs={"token": checkout.token})
        return Checkout(url=f"{base_url.rstrip('/')}{path}", reference=checkout.token)

    def check_transaction(self, *, transaction_id: str) -> PaymentCheck | None:
        checkout = SandboxCheckout.objects.filter(transaction_id=transaction_id).first()
        if checkout is None:
            return None
        return PaymentCheck(
            transaction_id=transaction_id,
            paid=checkout.status == SandboxCheckoutStatus.PAID,
            amount=checkout.amount,
            currency=checkout.currency,
            order_code=checkout.order_code,
        )


def sandbox_complete(*, token: str, pay: bool) -> SandboxCheckout | None:
    """The payer pressed Pay (or Decline). A checkout completes once; None if unknown."""
    with transaction.atomic():
        checkout = SandboxCheckout.objects.select_for_update().filter(token=token).first()
        if checkout is None or checkout.status != SandboxCheckoutStatus.OPEN:
            return checkout
        checkout.status = SandboxCheckoutStatus.PAID if pay else SandboxCheckoutStatus.DECLINED
        checkout.transaction_id = "sbx_" + secrets.token_hex(12)
        checkout.completed_at = timezone.now()
        checkout.save(update_fields=["status", "transaction_id", "completed_at"])
    return checkout
