"""Refunds of an order, in full or in part, through the gateways that took its payments (or
recorded by hand for those taken offline), with its units given back to stock when asked.

Orders are changed only through store.orders.services: each refund recorded as a refund payment
with `payment_create` (the order's payment status following), the units given back with
`order_items_restock`, the move to refunded with `order_status_set` (which gives stock back).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import QuerySet, Sum
from django.utils import timezone

from store.common.accounts import logged_in
from store.common.errors import invalid_params, not_found, rule_broken
from store.common.money import money
from store.orders import events as order_events
from store.orders import services as order_services
from store.orders.choices import OrderStatus, PaymentKind, PaymentRecordStatus, holds_stock
from store.orders.models import Order, Payment
from store.payments.gateways import ONLINE
from store.payments.models import GatewayRefund, PaymentAttempt
from store.payments.providers.base import PaymentProvider
from store.payments.providers.sandbox import SandboxProvider
from store.payments.services.configs import provider_for

if TYPE_CHECKING:
    from accounts.models import User

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
