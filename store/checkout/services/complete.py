"""Completing a checkout: place the order and take the payment.

It runs in two steps:

1. Place (one transaction, the cart and the checkout locked): re-price the cart, hold its
   stock and coupon uses again (fresh), check everything, confirm the coupon uses, turn the
   stock hold into the order's stock (given back and taken in one transaction, products
   locked first), create the order through `store.orders.services.order_create` and empty the
   cart. Offline methods (bank transfer, cash on delivery) and free orders end here: the
   checkout is completed and the order e-mail goes out (Celery, after the commit).
2. Pay by card (a second transaction, the checkout and the order locked): charge the card
   through the provider; approved, the payment is recorded, the order moves to processing,
   the checkout is completed and the e-mail goes out; declined, the refusal is recorded, the
   order waits (pending) until `payment_due_at` and complete may be called again.

A completed checkout answers its order again (completing twice gives one order); parallel
completes queue on the locks, so a card is charged once.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from common.errors import Conflict, ServiceError
from store.cart.models import Cart
from store.cart.services.items import cart_empty
from store.cart.services.pricing import CartState, title_of
from store.cart.services.session import cart_for_update
from store.checkout.models import EDITABLE, Checkout, CheckoutStatus
from store.checkout.services import holds
from store.checkout.services.checkout import (
    CHECKOUT_SOURCE,
    cart_of,
    check_cart,
    check_fields,
    check_login,
    check_payment,
    check_shipping,
    checkout_locked,
    holds_refresh,
    seen_from,
    shipping_address_of,
)
from store.common.accounts import logged_in
from store.common.formats import iso
from store.common.money import from_cents, money
from store.coupons import services as coupon_services
from store.customers.models import Customer
from store.customers.services import customer_for_email, customer_for_user
from store.emails import services as email_services
from store.inventory import services as inventory
from store.orders import services as order_services
from store.orders.choices import (
    OrderStatus,
    PaymentKind,
    PaymentRecordStatus,
    PaymentStatus,
)
from store.orders.models import Order
from store.payments import services as payment_services
from store.payments.gateways import Gateway
from store.payments.providers.base import Card, Charge
from store.settings import selectors as store_settings

logger = logging.getLogger(__name__)


class PaymentDeclined(ServiceError):
    status_code = 402
    default_code = "payment_declined"


def _customer(checkout: Checkout) -> Customer:
    """The account's customer when logged in (an account whose address is unverified does not
    take over an earlier guest history: its order goes to the e-mail's customer), else the
    customer of the checkout's e-mail address."""
    billing = checkout.billing_address
    defaults = {
        "first_name": billing.get("first_name", "")[:100],
        "last_name": billing.get("last_name", "")[:100],
        "phone": billing.get("phone", "")[:40],
        "company": billing.get("company", "")[:200],
    }
    if checkout.user is not None:
        try:
            return customer_for_user(user=checkout.user)
        except ServiceError:
            logger.info("checkout %s: the order goes to the customer of its e-mail", checkout.pk)
    return customer_for_email(email=checkout.email, defaults=defaults)


def _order_lines(state: CartState) -> list[dict]:
    lines = []
    for priced in state.items:
        item = priced.item
        amounts = state.amounts.lines[item.key]
        subtotal = from_cents(amounts.subtotal)
        lines.append(
            {
                "product_id": item.product_id,
                "variant_id": item.variant_id,
                "quantity": item.quantity,
                # Without tax, like the order's totals (with prices entered with tax, the unit
                # is the line's net amount over its quantity; `subtotal` keeps it exact).
                "price": money(subtotal / item.quantity),
                "subtotal": subtotal,
                "tax": from_cents(amounts.tax),
                "title": title_of(item),
                "options": item.options,
            }
        )
    return lines


def _coupon_lines(state: CartState) -> list[dict]:
    return [
        {
            "code": entry.code,
            "discount": str(from_cents(entry.discount)),
            "discount_tax": str(from_cents(entry.discount_tax)),
        }
        for entry in state.amounts.coupons
    ]


def _place(
    *,
    checkout: Checkout,
    cart: Cart,
    state: CartState,
    gateway: Gateway | None,
    config: dict,
    now: datetime,
) -> Order:
    """Turn the checkout's holds into an order (the cart and the checkout are locked, the
    holds just taken afresh)."""
    coupon_services.coupon_uses_confirm(order_reference=checkout.reference, now=now)
    customer = _customer(checkout)
    # The holds were just taken afresh for these lines: their products cover what is held.
    inventory.stock_lock(product_ids={p.item.product_id for p in state.items})
    holds.stock_release(checkout=checkout, cart=cart)
    status = OrderStatus.PROCESSING if gateway is None else gateway.placed_status
    method = state.method
    totals = state.totals
    order = order_services.order_create(
        items=_order_lines(state),
        customer=customer,
        status=status,
        currency=state.currency,
        billing_address={**checkout.billing_address, "email": checkout.email},
        shipping_address=shipping_address_of(checkout),
        payment_method=gateway.id if gateway is not None else "",
        payment_method_title=gateway.title(config) if gateway is not None else "",
        shipping_method=f"{method.method.type}:{method.method.pk}" if method else "",
        shipping_method_title=method.method.title if method else "",
        shipping_total=totals["shipping"],
        shipping_tax=totals["shipping_tax"],
        discount_total=totals["discount"],
        customer_note=checkout.customer_note,
        coupon_lines=_coupon_lines(state),
        vat_number=cart.vat_number,  # the order's reverse charge follows by the cart's rule
        actor=checkout.user,
        source=CHECKOUT_SOURCE,
    )
    if order.total != totals["total"]:
        # The ec_cart_calculated_totals hook changed a figure the order does not carry.
        logger.warning(
            "order %s totals %s, its cart showed %s", order.pk, order.total, totals["total"]
        )
    cart_empty(cart=cart)
    checkout.order = order
    checkout.expires_at = None
    if gateway is not None and gateway.pays_at_checkout:
        checkout.status = CheckoutStatus.AWAITING_PAYMENT
        minutes = config["checkout"]["unpaid_order_hold_minutes"]
        checkout.payment_due_at = now + timedelta(minutes=minutes)
    else:
        _completed(checkout, order, gateway, config=config, now=now)
    return order


def _completed(
    checkout: Checkout,
    order: Order,
    gateway: Gateway | None,
    *,
    config: dict,
    now: datetime,
    paid: bool = False,
) -> None:
    checkout.status = CheckoutStatus.COMPLETED
    checkout.completed_at = now
    checkout.payment_error = {}
    hold = None if paid or gateway is None else gateway.unpaid_hold(config)
    checkout.payment_due_at = now + hold if hold else None
    send_order_emails(checkout=checkout, order=order, config=config)


def send_order_emails(*, checkout: Checkout, order: Order, config: dict) -> None:
    """The shopper's confirmation and the store's new-order notice (store.emails: its
    templates, recorded, sent by Celery on commit)."""
    email_services.order_placed_emails(order_id=order.pk, payment_due_at=checkout.payment_due_at)


def _card(gateway: Gateway | None, payment_data) -> Card | None:
    if gateway is None or not gateway.pays_at_checkout:
        return None
    return gateway.clean_data(payment_data)


def checkout_complete(
    *,
    checkout_id: int,
    token: str | None,
    user=None,
    payment_method: str | None = None,
    payment_data=None,
    expected_total: Decimal | None = None,
    address: str = "",
) -> Checkout:
    """Place the checkout's order and take its payment (see the module's description).

    Answers the checkout, completed (or awaiting an offline payment); a declined card is
    402 `payment_declined` with the order kept (complete again). A completed checkout
    answers again, unchanged."""
    config = store_settings.get_all()
    user = logged_in(user)
    now = timezone.now()
    changed = None
    with transaction.atomic():
        cart = cart_for_update(token=token, user=user, create=False)
        checkout = checkout_locked(checkout_id, cart, user)
        if checkout.status == CheckoutStatus.COMPLETED:
            if checkout.order_id is None:
                raise Conflict(
                    "This checkout's order was deleted by the store.", code="checkout_order_deleted"
                )
            return checkout
        if checkout.status == CheckoutStatus.CANCELLED:
            raise Conflict(
                "This checkout was cancelled (its order went unpaid, or another checkout of "
                "the cart replaced it): start a new one.",
                code="checkout_cancelled",
            )
        if checkout.status in EDITABLE:
            cart = cart_of(checkout, cart)
            if user is not None and checkout.user_id is None:
                checkout.user = user
            seen_from(checkout, address)
            check_login(user, config)
            state = holds_refresh(checkout, cart, config, now)
            check_cart(state)
            if state.notices:
                # What pricing removed stays removed (as reading the cart would do), the holds
                # follow; the shopper reviews the cart before completing again.
                changed = Conflict(
                    "Your cart changed: "
                    + " ".join(notice["message"] for notice in state.notices)
                    + " Review it and complete again.",
                    code="cart_changed",
                )
            else:
                if payment_method:
                    checkout.payment_method = payment_method
                card, gateway = _place_checked(
                    checkout=checkout,
                    cart=cart,
                    state=state,
                    payment_data=payment_data,
                    expected_total=expected_total,
                    config=config,
                    now=now,
                )
        else:  # awaiting payment: pay the placed order (another card, or another method)
            if payment_method:
                checkout.payment_method = payment_method
            gateway = payment_services.gateway_get(
                method_id=checkout.payment_method, config=config, **_order_limits(checkout, config)
            )
            card = _card(gateway, payment_data)
            if not gateway.pays_at_checkout:
                _switch_offline(checkout, gateway, config=config, now=now)
        checkout.save()
        if changed is None and checkout.status == CheckoutStatus.COMPLETED:
            return checkout
    if changed is not None:
        raise changed
    return _pay_by_card(checkout_id=checkout.pk, gateway=gateway, card=card, config=config)


def _place_checked(
    *,
    checkout: Checkout,
    cart: Cart,
    state: CartState,
    payment_data,
    expected_total: Decimal | None,
    config: dict,
    now: datetime,
) -> tuple[Card | None, Gateway | None]:
    """Every check of complete, then the order; answers the card to charge and its gateway."""
    check_fields(checkout, state, config)
    check_shipping(state)
    gateway = check_payment(checkout, state, config)
    if expected_total is not None and money(expected_total) != state.totals["total"]:
        raise Conflict(
            f"The total is now {state.totals['total']} (you expected "
            f"{money(expected_total)}): review the cart and complete again.",
            code="total_changed",
        )
    card = _card(gateway, payment_data)
    _place(
        checkout=checkout,
        cart=cart,
        state=state,
        gateway=gateway,
        config=config,
        now=now,
    )
    return card, gateway


def _switch_offline(checkout: Checkout, gateway: Gateway, *, config: dict, now: datetime) -> None:
    """An order whose card payment failed is to be paid offline after all."""
    order = _payable_order(checkout)
    order_services.order_update(
        order_id=order.pk,
        fields={"payment_method": gateway.id, "payment_method_title": gateway.title(config)},
        actor=checkout.user,
        source=CHECKOUT_SOURCE,
    )
    order_services.order_status_set(
        order_id=order.pk,
        status=gateway.placed_status,
        note=f"To be paid by {gateway.title(config)}.",
        actor=checkout.user,
        source=CHECKOUT_SOURCE,
    )
    order.refresh_from_db()
    _completed(checkout, order, gateway, config=config, now=now)


def _order_limits(checkout: Checkout, config: dict) -> dict:
    """The placed order's country and total, as the gateways' limits read a cart (its
    shipping country, else the store's; its total)."""
    order = checkout.order
    if order is None:
        return {}
    address = order.shipping_address or order.billing_address or {}
    country = address.get("country") or config["general"]["store_country"]
    return {"country": country, "total": order.total}


def _payable_order(checkout: Checkout) -> Order:
    order = (
        Order.objects.select_for_update().filter(pk=checkout.order_id).first()
        if checkout.order_id
        else None
    )
    if order is None:
        raise Conflict("This checkout's order was deleted.", code="order_not_payable")
    if order.status != OrderStatus.PENDING:
        raise Conflict(
            f"Order {order.order_number} is {order.status} and takes no payment now.",
            code="order_not_payable",
        )
    return order


def _pay_by_card(*, checkout_id: int, gateway: Gateway, card: Card, config: dict) -> Checkout:
    charge: Charge | None = None
    try:
        with transaction.atomic():
            checkout = Checkout.objects.select_for_update().get(pk=checkout_id)
            if checkout.status == CheckoutStatus.COMPLETED:  # a parallel complete paid it
                return checkout
            if checkout.status != CheckoutStatus.AWAITING_PAYMENT:
                raise Conflict(
                    f"This checkout is {checkout.status} and takes no payment.",
                    code="checkout_cancelled",
                )
            order = _payable_order(checkout)
            now = timezone.now()
            if order.payment_status == PaymentStatus.PAID:  # recorded meanwhile (staff)
                _completed(checkout, order, gateway, config=config, now=now, paid=True)
                checkout.save()
                return checkout
            due = order.total - (order.amount_paid - order.amount_refunded)
            attempt = checkout.payment_attempts + 1
            charge = gateway.provider.charge(
                amount=due,
                currency=order.currency,
                card=card,
                reference=order.order_number,
                description=f"{config['general']['store_name']} order {order.order_number}",
                idempotency_key=f"{checkout.reference}:payment:{attempt}",
            )
            checkout.payment_attempts = attempt
            order_services.payment_create(
                order_id=order.pk,
                fields={
                    "kind": PaymentKind.PAYMENT,
                    "status": PaymentRecordStatus.COMPLETED
                    if charge.approved
                    else PaymentRecordStatus.FAILED,
                    "amount": due,
                    "method": gateway.id,
                    "transaction_id": charge.transaction_id,
                    "note": f"{charge.brand} ending {charge.last4}"
                    + ("" if charge.approved else f": {charge.decline_code}"),
                },
                actor=checkout.user,
                source=CHECKOUT_SOURCE,
            )
            if charge.approved:
                order_services.order_status_set(
                    order_id=order.pk,
                    status=OrderStatus.PROCESSING,
                    note="Paid by card.",
                    actor=checkout.user,
                    source=CHECKOUT_SOURCE,
                )
                _completed(checkout, order, gateway, config=config, now=now, paid=True)
            else:
                checkout.payment_error = {
                    "code": charge.decline_code,
                    "message": charge.message,
                    "at": iso(now),
                }
            checkout.save()
    except Exception:
        if charge is not None and charge.approved:
            payment_services.card_refund(
                gateway=gateway, transaction_id=charge.transaction_id, amount=charge.amount
            )
        raise
    if not charge.approved:
        due_at = checkout.payment_due_at
        raise PaymentDeclined(
            f"{charge.message.rstrip('.')} ({charge.decline_code}). Order {order.order_number} "
            "is kept "
            + (f"until {due_at:%Y-%m-%d %H:%M} UTC" if due_at else "for now")
            + ": complete again with another card, or with another payment method.",
            errors={"payment_data": [f"{charge.decline_code}: {charge.message}"]},
        )
    return checkout
