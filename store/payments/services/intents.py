"""Online payments: a card intent, a wallet order or a bank redirect started at the gateway's
provider for what an order has due, a wallet order captured, and a provider's completed payment
recorded on its order (once).

Orders are changed only through store.orders.services: the payment recorded with
`payment_create` (the order's payment status following), the order's status with
`order_status_set`.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction

from store.common.errors import not_found, rule_broken
from store.common.money import money
from store.orders import selectors as order_selectors
from store.orders import services as order_services
from store.orders.choices import (
    OrderSource,
    OrderStatus,
    PaymentKind,
    PaymentRecordStatus,
    PaymentStatus,
)
from store.orders.models import Order
from store.payments.crypto import unseal
from store.payments.gateways import ONLINE
from store.payments.models import AttemptStatus, PaymentAttempt
from store.payments.services.configs import provider_for
from store.settings import selectors as store_settings

logger = logging.getLogger(__name__)


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
