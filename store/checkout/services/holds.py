"""What an open checkout holds: the stock of its cart's lines and one use of each coupon.

Stock (on the inventory ledger, the only writer of stock): a hold is a set of movements
like an order's, with reason `checkout_hold` (taking) and `checkout_hold_released` (giving
back), referenced `cart:<cart id>` with the cart line as `reference_line`, and idempotency
keys `checkout:<checkout id>:<revision>:<take|back>:<line>:<level>` (the revision counts the
checkout's stock changes under its row lock, so no change can be posted twice). What a cart
holds is the negated sum of its movements per line and level, read from the ledger. Items
that track their stock and allow no backorders are held; others cannot run out.

The reference is the cart rather than the checkout so that the cart, which checks its
quantities against the catalog's stock, can count the units held for it as its own without
knowing checkouts (store.cart.services.stock).

Coupons: `coupon_uses_reserve` under the checkout's reference (`checkout:<id>`), for the same
time, with the shopper's account and e-mail address (per-customer limits).

Lock order, always: cart, checkout, (order,) coupons, products (pk order), stock levels.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from store.cart.models import Cart, CartItem
from store.cart.services.session import cart_stock_held_mark
from store.cart.services.stock import HOLD_REFERENCE_TYPE
from store.checkout.models import Checkout
from store.coupons import services as coupon_services
from store.coupons.selectors import Customer
from store.inventory import selectors as inventory_selectors
from store.inventory import services as inventory
from store.inventory.choices import MovementReason


def _reference(checkout: Checkout, cart_id: int) -> inventory.Reference:
    return inventory.Reference(
        type=HOLD_REFERENCE_TYPE, id=str(cart_id), note=f"Checkout {checkout.pk}"
    )


def _key_prefix(checkout: Checkout) -> str:
    checkout.hold_revision += 1
    Checkout.objects.filter(pk=checkout.pk).update(hold_revision=checkout.hold_revision)
    return f"checkout:{checkout.pk}:{checkout.hold_revision}"


def _held_items(cart_id: int) -> set[int]:
    held = inventory_selectors.held_per_item(
        reference_type=HOLD_REFERENCE_TYPE, reference_id=cart_id
    )
    return {product_id for product_id, _variant_id in held}


def wanted(items: list[CartItem]) -> dict[int, CartItem]:
    """The lines whose stock is held: tracked items that allow no backorders."""
    out = {}
    for item in items:
        source = item.variant if item.variant_id else item.product
        if source.track_inventory and not source.allow_backorders:
            out[item.pk] = item
    return out


def stock_hold(*, checkout: Checkout, cart: Cart, items: list[CartItem]) -> None:
    """Make the stock held for `cart` match its lines now: give back what is held beyond
    them, take what is missing, atomically with the check (InsufficientStock, 409, refuses
    and the caller's transaction changes nothing). `items` are the cart's lines."""
    if checkout.hold_cart_id is not None and checkout.hold_cart_id != cart.pk:
        stock_release(checkout=checkout)
    want = wanted(items)
    held = {
        line: sum(levels.values())
        for line, levels in inventory.held_by(
            reference_type=HOLD_REFERENCE_TYPE, reference_id=cart.pk
        ).items()
    }
    # Every product of the cart is locked now (not only the held ones), so that placing the
    # order later in this transaction (items that allow backorders too) locks nothing new.
    inventory.stock_lock(product_ids={item.product_id for item in items} | _held_items(cart.pk))
    keep = {
        line: min(units, want[line].quantity if line in want else 0) for line, units in held.items()
    }
    needs = [
        inventory.Need(
            line=line,
            product_id=item.product_id,
            variant_id=item.variant_id,
            quantity=item.quantity - keep.get(line, 0),
            label=(item.variant.title if item.variant_id and item.variant.title else "")
            or item.product.title,
            sku=(item.variant.sku if item.variant_id else "") or item.product.sku,
        )
        for line, item in want.items()
        if item.quantity > keep.get(line, 0)
    ]
    excess = any(units > keep.get(line, 0) for line, units in held.items())
    if needs or excess:
        prefix = _key_prefix(checkout)
        reference = _reference(checkout, cart.pk)
        if excess:
            inventory.stock_release(
                reference=reference,
                keep=keep,
                reason=MovementReason.CHECKOUT_HOLD_RELEASED,
                key_prefix=f"{prefix}:back",
            )
        if needs:
            keys = {line: item.key for line, item in want.items()}
            inventory.stock_take(
                needs=needs,
                reason=MovementReason.CHECKOUT_HOLD,
                reference=reference,
                key_prefix=f"{prefix}:take",
                param=lambda need: f"items.{keys[need.line]}.quantity",
            )
    checkout.hold_cart_id = cart.pk if want else None
    cart_stock_held_mark(cart=cart, held=bool(want))


def stock_release(*, checkout: Checkout, cart: Cart | None = None) -> int:
    """Give back all the stock held for the checkout's cart (movements); answers how many."""
    cart_id = checkout.hold_cart_id
    if cart_id is None:
        return 0
    count = 0
    held = inventory.held_by(reference_type=HOLD_REFERENCE_TYPE, reference_id=cart_id)
    if held:
        count = len(
            inventory.stock_release(
                reference=_reference(checkout, cart_id),
                keep={},
                reason=MovementReason.CHECKOUT_HOLD_RELEASED,
                key_prefix=f"{_key_prefix(checkout)}:back",
            )
        )
    checkout.hold_cart_id = None
    if cart is None or cart.pk != cart_id:
        cart = Cart.objects.filter(pk=cart_id).first()
    if cart is not None:
        cart_stock_held_mark(cart=cart, held=False)
    return count


def coupons_hold(*, checkout: Checkout, codes: list[str], minutes: int, now: datetime) -> None:
    """Hold one use of each coupon for the checkout (and give back those no longer applied);
    a coupon used up, or past its per-customer limit, refuses with its own code."""
    coupon_services.coupon_uses_reserve(
        codes=codes,
        order_reference=checkout.reference,
        customer=customer_of(checkout),
        hold_minutes=minutes,
        now=now,
    )


def customer_of(checkout: Checkout) -> Customer:
    """Who uses the coupons (per-customer limits): the account and the checkout's e-mail."""
    return Customer.of(checkout.user, checkout.email or None)


def hold_until(*, minutes: int, now: datetime | None = None) -> datetime:
    return (now or timezone.now()) + timedelta(minutes=minutes)
