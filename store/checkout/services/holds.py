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

Hoarding: one shopper (a cart session, or a client address; an account with a verified
e-mail address is not limited) holds at most `ShopperLimit.cap` units of an item across its
open checkouts and its orders not yet paid or shipped, checked under the products' locks
before anything more is taken (409 `product_hold_limit`).

Coupons: `coupon_uses_reserve` under the checkout's reference (`checkout:<id>`), for the same
time, with the shopper's account and e-mail address (per-customer limits).

Lock order, always: cart, checkout, (order,) coupons, products (pk order), stock levels.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Q, Sum
from django.utils import timezone

from common.errors import Conflict
from store.cart.models import Cart, CartItem
from store.cart.services.session import cart_stock_held_mark
from store.cart.services.stock import HOLD_REFERENCE_TYPE
from store.catalog.models import Product, Variant
from store.checkout.models import Checkout, CheckoutStatus
from store.coupons import services as coupon_services
from store.coupons.selectors import Customer
from store.inventory import selectors as inventory_selectors
from store.inventory import services as inventory
from store.inventory.choices import MovementReason
from store.inventory.models import StockMovement
from store.orders.choices import OrderStatus, PaymentStatus
from store.orders.services.stock import REFERENCE_TYPE as ORDER_REFERENCE_TYPE

Item = tuple[int, int | None]  # (product id, variant id)

#: Orders that count against a shopper's limit: placed, holding stock, not yet paid in full
#: nor shipped (bank transfers awaiting the money, cards to try again, cash on delivery).
UNPAID = (PaymentStatus.UNPAID, PaymentStatus.PARTIALLY_PAID)
UNSHIPPED = (OrderStatus.PENDING, OrderStatus.ON_HOLD, OrderStatus.PROCESSING)


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


@dataclass(frozen=True)
class ShopperLimit:
    """What one shopper may hold of an item (the `checkout` settings `shopper_hold_percent`
    and `shopper_hold_min_units`): a share of the item's stock, or a number of units when
    that is more. The shopper is the checkout's cart session and its client address."""

    percent: int
    min_units: int
    address: str = ""

    @classmethod
    def of(cls, config: dict, *, address: str) -> ShopperLimit:
        checkout = config["checkout"]
        return cls(checkout["shopper_hold_percent"], checkout["shopper_hold_min_units"], address)

    def cap(self, stock: int) -> int:
        """The units of an item of `stock` units (those the shopper holds included)."""
        return max(max(stock, 0) * self.percent // 100, self.min_units)


def _item_of(item: CartItem) -> Item:
    return (item.product_id, item.variant_id)


def _held_by_shopper(
    limit: ShopperLimit, *, checkout: Checkout, cart: Cart, items: set[Item]
) -> tuple[dict[Item, int], dict[Item, int]]:
    """Units of `items` held now (this cart's, and elsewhere's: the other open checkouts and
    the unpaid orders of the same cart session or client address, a verified account's
    excepted), from the ledger."""
    same = Q(cart_id=cart.pk)
    if limit.address:
        same |= Q(client_address=limit.address)
    holding = Q(status=CheckoutStatus.OPEN, hold_cart_id__isnull=False) | Q(
        order__payment_status__in=UNPAID, order__status__in=UNSHIPPED
    )
    guest = Q(user__isnull=True) | Q(user__email_verified=False)
    carts, orders = {str(cart.pk)}, set()
    for status, cart_id, order_id in (
        Checkout.objects.filter(same, holding, guest)
        .exclude(pk=checkout.pk)
        .values_list("status", "hold_cart_id", "order_id")
    ):
        if status == CheckoutStatus.OPEN:
            carts.add(str(cart_id))
        elif order_id is not None:
            orders.add(str(order_id))
    rows = (
        StockMovement.objects.filter(
            Q(reference_type=HOLD_REFERENCE_TYPE, reference_id__in=carts)
            | Q(reference_type=ORDER_REFERENCE_TYPE, reference_id__in=orders),
            level__isnull=False,
            product_id__in={product_id for product_id, _variant_id in items},
        )
        .values("reference_type", "reference_id", "product_id", "variant_id")
        .annotate(total=Sum("quantity"))
        .order_by()
    )
    own: dict[Item, int] = defaultdict(int)
    elsewhere: dict[Item, int] = defaultdict(int)
    for row in rows:
        item = (row["product_id"], row["variant_id"])
        if item not in items or row["total"] >= 0:
            continue
        mine = (row["reference_type"], row["reference_id"]) == (HOLD_REFERENCE_TYPE, str(cart.pk))
        (own if mine else elsewhere)[item] -= row["total"]
    return own, elsewhere


def _stock_now(items: set[Item]) -> dict[Item, int]:
    """The catalog's stock of each item, read under the products' locks."""
    products = dict(
        Product.objects.filter(pk__in={p for p, v in items if v is None}).values_list(
            "pk", "stock_quantity"
        )
    )
    variants = dict(
        Variant.objects.filter(pk__in={v for _p, v in items if v is not None}).values_list(
            "pk", "stock_quantity"
        )
    )
    return {(p, v): (variants.get(v, 0) if v is not None else products.get(p, 0)) for p, v in items}


def _check_limit(
    limit: ShopperLimit, *, checkout: Checkout, cart: Cart, want: dict[int, CartItem]
) -> None:
    """Refuse (409 `product_hold_limit`, naming each line and item) a hold that takes an item
    past the shopper's limit. Only more than the cart holds now is refused: what was held
    within the limit stays held when the stock or the limit falls meanwhile."""
    wanted: dict[Item, int] = defaultdict(int)
    for item in want.values():
        wanted[_item_of(item)] += item.quantity
    own, elsewhere = _held_by_shopper(limit, checkout=checkout, cart=cart, items=set(wanted))
    stock = _stock_now(set(wanted))
    over: dict[Item, tuple[int, int]] = {}
    for item, units in wanted.items():
        cap = limit.cap(stock[item] + own[item] + elsewhere[item])
        if units > own[item] and units + elsewhere[item] > cap:
            over[item] = (cap, units + elsewhere[item])
    if not over:
        return
    parts, errors = [], {}
    for line in want.values():
        item = _item_of(line)
        if item not in over:
            continue
        cap, total = over[item]
        errors[f"items.{line.key}.quantity"] = [
            f"At most {cap} units of this item per shopper; this cart may hold "
            f"{max(cap - elsewhere[item], 0)}."
        ]
        label = (line.variant.title if line.variant_id and line.variant.title else "") or (
            line.product.title
        )
        text = f"{label} (product {line.product_id}): at most {cap}, {total} asked"
        if elsewhere[item]:
            text += f" ({elsewhere[item]} held by other checkouts or unpaid orders)"
        if text not in parts:
            parts.append(text)
    raise Conflict(
        f"One shopper holds at most {limit.percent}% of an item's stock, or "
        f"{limit.min_units} units when that is more, across open checkouts and unpaid orders "
        "(of this cart session or address): " + "; ".join(parts) + ". Lower the quantity, "
        "pay for an earlier order, or log in with a verified e-mail address.",
        code="product_hold_limit",
        errors=errors,
    )


def stock_hold(
    *, checkout: Checkout, cart: Cart, items: list[CartItem], limit: ShopperLimit | None = None
) -> None:
    """Make the stock held for `cart` match its lines now: give back what is held beyond
    them, take what is missing, atomically with the checks (InsufficientStock, 409, refuses
    and the caller's transaction changes nothing). `items` are the cart's lines. With a
    `limit` (a shopper that is not a verified account), taking an item past it refuses (409
    `product_hold_limit`), checked under the products' locks so that parallel checkouts of
    one shopper cannot pass it together."""
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
    if needs and limit is not None:
        _check_limit(limit, checkout=checkout, cart=cart, want=want)
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
