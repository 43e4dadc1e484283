"""Checkout use cases, one place for each rule: find a checkout, start it from the cart,
update it, validate it. Completing it is store.checkout.services.complete; the beat's jobs
(holds that ran out, orders left unpaid) are store.checkout.services.expiry.

Every write locks the cart, then the checkout (the lock order of the checkout is: cart,
checkout, order, coupons, products, stock levels; store.checkout.services.holds), applies the
fields sent, and takes the holds afresh for `checkout.hold_minutes`; a refusal rolls all of
it back.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.models import normalize_email
from common.errors import Conflict, ServiceError
from store.cart.models import Cart
from store.cart.services.pricing import CartState, cart_state
from store.cart.services.session import cart_find, cart_for_update
from store.cart.services.shipping import cart_destination_set, cart_method_choose
from store.checkout.models import EDITABLE, Checkout, CheckoutStatus
from store.checkout.services import holds
from store.common.accounts import logged_in
from store.common.addresses import (
    REQUIRED,
    REQUIRED_ADDRESS,
    Address,
    address_for_storing,
    api_name,
)
from store.common.errors import invalid_params, not_found, rule_broken
from store.common.problems import Problems
from store.orders.choices import (
    OrderSource,
)
from store.payments import services as payment_services
from store.payments.gateways import Gateway
from store.settings import selectors as store_settings
from store.shipping.models import MethodType
from store.tax import selectors as tax_selectors

logger = logging.getLogger(__name__)

CHECKOUT_SOURCE = OrderSource.CHECKOUT


# --- Finding a checkout --------------------------------------------------------------------------


def _allowed(checkout: Checkout, cart: Cart | None, user) -> bool:
    """A checkout belongs to its cart's session, and to its logged-in shopper."""
    if cart is not None and checkout.cart_id == cart.pk:
        return True
    return user is not None and checkout.user_id is not None and checkout.user_id == user.pk


def checkout_find(*, checkout_id: int, token: str | None, user=None) -> Checkout:
    """The request's checkout (no lock); 404 `checkout_not_found` for anyone else's."""
    user = logged_in(user)
    cart = cart_find(token=token, user=user)
    checkout = Checkout.objects.select_related("order").filter(pk=checkout_id).first()
    if checkout is None or not _allowed(checkout, cart, user):
        raise not_found("checkout", checkout_id)
    return checkout


def checkout_current(*, token: str | None, user=None) -> Checkout:
    """The open (or expired) checkout of the request's cart; 404 `checkout_not_found`."""
    cart = cart_find(token=token, user=logged_in(user))
    checkout = Checkout.objects.filter(cart=cart, status__in=EDITABLE).first() if cart else None
    if checkout is None:
        raise not_found("checkout")
    return checkout


def checkout_locked(checkout_id: int, cart: Cart | None, user) -> Checkout:
    checkout = Checkout.objects.select_for_update().filter(pk=checkout_id).first()
    if checkout is None or not _allowed(checkout, cart, user):
        raise not_found("checkout", checkout_id)
    return checkout


# --- Fields ------------------------------------------------------------------------------------


def shipping_address_of(checkout: Checkout) -> dict:
    """Where the order ships: the shipping address, else the billing address."""
    return checkout.shipping_address or checkout.billing_address or {}


def _apply(checkout: Checkout, cart: Cart, fields: dict, config: dict) -> None:
    """Set the fields sent (each checked first; nothing is saved when one is refused). The
    cart's shipping destination and method follow the checkout's."""
    problems = Problems()
    billing = shipping = None
    if "billing_address" in fields:
        billing = address_for_storing(
            fields["billing_address"], name="billing_address", problems=problems
        )
    if fields.get("shipping_address"):
        shipping = address_for_storing(
            fields["shipping_address"], name="shipping_address", problems=problems
        )
    problems.raise_if_any()
    vat_number = (
        tax_selectors.vat_number_clean(fields["vat_number"]) if "vat_number" in fields else None
    )
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
    if vat_number is not None and vat_number != cart.vat_number:
        cart.vat_number = vat_number  # the cart's pricing applies the reverse charge
        cart.save(update_fields=["vat_number"])
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
    required = (*REQUIRED_ADDRESS, "phone") if phone else REQUIRED_ADDRESS
    for key in Address.of(address).missing(required):
        problems.add(f"{name}.{api_name(key)}", REQUIRED)


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
    """The chosen gateway (None when there is nothing to pay), offered for the cart's country
    and total as the payment-method lists read them (400 `payment_method_unavailable`)."""
    if not needs_payment(state) or not checkout.payment_method:
        return None
    return payment_services.gateway_get(
        method_id=checkout.payment_method, config=config, **payment_services.cart_limits(state)
    )


def _check_chosen(checkout: Checkout, state: CartState, fields: dict, config: dict) -> None:
    """A payment method sent is refused when its limits leave out the cart as it is after the
    other fields (its address) were applied; a refusal rolls the whole request back."""
    if fields.get("payment_method"):
        check_payment(checkout, state, config)


def is_guest(user) -> bool:
    """A guest for the stock limits: no account, or one whose e-mail address is unverified
    (accounts are made at the checkout in one request; a verified address is not)."""
    return user is None or not getattr(user, "email_verified", False)


def check_quantities(state: CartState, config: dict, *, user) -> None:
    """The stock limits, before anything is held: no line above `cart.max_quantity` (a cart
    filled under a higher limit), and a guest's checkout at most
    `checkout.guest_order_max_units` units in all (400 `guest_order_quantity_limit`); `user`
    is the checkout's shopper."""
    most = config["cart"]["max_quantity"]
    over = {
        f"items.{priced.item.key}.quantity": [f"At most {most} units of one item."]
        for priced in state.items
        if priced.item.quantity > most
    }
    if over:
        raise invalid_params(over, code="cart_item_quantity_limit")
    if not is_guest(user):
        return
    units = sum(priced.item.quantity for priced in state.items)
    limit = config["checkout"]["guest_order_max_units"]
    if units > limit:
        raise ServiceError(
            f"A guest order holds at most {limit} units; this cart has {units}. Lower the "
            "quantities, or log in (an account with a verified e-mail address) to order more.",
            code="guest_order_quantity_limit",
            errors={"items": [f"At most {limit} units in all for a guest order."]},
        )


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


def shopper_limit(checkout: Checkout, config: dict, *, user) -> holds.ShopperLimit | None:
    """The hoarding limit of the checkout's shopper (`user`): none for an account with a
    verified e-mail address, as the guest limit."""
    if not is_guest(user):
        return None
    return holds.ShopperLimit.of(config, address=checkout.client_address)


def seen_from(checkout: Checkout, address: str) -> None:
    """Keep the client address of the checkout's latest write (what the limit counts by)."""
    if address:
        checkout.client_address = address[:64]


def holds_refresh(checkout: Checkout, cart: Cart, config: dict, now: datetime) -> CartState:
    """Price the cart and hold its coupon uses and stock afresh, for `hold_minutes` from now
    (the stock limits checked first: a refusal holds nothing)."""
    state = cart_state(cart)
    check_quantities(state, config, user=checkout.user)
    minutes = config["checkout"]["hold_minutes"]
    codes = [coupon.code for coupon, _terms in state.coupons]
    holds.coupons_hold(checkout=checkout, codes=codes, minutes=minutes, now=now)
    holds.stock_hold(
        checkout=checkout,
        cart=cart,
        items=[p.item for p in state.items],
        limit=shopper_limit(checkout, config, user=checkout.user),
    )
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
def checkout_start(
    *, token: str | None, user=None, fields: dict, address: str = ""
) -> tuple[Checkout, bool]:
    """Start a checkout from the request's cart, with the fields given; answers (checkout,
    created). A cart has one open checkout: starting again updates it. The cart's stock and
    coupon uses are held from now on (409 `insufficient_stock`, 409 `product_hold_limit`,
    400 coupon codes when they cannot be; nothing changes then). `address` is the client's
    (the hoarding limit counts by it)."""
    config = store_settings.get_all()
    user = logged_in(user)
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
    seen_from(checkout, address)
    _apply(checkout, cart, fields, config)
    state = holds_refresh(checkout, cart, config, timezone.now())
    _check_chosen(checkout, state, fields, config)
    checkout.save()
    return checkout, created


@transaction.atomic
def checkout_update(
    *, checkout_id: int, token: str | None, user=None, fields: dict, address: str = ""
) -> Checkout:
    """Change an open (or expired) checkout's fields; its holds are taken afresh."""
    config = store_settings.get_all()
    user = logged_in(user)
    cart = cart_for_update(token=token, user=user, create=False)
    checkout = checkout_locked(checkout_id, cart, user)
    _editable(checkout)
    cart = cart_of(checkout, cart)
    if user is not None and checkout.user_id is None:
        checkout.user = user
    seen_from(checkout, address)
    _apply(checkout, cart, fields, config)
    state = holds_refresh(checkout, cart, config, timezone.now())
    _check_chosen(checkout, state, fields, config)
    checkout.save()
    return checkout


def cart_of(checkout: Checkout, cart: Cart | None) -> Cart:
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
def checkout_validate(
    *, checkout_id: int, token: str | None, user=None, address: str = ""
) -> Validation:
    """Check everything complete would (stock, coupons, addresses, shipping, payment) and
    take the holds afresh where possible; answers every problem found (nothing is refused)."""
    config = store_settings.get_all()
    user = logged_in(user)
    cart = cart_for_update(token=token, user=user, create=False)
    checkout = checkout_locked(checkout_id, cart, user)
    _editable(checkout)
    cart = cart_of(checkout, cart)
    seen_from(checkout, address)
    now = timezone.now()
    problems: list[Problem] = []
    state = cart_state(cart)
    notices = list(state.notices)
    minutes = config["checkout"]["hold_minutes"]
    codes = [coupon.code for coupon, _terms in state.coupons]
    limit = shopper_limit(checkout, config, user=checkout.user or user)
    holding = [
        lambda: holds.coupons_hold(checkout=checkout, codes=codes, minutes=minutes, now=now),
        lambda: holds.stock_hold(
            checkout=checkout, cart=cart, items=[p.item for p in state.items], limit=limit
        ),
    ]
    try:
        check_quantities(state, config, user=checkout.user or user)
    except ServiceError as exc:  # past the limits nothing more is held
        problems.append(Problem.of(exc))
        holding = []
    for hold in holding:
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
