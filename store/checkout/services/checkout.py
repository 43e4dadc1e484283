"""Checkout use cases, one place for each rule: start a checkout from the cart, update it,
validate it, complete it (place the order and take the payment); and the beat's two jobs: the
end of a hold, and the cancellation of an order left unpaid.

Complete runs in two steps:

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
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import normalize_email
from common.email import send_templated_email
from common.errors import Conflict, ServiceError
from store.cart.models import Cart
from store.cart.services.items import cart_empty
from store.cart.services.pricing import CartState, cart_state, title_of
from store.cart.services.session import cart_find, cart_for_update
from store.cart.services.shipping import cart_destination_set, cart_method_choose
from store.catalog.services.common import Problems
from store.checkout.models import EDITABLE, Checkout, CheckoutStatus
from store.checkout.services import holds
from store.common.errors import not_found, rule_broken
from store.common.locations import clean_postcode, clean_region, country_valid
from store.common.money import from_cents, money
from store.coupons import services as coupon_services
from store.customers.models import Customer
from store.customers.services import customer_for_email, customer_for_user
from store.inventory import services as inventory
from store.orders import services as order_services
from store.orders.choices import (
    OrderSource,
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
from store.shipping.models import MethodType

logger = logging.getLogger(__name__)

ADDRESS_FIELDS = (
    "first_name",
    "last_name",
    "company",
    "address_1",
    "address_2",
    "city",
    "state",
    "postcode",
    "country",
    "email",
    "phone",
)
REQUIRED_ADDRESS = ("first_name", "last_name", "address_1", "city", "postcode", "country")
# Countries without postcodes (UPU): a postcode is not required there.
NO_POSTCODE = frozenset(
    "AE AG AO AW BF BI BJ BO BS BW BZ CD CF CG CI CK CM DJ DM ER FJ GA GD GH GM GQ GY HK "
    "JM KI KM KN KP LC ML MO MR MS MW NR NU QA RW SB SC SL SR ST SY TD TF TG TK TL TO TT TV "
    "TZ UG VU YE ZW".split()
)
CHECKOUT_SOURCE = OrderSource.CHECKOUT


def _user(user):
    return user if user is not None and getattr(user, "is_authenticated", False) else None


# --- Finding a checkout --------------------------------------------------------------------------


def _allowed(checkout: Checkout, cart: Cart | None, user) -> bool:
    """A checkout belongs to its cart's session, and to its logged-in shopper."""
    if cart is not None and checkout.cart_id == cart.pk:
        return True
    return user is not None and checkout.user_id is not None and checkout.user_id == user.pk


def checkout_find(*, checkout_id: int, token: str | None, user=None) -> Checkout:
    """The request's checkout (no lock); 404 `checkout_not_found` for anyone else's."""
    user = _user(user)
    cart = cart_find(token=token, user=user)
    checkout = Checkout.objects.select_related("order").filter(pk=checkout_id).first()
    if checkout is None or not _allowed(checkout, cart, user):
        raise not_found("checkout", checkout_id)
    return checkout


def checkout_current(*, token: str | None, user=None) -> Checkout:
    """The open (or expired) checkout of the request's cart; 404 `checkout_not_found`."""
    cart = cart_find(token=token, user=_user(user))
    checkout = (
        Checkout.objects.filter(cart=cart, status__in=EDITABLE).first() if cart else None
    )
    if checkout is None:
        raise not_found("checkout")
    return checkout


def _locked(checkout_id: int, cart: Cart | None, user) -> Checkout:
    checkout = Checkout.objects.select_for_update().filter(pk=checkout_id).first()
    if checkout is None or not _allowed(checkout, cart, user):
        raise not_found("checkout", checkout_id)
    return checkout


# --- Fields ----------------------------------------------------------------------------------------


def clean_address(value: dict | None, name: str, problems: Problems) -> dict:
    """An address as stored (every key, trimmed): the country an ISO 3166-1 code, the state
    its ISO 3166-2 subdivision (`I` or `GR-I`), the postcode checked; each problem named."""
    value = value or {}
    out = {key: str(value.get(key) or "").strip() for key in ADDRESS_FIELDS}
    out["country"] = out["country"].upper()
    out["email"] = normalize_email(out["email"])
    if out["country"] and not country_valid(out["country"]):
        problems.add(f"{name}.country", f"Unknown country code {out['country']!r}.")
    elif out["country"]:
        try:
            out["state"] = clean_region(out["country"], out["state"])
        except ValueError as exc:
            problems.add(f"{name}.state", str(exc))
    elif out["state"]:
        problems.add(f"{name}.country", "Give the country of the state.")
    try:
        out["postcode"] = clean_postcode(out["postcode"])
    except ValueError as exc:
        problems.add(f"{name}.postcode", str(exc))
    return out


def shipping_address_of(checkout: Checkout) -> dict:
    """Where the order ships: the shipping address, else the billing address."""
    return checkout.shipping_address or checkout.billing_address or {}


def _apply(checkout: Checkout, cart: Cart, fields: dict, config: dict) -> None:
    """Set the fields sent (each checked first; nothing is saved when one is refused). The
    cart's shipping destination and method follow the checkout's."""
    problems = Problems()
    billing = shipping = None
    if "billing_address" in fields:
        billing = clean_address(fields["billing_address"], "billing_address", problems)
    if "shipping_address" in fields and fields["shipping_address"]:
        shipping = clean_address(fields["shipping_address"], "shipping_address", problems)
    problems.raise_if_any()
    if fields.get("payment_method"):
        payment_services.gateway_get(method_id=fields["payment_method"], config=config)
    if "email" in fields:
        checkout.email = normalize_email(fields["email"] or "")
    if billing is not None:
        checkout.billing_address = billing
    if "shipping_address" in fields:
        checkout.shipping_address = shipping or {}
    if "payment_method" in fields:
        checkout.payment_method = fields["payment_method"] or ""
    if "customer_note" in fields:
        checkout.customer_note = fields["customer_note"] or ""
    destination = shipping_address_of(checkout)
    if destination.get("country"):
        wanted = {
            "shipping_country": destination["country"],
            "shipping_region": destination.get("state", ""),
            "shipping_postcode": destination.get("postcode", ""),
        }
        if any(getattr(cart, key) != value for key, value in wanted.items()):
            cart_destination_set(cart=cart, cleaned=wanted)
    if fields.get("shipping_method") is not None:
        cart_method_choose(cart=cart, method_id=fields["shipping_method"])


# --- Checks --------------------------------------------------------------------------------------


def needs_payment(state: CartState) -> bool:
    return state.totals["total"] > 0


def needs_shipping_address(state: CartState) -> bool:
    return bool(state.items) and not (
        state.method is not None and state.method.method.type == MethodType.LOCAL_PICKUP
    )


def _required(address: dict, name: str, problems: Problems, *, phone: bool = False) -> None:
    for key in REQUIRED_ADDRESS:
        if key == "postcode" and address.get("country") in NO_POSTCODE:
            continue
        if not address.get(key):
            problems.add(f"{name}.{key}", "Required.")
    if phone and not address.get("phone"):
        problems.add(f"{name}.phone", "Required.")


def check_fields(checkout: Checkout, state: CartState, config: dict) -> None:
    """What the shopper still has to fill in (400 `checkout_incomplete`, naming each)."""
    problems = Problems()
    if not checkout.email:
        problems.add("email", "An e-mail address is required for the order.")
    _required(
        checkout.billing_address,
        "billing_address",
        problems,
        phone=config["checkout"]["require_phone"],
    )
    if checkout.shipping_address and needs_shipping_address(state):
        _required(checkout.shipping_address, "shipping_address", problems)
    if needs_payment(state) and not checkout.payment_method:
        problems.add("payment_method", "Choose a payment method (GET /checkout/payment-methods).")
    if problems.errors:
        problems.code = "checkout_incomplete"
    problems.raise_if_any()


def check_cart(state: CartState) -> None:
    if not state.items:
        raise rule_broken("Your cart is empty: add products first.", code="cart_empty")


def check_shipping(state: CartState) -> None:
    if state.items and state.method is None:
        where = state.location.country + (
            f" {state.location.postcode}" if state.location.postcode else ""
        )
        raise rule_broken(
            f"No shipping method delivers this cart to {where}.", code="no_shipping_method"
        )


def check_payment(checkout: Checkout, state: CartState, config: dict) -> Gateway | None:
    """The chosen gateway (None when there is nothing to pay)."""
    if not needs_payment(state) or not checkout.payment_method:
        return None
    return payment_services.gateway_get(method_id=checkout.payment_method, config=config)


def check_login(user, config: dict) -> None:
    if user is None and not config["checkout"]["guest_checkout"]:
        raise rule_broken(
            "This store needs an account to check out: log in (POST /checkout/login) or "
            "create one (POST /checkout/create-account).",
            code="login_required",
        )


@dataclass
class Problem:
    code: str
    message: str
    params: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, exc: ServiceError) -> Problem:
        params = {name: " ".join(messages) for name, messages in (exc.errors or {}).items()}
        return cls(code=exc.code, message=exc.detail, params=params)


# --- Holds ---------------------------------------------------------------------------------------


def _refresh(checkout: Checkout, cart: Cart, config: dict, now: datetime) -> CartState:
    """Price the cart and hold its coupon uses and stock afresh, for `hold_minutes` from now."""
    state = cart_state(cart)
    minutes = config["checkout"]["hold_minutes"]
    codes = [coupon.code for coupon, _terms in state.coupons]
    holds.coupons_hold(checkout=checkout, codes=codes, minutes=minutes, now=now)
    holds.stock_hold(checkout=checkout, cart=cart, items=[p.item for p in state.items])
    checkout.status = CheckoutStatus.OPEN
    checkout.expires_at = now + timedelta(minutes=minutes)
    return state


# --- Start, update, validate ---------------------------------------------------------------------


def _editable(checkout: Checkout) -> None:
    if checkout.status not in EDITABLE:
        raise Conflict(
            f"This checkout is {checkout.status.replace('_', ' ')}: it can no longer change "
            "(complete it again to retry a payment, or start a new one).",
            code="checkout_not_editable",
        )


@transaction.atomic
def checkout_start(*, token: str | None, user=None, fields: dict) -> tuple[Checkout, bool]:
    """Start a checkout from the request's cart, with the fields given; answers (checkout,
    created). A cart has one open checkout: starting again updates it. The cart's stock and
    coupon uses are held from now on (409 `insufficient_stock`, 400 coupon codes when they
    cannot be; nothing changes then)."""
    config = store_settings.get_all()
    user = _user(user)
    check_login(user, config)
    cart = cart_for_update(token=token, user=user, create=False)
    if cart is None or not cart.items.exists():
        raise rule_broken(
            "Your cart is empty: add products before checking out.", code="cart_empty"
        )
    checkout = Checkout.objects.select_for_update().filter(cart=cart, status__in=EDITABLE).first()
    created = checkout is None
    if created:
        checkout = Checkout.objects.create(
            cart=cart, user=user, email=normalize_email(user.email) if user else ""
        )
    elif user is not None and checkout.user_id is None:
        checkout.user = user
    _apply(checkout, cart, fields, config)
    _refresh(checkout, cart, config, timezone.now())
    checkout.save()
    return checkout, created


@transaction.atomic
def checkout_update(*, checkout_id: int, token: str | None, user=None, fields: dict) -> Checkout:
    """Change an open (or expired) checkout's fields; its holds are taken afresh."""
    config = store_settings.get_all()
    user = _user(user)
    cart = cart_for_update(token=token, user=user, create=False)
    checkout = _locked(checkout_id, cart, user)
    _editable(checkout)
    cart = _cart_of(checkout, cart)
    _apply(checkout, cart, fields, config)
    _refresh(checkout, cart, config, timezone.now())
    checkout.save()
    return checkout


def _cart_of(checkout: Checkout, cart: Cart | None) -> Cart:
    if cart is not None and cart.pk == checkout.cart_id:
        return cart
    found = (
        Cart.objects.select_for_update().filter(pk=checkout.cart_id).first()
        if checkout.cart_id
        else None
    )
    if found is None:
        raise rule_broken("This checkout's cart is gone: start a new one.", code="cart_empty")
    return found


@dataclass
class Validation:
    checkout: Checkout
    problems: list[Problem]
    notices: list[dict]

    @property
    def valid(self) -> bool:
        return not self.problems


@transaction.atomic
def checkout_validate(*, checkout_id: int, token: str | None, user=None) -> Validation:
    """Check everything complete would (stock, coupons, addresses, shipping, payment) and
    take the holds afresh where possible; answers every problem found (nothing is refused)."""
    config = store_settings.get_all()
    user = _user(user)
    cart = cart_for_update(token=token, user=user, create=False)
    checkout = _locked(checkout_id, cart, user)
    _editable(checkout)
    cart = _cart_of(checkout, cart)
    now = timezone.now()
    problems: list[Problem] = []
    state = cart_state(cart)
    notices = list(state.notices)
    minutes = config["checkout"]["hold_minutes"]
    codes = [coupon.code for coupon, _terms in state.coupons]
    for hold in (
        lambda: holds.coupons_hold(checkout=checkout, codes=codes, minutes=minutes, now=now),
        lambda: holds.stock_hold(checkout=checkout, cart=cart, items=[p.item for p in state.items]),
    ):
        try:
            with transaction.atomic():
                hold()
        except ServiceError as exc:  # that hold is as it was; the refusal is a problem
            problems.append(Problem.of(exc))
            checkout.refresh_from_db(fields=["hold_cart_id", "hold_revision"])
            cart.refresh_from_db(fields=["stock_held"])
    for check in (
        lambda: check_login(user, config),
        lambda: check_cart(state),
        lambda: check_fields(checkout, state, config),
        lambda: check_shipping(state),
        lambda: check_payment(checkout, state, config),
    ):
        try:
            check()
        except ServiceError as exc:
            problems.append(Problem.of(exc))
    checkout.status = CheckoutStatus.OPEN
    checkout.expires_at = now + timedelta(minutes=minutes)
    checkout.save()
    return Validation(checkout=checkout, problems=problems, notices=notices)


# --- Complete ------------------------------------------------------------------------------------


class PaymentDeclined(ServiceError):
    status_code = 402
    default_code = "payment_declined"


def order_received_url(order: Order, *, base_url: str, config: dict | None = None) -> str:
    """The storefront's page when the settings name one, else the API's order-received URL."""
    config = config or store_settings.get_all()
    page = config["checkout"]["order_received_page"]
    if page:
        return page.format(order_id=order.pk, order_number=order.order_number, key=order.order_key)
    path = reverse("store-order-received", kwargs={"order_id": order.pk})
    return f"{base_url.rstrip('/')}{path}?key={order.order_key}"


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
    base_url: str,
) -> Order:
    """Turn the checkout's holds into an order (the cart and the checkout are locked, the
    holds just taken afresh)."""
    coupon_services.coupon_uses_confirm(order_reference=checkout.reference, now=now)
    customer = _customer(checkout)
    inventory.stock_lock(
        product_ids=holds.held_product_ids(checkout) | {p.item.product_id for p in state.items}
    )
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
        _completed(checkout, order, gateway, config=config, now=now, base_url=base_url)
    return order


def _completed(
    checkout: Checkout,
    order: Order,
    gateway: Gateway | None,
    *,
    config: dict,
    now: datetime,
    base_url: str,
    paid: bool = False,
) -> None:
    checkout.status = CheckoutStatus.COMPLETED
    checkout.completed_at = now
    checkout.payment_error = {}
    hold = None if paid or gateway is None else gateway.unpaid_hold(config)
    checkout.payment_due_at = now + hold if hold else None
    send_order_emails(checkout=checkout, order=order, config=config, base_url=base_url)


def send_order_emails(*, checkout: Checkout, order: Order, config: dict, base_url: str) -> None:
    """The shopper's confirmation and the store's new-order notice (Celery, on commit)."""
    gateway = payment_services.GATEWAYS.get(order.payment_method)
    order = Order.objects.prefetch_related("items").get(pk=order.pk)
    general = config["general"]
    context = {
        "order": order,
        "items": list(order.items.all()),
        "coupons": order.coupon_lines,
        "store_name": general["store_name"],
        "order_received_url": order_received_url(order, base_url=base_url, config=config),
        "payment_title": order.payment_method_title,
        "instructions": gateway.instructions(config, order_number=order.order_number)
        if gateway is not None and order.payment_status != PaymentStatus.PAID
        else "",
        "paid": order.payment_status == PaymentStatus.PAID,
        "payment_due_at": checkout.payment_due_at,
    }
    to = checkout.email or order.billing_address.get("email")
    if to:
        send_templated_email(to=to, template="store_checkout/order_confirmation", context=context)
    if general["store_email"]:
        send_templated_email(
            to=general["store_email"], template="store_checkout/new_order", context=context
        )


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
    base_url: str,
) -> Checkout:
    """Place the checkout's order and take its payment (see the module's description).

    Answers the checkout, completed (or awaiting an offline payment); a declined card is
    402 `payment_declined` with the order kept (complete again). A completed checkout
    answers again, unchanged."""
    config = store_settings.get_all()
    user = _user(user)
    now = timezone.now()
    with transaction.atomic():
        cart = cart_for_update(token=token, user=user, create=False)
        checkout = _locked(checkout_id, cart, user)
        if checkout.status == CheckoutStatus.COMPLETED:
            return checkout
        if checkout.status == CheckoutStatus.CANCELLED:
            raise Conflict(
                "This checkout was cancelled (its order went unpaid, or another checkout of "
                "the cart replaced it): start a new one.",
                code="checkout_cancelled",
            )
        if payment_method:
            checkout.payment_method = payment_method
        if checkout.status in EDITABLE:
            cart = _cart_of(checkout, cart)
            if user is not None and checkout.user_id is None:
                checkout.user = user
            check_login(user, config)
            state = _refresh(checkout, cart, config, now)
            check_cart(state)
            if state.notices:
                raise Conflict(
                    "Your cart changed: "
                    + " ".join(notice["message"] for notice in state.notices)
                    + " Review it and complete again.",
                    code="cart_changed",
                )
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
                base_url=base_url,
            )
        else:  # awaiting payment: pay the placed order (another card, or another method)
            gateway = payment_services.gateway_get(method_id=checkout.payment_method, config=config)
            card = _card(gateway, payment_data)
            if not gateway.pays_at_checkout:
                _switch_offline(checkout, gateway, config=config, now=now, base_url=base_url)
        checkout.save()
        if checkout.status == CheckoutStatus.COMPLETED:
            return checkout
    return _pay_by_card(
        checkout_id=checkout.pk, gateway=gateway, card=card, config=config, base_url=base_url
    )


def _switch_offline(
    checkout: Checkout, gateway: Gateway, *, config: dict, now: datetime, base_url: str
) -> None:
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
    _completed(checkout, order, gateway, config=config, now=now, base_url=base_url)


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


def _pay_by_card(
    *, checkout_id: int, gateway: Gateway, card: Card, config: dict, base_url: str
) -> Checkout:
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
                _completed(
                    checkout, order, gateway, config=config, now=now, base_url=base_url, paid=True
                )
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
                order.refresh_from_db()
                _completed(
                    checkout, order, gateway, config=config, now=now, base_url=base_url, paid=True
                )
            else:
                checkout.payment_error = {
                    "code": charge.decline_code,
                    "message": charge.message,
                    "at": now.isoformat(),
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
            f"{charge.message} ({charge.decline_code}) Order {order.order_number} is kept "
            + (f"until {due_at:%Y-%m-%d %H:%M} UTC" if due_at else "for now")
            + ": complete again with another card, or with another payment method.",
            errors={"payment_data": [f"{charge.decline_code}: {charge.message}"]},
        )
    return checkout


# --- The beat: holds that ran out, orders left unpaid -------------------------------------------

BATCH = 200


def checkout_hold_expire(
    *, checkout_id: int, now: datetime | None = None, force: bool = False
) -> bool:
    """Give back the stock and coupon uses of an open checkout whose hold ran out (`force`:
    at once, staff); it becomes expired (a later write takes them again). Answers whether it
    did; idempotent."""
    now = now or timezone.now()
    cart_id = Checkout.objects.filter(pk=checkout_id).values_list("cart_id", flat=True).first()
    with transaction.atomic():
        if cart_id is not None:  # the lock order: the cart, then the checkout
            Cart.objects.select_for_update().filter(pk=cart_id).first()
        due = {} if force else {"expires_at__lte": now}
        checkout = (
            Checkout.objects.select_for_update(skip_locked=True)
            .filter(pk=checkout_id, status=CheckoutStatus.OPEN, **due)
            .first()
        )
        if checkout is None or checkout.cart_id != cart_id:
            return False
        coupon_services.coupon_uses_release(order_reference=checkout.reference, now=now)
        holds.stock_release(checkout=checkout)
        checkout.status = CheckoutStatus.EXPIRED
        checkout.save()
    return True


def checkout_holds_expire(*, now: datetime | None = None) -> int:
    """Beat: every open checkout whose hold ran out (in batches); answers how many."""
    now = now or timezone.now()
    done = 0
    ids = list(
        Checkout.objects.filter(status=CheckoutStatus.OPEN, expires_at__lte=now)
        .order_by("expires_at")
        .values_list("pk", flat=True)[:BATCH]
    )
    for checkout_id in ids:
        done += checkout_hold_expire(checkout_id=checkout_id, now=now)
    return done


def checkout_cancel_unpaid(
    *, checkout_id: int, now: datetime | None = None, force: bool = False
) -> bool:
    """Cancel the order of a checkout left unpaid past `payment_due_at` (`force`: before, by
    staff; it must still have one). Its stock comes back
    through the orders' release task, its coupon uses through the listener of the orders'
    `order_released`). An order paid meanwhile, or moved on by staff, is left alone. Answers
    whether it cancelled; idempotent."""
    now = now or timezone.now()
    with transaction.atomic():
        due = {"payment_due_at__isnull": False} if force else {"payment_due_at__lte": now}
        checkout = (
            Checkout.objects.select_for_update(skip_locked=True)
            .filter(pk=checkout_id, **due)
            .first()
        )
        if checkout is None:
            return False
        checkout.payment_due_at = None
        order = (
            Order.objects.select_for_update().filter(pk=checkout.order_id).first()
            if checkout.order_id
            else None
        )
        cancelled = False
        if order is None:
            checkout.status = CheckoutStatus.CANCELLED
        elif order.payment_status == PaymentStatus.UNPAID and order.status in (
            OrderStatus.PENDING,
            OrderStatus.ON_HOLD,
        ):
            order_services.order_status_set(
                order_id=order.pk,
                status=OrderStatus.CANCELLED,
                note="Unpaid past its hold: cancelled; stock and coupon uses given back.",
                source=OrderSource.SYSTEM,
            )
            checkout.status = CheckoutStatus.CANCELLED
            cancelled = True
        elif checkout.status == CheckoutStatus.AWAITING_PAYMENT:
            checkout.status = CheckoutStatus.COMPLETED  # paid, or moved on by staff
            checkout.completed_at = now
        checkout.save()
    return cancelled


def checkouts_cancel_unpaid(*, now: datetime | None = None) -> int:
    """Beat: the orders left unpaid past their hold (in batches); answers how many."""
    now = now or timezone.now()
    ids = list(
        Checkout.objects.filter(payment_due_at__lte=now)
        .order_by("payment_due_at")
        .values_list("pk", flat=True)[:BATCH]
    )
    return sum(checkout_cancel_unpaid(checkout_id=pk, now=now) for pk in ids)
