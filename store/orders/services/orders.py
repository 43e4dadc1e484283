"""Orders: create (the one way to make an order), update, the three status moves, delete, bulk."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from common import audit
from common.errors import ServiceError
from store.common.accounts import logged_in
from store.common.addresses import address_for_storing
from store.common.errors import invalid_params, rule_broken
from store.common.money import money
from store.common.problems import Problems
from store.customers.models import Customer
from store.customers.services import customer_for_email
from store.inventory.choices import MovementReason
from store.orders import events as order_events
from store.orders import selectors
from store.orders.choices import (
    TRANSITIONS,
    FulfillmentStatus,
    HistoryField,
    OrderSource,
    OrderStatus,
    PaymentStatus,
    holds_stock,
)
from store.orders.models import Order, OrderItem
from store.orders.services.common import AUDITED_FIELDS, order_for_update, order_trail, record
from store.orders.services.lines import resolve_lines, taxed
from store.orders.services.stock import (
    flag_release,
    holds_nothing,
    release_stock,
    revise,
    schedule_release,
    take_stock,
)
from store.orders.services.totals import recalculate
from store.orders.signals import order_released, order_reopened, order_status_changed
from store.reports import rollups
from store.settings import selectors as store_settings
from store.tax import selectors as tax_selectors

MAX_ITEMS = 200
ORDER_NUMBER_PREFIX = settings.STORE_PREFIX.upper()

# Fields of the order itself, set as given (validated by the caller's serializer).
TEXT_FIELDS = (
    "payment_method",
    "payment_method_title",
    "shipping_method",
    "shipping_method_title",
    "customer_note",
    "admin_note",
)
AMOUNT_FIELDS = ("shipping_total", "shipping_tax", "discount_total")


def new_order_key() -> str:
    return f"{settings.STORE_PREFIX}_order_{secrets.token_urlsafe(24)}"


def order_number_for(pk: int) -> str:
    return f"{ORDER_NUMBER_PREFIX}-{pk:06d}"


def _customer(customer_id: int | None, problems: Problems) -> Customer | None:
    if customer_id is None:
        return None
    customer = Customer.objects.filter(pk=customer_id).first()
    if customer is None:
        problems.add("customer_id", f"No customer with id {customer_id}.")
    return customer


def _currency(value: str | None) -> str:
    return (value or store_settings.get_value("currency", "currency")).upper()


def _item_param(items: list[OrderItem]):
    index = {item.pk: position for position, item in enumerate(items)}
    return lambda item_id: f"items.{index.get(item_id, 0)}.quantity"


@transaction.atomic
@rollups.batched
def order_create(
    *,
    items: list[dict],
    customer: Customer | None = None,
    customer_id: int | None = None,
    status: str = OrderStatus.PENDING,
    currency: str | None = None,
    billing_address: dict | None = None,
    shipping_address: dict | None = None,
    payment_method: str = "",
    payment_method_title: str = "",
    shipping_method: str = "",
    shipping_method_title: str = "",
    shipping_total: Decimal = Decimal(0),
    shipping_tax: Decimal = Decimal(0),
    discount_total: Decimal = Decimal(0),
    customer_note: str = "",
    admin_note: str = "",
    coupon_lines: list[dict] | None = None,
    vat_number: str = "",
    actor=None,
    source: str = OrderSource.API,
) -> Order:
    """Create an order and take the stock it holds, in one transaction; answer the order.

    `items`: [{product_id, variant_id?, quantity?, price?, tax?, subtotal?, title?, sku?,
    options?}]; a price left out is the catalog's price now; `tax` is the tax of the whole
    line (a cart's tax goes on its lines, and on shipping as `shipping_tax`); `subtotal` the
    exact line amount without tax when price x quantity cannot give it (a cart priced with
    tax). `coupon_lines` records the coupons behind `discount_total` ([{code, discount,
    discount_tax}], for the receipt). `vat_number`: the customer's EU VAT number (400
    `invalid_vat_number` when python-stdnum finds it invalid); where store.tax's reverse charge
    applies to it (as it does to a cart), the order carries no tax: line taxes and shipping tax
    are 0 whatever was sent. `customer` (or `customer_id`)
    is who orders; without one, a billing e-mail address finds or makes the customer. Totals
    are computed here. When an item has too few units for sale and allows no backorders,
    nothing is created (409 `insufficient_stock`, naming `items.<n>.quantity`).
    """
    problems = Problems()
    if status not in OrderStatus.values:
        problems.add("status", f"Not an order status: {status!r}.")
    if len(items) > MAX_ITEMS:
        problems.add("items", f"At most {MAX_ITEMS} items.")
    if customer is None:
        customer = _customer(customer_id, problems)
    lines = resolve_lines(items, problems)
    billing_address = address_for_storing(
        billing_address, name="billing_address", problems=problems
    )
    shipping_address = address_for_storing(
        shipping_address, name="shipping_address", problems=problems
    )
    try:
        vat_number = tax_selectors.vat_number_clean(vat_number)
    except ServiceError as exc:
        problems.add("vat_number", " ".join(exc.errors["vat_number"]), code=exc.code)
    problems.raise_if_any()
    reverse_charge = tax_selectors.reverse_charge_applies(vat_number, store_settings.get_all())
    if customer is None and billing_address.get("email"):
        customer = customer_for_email(
            email=billing_address["email"],
            defaults={
                "first_name": billing_address.get("first_name", ""),
                "last_name": billing_address.get("last_name", ""),
                "phone": billing_address.get("phone", ""),
                "company": billing_address.get("company", ""),
            },
        )
    now = timezone.now()
    order = Order.objects.create(
        order_key=new_order_key(),
        status=status,
        currency=_currency(currency),
        customer=customer,
        billing_address=billing_address,
        shipping_address=shipping_address,
        payment_method=payment_method or "",
        payment_method_title=payment_method_title or "",
        shipping_method=shipping_method or "",
        shipping_method_title=shipping_method_title or "",
        customer_note=customer_note or "",
        admin_note=admin_note or "",
        shipping_total=money(shipping_total or 0),
        shipping_tax=Decimal(0) if reverse_charge else money(shipping_tax or 0),
        vat_number=vat_number,
        reverse_charge=reverse_charge,
        discount_total=money(discount_total or 0),
        coupon_lines=list(coupon_lines or []),
        source=source,
        created_by=logged_in(actor),
        created_at=now,
        completed_at=now if status == OrderStatus.COMPLETED else None,
    )
    order.order_number = order_number_for(order.pk)
    Order.objects.filter(pk=order.pk).update(order_number=order.order_number)
    created = OrderItem.objects.bulk_create([line.item(order) for line in lines])
    record(order, HistoryField.STATUS, "", status, actor=actor, source=source, note="Created.")
    recalculate(order, actor=actor, source=source)
    take_stock(order, reason=MovementReason.ORDER_PLACED, actor=actor, param=_item_param(created))
    rollups.order_created(order)
    audit.created(order, AUDITED_FIELDS, note=f"{len(created)} item(s).")
    order_events.order_created(order)
    return order


@transaction.atomic
@rollups.batched
def order_update(*, order_id: int, fields: dict, actor=None, source=OrderSource.API) -> Order:
    """The general update: customer, currency, addresses, methods, notes and amounts; a
    status, payment_status or fulfillment_status in it goes through its own move."""
    order = order_for_update(order_id, with_customer=True)
    trail = order_trail(order)
    problems = Problems()
    customer = order.customer
    if "customer_id" in fields:
        customer = _customer(fields["customer_id"], problems)
    if (
        "currency" in fields
        and _currency(fields["currency"]) != order.currency
        and order.payments.exists()
    ):
        problems.add(
            "currency",
            "Payments are recorded in this order's currency; it cannot change now.",
            code="currency_locked",
        )
    addresses = {
        name: address_for_storing(fields[name], name=name, problems=problems)
        for name in ("billing_address", "shipping_address")
        if name in fields
    }
    problems.raise_if_any()
    order.customer = customer
    if "currency" in fields:
        order.currency = _currency(fields["currency"])
    for name, address in addresses.items():
        setattr(order, name, address)
    for name in TEXT_FIELDS:
        if name in fields:
            setattr(order, name, fields[name] or "")
    amounts_changed = False
    for name in AMOUNT_FIELDS:
        if name in fields:
            value = fields[name] or 0
            setattr(order, name, taxed(order, value) if name == "shipping_tax" else money(value))
            amounts_changed = True
    order.save()
    if amounts_changed:
        recalculate(order, actor=actor, source=source)
    note = fields.get("note", "")
    trail.record(note=note)
    # The moves run on this locked instance (no second lock or read); each keeps its own
    # history row and audit entry, as through its own endpoint.
    if fields.get("status"):
        _status_move(order, fields["status"], note=note, actor=actor, source=source)
    if fields.get("payment_status"):
        _simple_move(
            order,
            "payment_status",
            fields["payment_status"],
            PaymentStatus,
            note=note,
            actor=actor,
            source=source,
        )
    if fields.get("fulfillment_status"):
        _simple_move(
            order,
            "fulfillment_status",
            fields["fulfillment_status"],
            FulfillmentStatus,
            note=note,
            actor=actor,
            source=source,
        )
    rollups.order_settled(order)
    return order


def check_transition(old: str, new: str) -> None:
    if new not in OrderStatus.values:
        raise invalid_params({"status": [f"Not an order status: {new!r}."]})
    if new != old and new not in TRANSITIONS[old]:
        allowed = ", ".join(sorted(TRANSITIONS[old]))
        raise rule_broken(
            f"An order cannot move from {old} to {new} (from {old}: {allowed}).",
            code="invalid_status_transition",
            status=409,
        )


@transaction.atomic
@rollups.batched
def order_status_set(
    *, order_id: int, status: str, note: str = "", actor: Any = None, source: str = OrderSource.API
) -> Order:
    """Move an order to `status` with its stock effect (spec: States).

    Into cancelled, refunded or failed: the stock is given back (by the worker, on commit).
    Out of one of them: the stock is taken again now, atomically with the check (409
    `insufficient_stock` leaves the order as it was). The same status again changes nothing.

    Answers the order as it now is, with its customer (and, when the stock was taken, its
    lines): the caller answers from it instead of reading it back.
    """
    order = order_for_update(order_id, with_customer=True)
    _status_move(order, status, note=note, actor=actor, source=source)
    rollups.order_settled(order)
    return order


def _status_move(order: Order, status: str, *, note: str, actor: Any, source: str) -> None:
    """The move itself, on a locked order (order_status_set, order_update).

    Statements: one UPDATE of the order (status, and the release flag or the stock revision
    with it), one INSERT each for the history and the audit trail, the listeners' (the status
    e-mail's outbox row, ...); a release adds its outbox row; a reopening reads the lines and
    takes their stock (store.inventory: the products in id order, then their levels, locked
    in one statement on PostgreSQL, one UPDATE of the levels, one INSERT of the ledger rows),
    without reading the ledger when the order is known to hold nothing."""
    trail = order_trail(order)
    old = order.status
    check_transition(old, status)
    if status == old:
        return
    order.status = status
    fields = ["status", "updated_at"]
    if status == OrderStatus.COMPLETED:
        order.completed_at = timezone.now()
        fields.append("completed_at")
    releasing = holds_stock(old) and not holds_stock(status)
    reopening = holds_stock(status) and not holds_stock(old)
    flagged = []
    if releasing:  # the release's flag goes with the status (schedule_release, below)
        flagged = flag_release(order)
        fields += flagged
    if reopening:  # so does the revision of the stock taken below
        fields += revise(order)
    order.save(update_fields=fields)
    change = record(order, HistoryField.STATUS, old, status, actor=actor, source=source, note=note)
    trail.record(note=note)
    # Every listener runs before the stock is locked, so the shared product rows are held
    # only for the stock itself and the commit: the lock order stays order, coupons,
    # products, levels. A refusal of the stock (409) rolls the listeners' writes back with
    # the rest; their I/O waits for the commit.
    order_status_changed.send(
        sender=Order, order=order, old=old, new=status, source=source, actor=actor, change=change
    )
    order_events.order_status_changed(order, old=old, new=status)
    if reopening:
        order_reopened.send(sender=Order, order=order)
        take_stock(
            order,
            reason=MovementReason.ORDER_REOPENED,
            actor=actor,
            items=selectors.lines_with_products(order),
            holding={} if holds_nothing(order, old) else None,
            revised=True,
        )
    elif releasing:
        order_released.send(sender=Order, order=order)
        schedule_release(order, fresh=bool(flagged))


def _simple_move(
    order: Order,
    field_name: str,
    value: str,
    choices: type[models.TextChoices],
    *,
    note: str,
    actor: Any,
    source: str,
) -> None:
    trail = order_trail(order)
    if value not in choices.values:
        raise invalid_params({field_name: [f"Not a {field_name.replace('_', ' ')}: {value!r}."]})
    old = getattr(order, field_name)
    if value == old:
        return
    setattr(order, field_name, value)
    fields = [field_name, "updated_at"]
    if value == PaymentStatus.PAID and field_name == "payment_status" and order.paid_at is None:
        order.paid_at = timezone.now()
        fields.append("paid_at")
    order.save(update_fields=fields)
    record(order, field_name, old, value, actor=actor, source=source, note=note)
    trail.record(note=note)
    if field_name == "payment_status" and value == PaymentStatus.PAID:
        order_events.order_paid(order)


def _simple_status_set(
    order_id: int,
    field_name: str,
    value: str,
    choices: type[models.TextChoices],
    *,
    note: str,
    actor: Any,
    source: str,
) -> Order:
    order = order_for_update(order_id, with_customer=True)
    _simple_move(order, field_name, value, choices, note=note, actor=actor, source=source)
    rollups.order_settled(order)
    return order


@transaction.atomic
@rollups.batched
def order_payment_status_set(
    *, order_id: int, payment_status: str, note: str = "", actor=None, source=OrderSource.API
) -> Order:
    """Set the payment status by hand (e.g. paid outside the store). It follows the amounts
    paid again at the next change of payments or totals."""
    return _simple_status_set(
        order_id,
        "payment_status",
        payment_status,
        PaymentStatus,
        note=note,
        actor=actor,
        source=source,
    )


@transaction.atomic
@rollups.batched
def order_fulfillment_status_set(
    *, order_id: int, fulfillment_status: str, note: str = "", actor=None, source=OrderSource.API
) -> Order:
    """Set the fulfilment status by hand (e.g. handed over in the shop). It follows the
    shipments again at the next change of shipments or lines."""
    return _simple_status_set(
        order_id,
        "fulfillment_status",
        fulfillment_status,
        FulfillmentStatus,
        note=note,
        actor=actor,
        source=source,
    )


@transaction.atomic
@rollups.batched
def order_delete(*, order_id: int, actor=None) -> None:
    """Delete an order; one that holds stock gives it back first, in this transaction."""
    order = order_for_update(order_id)
    if holds_stock(order.status):
        order_released.send(sender=Order, order=order)
    release_stock(order, reason=MovementReason.ORDER_DELETED, actor=actor, everything=True)
    audit.record(order, action="deleted", changes={"status": [order.status, None]})
    order.delete()


BULK_LIMIT = 100
BULK_DELETE = "delete"


@dataclass
class BulkResult:
    succeeded: list[int] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)


def orders_bulk(
    *, ids: list[int], action: str, note: str = "", actor=None, source=OrderSource.API
) -> BulkResult:
    """`action` (delete, or a target status) on each order, each in its own transaction:
    one order's refusal does not stop the others. Answers which succeeded and which failed
    and why."""
    ids = list(dict.fromkeys(ids))
    problems = {}
    if not ids:
        problems["ids"] = ["Give at least one order id."]
    elif len(ids) > BULK_LIMIT:
        problems["ids"] = [f"At most {BULK_LIMIT} ids at once."]
    if action != BULK_DELETE and action not in OrderStatus.values:
        problems["action"] = [
            f"Use delete or an order status ({', '.join(OrderStatus.values)}), not {action!r}."
        ]
    if problems:
        raise invalid_params(problems)
    result = BulkResult()
    for order_id in ids:
        try:
            if action == BULK_DELETE:
                order_delete(order_id=order_id, actor=actor)
            else:
                order_status_set(
                    order_id=order_id, status=action, note=note, actor=actor, source=source
                )
        except ServiceError as exc:
            result.failed.append({"id": order_id, "code": exc.code, "message": exc.detail})
        else:
            result.succeeded.append(order_id)
    return result
