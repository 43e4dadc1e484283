"""Payments and refunds; the payment status follows the amounts paid."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.db.models import Q, Sum
from django.utils import timezone

from common import audit
from common.events import send_after_commit
from store.common.accounts import logged_in
from store.common.errors import invalid_params
from store.common.money import money
from store.orders.choices import (
    OrderSource,
    OrderStatus,
    PaymentKind,
    PaymentRecordStatus,
    holds_stock,
)
from store.orders.models import Order, Payment
from store.orders.services.common import lock_order_of, order_for_update, order_trail
from store.orders.services.orders import order_status_set
from store.orders.services.totals import recalculate
from store.orders.signals import payment_recorded
from store.reports import rollups
from store.settings import selectors as store_settings

FIELDS = ("kind", "status", "amount", "method", "transaction_id", "note", "paid_at")
# What a payment's audit trail follows (common.audit).
AUDITED_FIELDS = ("order", *FIELDS)


def _check_refunds(order: Order) -> None:
    """Completed refunds never exceed completed payments."""
    sums = Payment.objects.filter(order=order, status=PaymentRecordStatus.COMPLETED).aggregate(
        paid=Sum("amount", filter=Q(kind=PaymentKind.PAYMENT)),
        refunded=Sum("amount", filter=Q(kind=PaymentKind.REFUND)),
    )
    paid, refunded = sums["paid"] or Decimal(0), sums["refunded"] or Decimal(0)
    if refunded > paid:
        raise invalid_params(
            {
                "amount": [
                    f"Refunds ({refunded}) would exceed what was paid ({paid}) on this order."
                ]
            },
            code="refund_exceeds_paid",
        )


def _announce(order: Order, payment: Payment, *, deleted: bool = False, payment_id=None) -> None:
    """Send `payment_recorded` after the commit for a completed payment or refund (the ERP's
    accounting posts it; a receiver's failure never fails this change)."""
    if payment.status != PaymentRecordStatus.COMPLETED:
        return
    address = order.billing_address if isinstance(order.billing_address, dict) else {}
    parts = (address.get("first_name"), address.get("last_name"))
    name = " ".join(str(part) for part in parts if part)
    event = {
        "payment_id": payment_id or payment.pk,
        "order_id": order.pk,
        "order_number": order.order_number or "",
        "kind": payment.kind,
        "amount": str(payment.amount),
        "currency": order.currency,
        "date": timezone.localdate(payment.paid_at).isoformat(),
        "method": payment.method,
        "customer_id": order.customer_id,
        "customer_name": str(address.get("company") or name or "")[:200],
        "deleted": deleted,
    }
    send_after_commit(payment_recorded, sender=Payment, event=event)


def _unsigned(fields: dict, *, kind: str | None) -> dict:
    """A payment's body with `amount` as its stored magnitude. The amount may be sent as the
    lists show it (a refund negative: what was read can be sent back) or as a magnitude with
    `kind`; `kind` is the one sent, else the payment's (`None`: a new payment, whose kind a
    negative amount makes a refund). 400 for a zero amount, or a negative one on a payment."""
    if fields.get("amount") is None:
        return fields
    amount = money(fields["amount"])
    if amount > 0:
        return {**fields, "amount": amount}
    if amount == 0:
        raise invalid_params({"amount": ["A payment or refund moves some money: not 0."]})
    kind = fields.get("kind") or kind or PaymentKind.REFUND
    if kind != PaymentKind.REFUND:
        raise invalid_params(
            {
                "amount": [
                    "A payment's amount is positive; money going back is a refund "
                    "(a negative amount, or a positive one with kind refund)."
                ]
            }
        )
    return {**fields, "kind": kind, "amount": -amount}


def _follow_full_refund(order: Order, payment: Payment, *, actor, source) -> None:
    """A completed refund that leaves nothing paid moves a live order (one that holds stock) to
    refunded, its stock given back as with any move there, unless the `orders` settings keep
    the status. A cancelled, failed or refunded order keeps its status: it holds no stock,
    and its status says more than `refunded` would (a marketplace's cancellation)."""
    if payment.kind != PaymentKind.REFUND or payment.status != PaymentRecordStatus.COMPLETED:
        return
    if order.amount_paid <= 0 or order.amount_refunded < order.amount_paid:
        return
    if not holds_stock(order.status):
        return
    if store_settings.get_value("orders", "fully_refunded_status") != "refunded":
        return
    order_status_set(
        order_id=order.pk,
        status=OrderStatus.REFUNDED,
        note=f"Refunded in full (payment {payment.pk}).",
        actor=actor,
        source=source,
    )


def _apply(payment: Payment, fields: dict) -> None:
    for name in FIELDS:
        if name in fields and fields[name] is not None:
            setattr(payment, name, fields[name])
    payment.save()


@transaction.atomic
@rollups.batched
def payment_create(
    *,
    order_id: int,
    fields: dict,
    actor=None,
    source=OrderSource.API,
    full_refund_moves_status: bool = True,
) -> Payment:
    """Record a payment or a refund (`kind`); completed ones count towards the amounts paid.
    A refund that leaves nothing paid moves the order to refunded (_follow_full_refund), but
    not with `full_refund_moves_status` off: a refund that chose the lines given back to
    stock, which the move would override by giving back every unit."""
    fields = _unsigned(fields, kind=None)
    order = order_for_update(order_id)
    trail = order_trail(order)
    payment = Payment(order=order, created_by=logged_in(actor))
    if not fields.get("method"):
        fields = {**fields, "method": order.payment_method}
    _apply(payment, fields)
    _check_refunds(order)
    note = f"Payment {payment.pk} recorded."
    recalculate(order, actor=actor, source=source, note=note)
    audit.created(payment, AUDITED_FIELDS)
    trail.record(note=note)
    _announce(order, payment)
    if full_refund_moves_status:
        _follow_full_refund(order, payment, actor=actor, source=source)
    return payment


@transaction.atomic
@rollups.batched
def payment_update(*, payment_id: int, fields: dict, actor=None, source=OrderSource.API) -> Payment:
    order, payment = lock_order_of(Payment, payment_id, "payment")
    fields = _unsigned(fields, kind=payment.kind)
    trail, payment_trail = order_trail(order), audit.track(payment, AUDITED_FIELDS)
    _apply(payment, fields)
    _check_refunds(order)
    note = f"Payment {payment.pk} changed."
    recalculate(order, actor=actor, source=source, note=note)
    payment_trail.record()
    trail.record(note=note)
    _announce(order, payment)
    _follow_full_refund(order, payment, actor=actor, source=source)
    return payment


@transaction.atomic
@rollups.batched
def payment_delete(*, payment_id: int, actor=None, source=OrderSource.API) -> None:
    order, payment = lock_order_of(Payment, payment_id, "payment")
    trail = order_trail(order)
    audit.record(payment, action="deleted", changes={"amount": [str(payment.amount), None]})
    payment.delete()
    _check_refunds(order)
    note = f"Payment {payment_id} deleted."
    recalculate(order, actor=actor, source=source, note=note)
    trail.record(note=note)
    _announce(order, payment, deleted=True, payment_id=payment_id)
