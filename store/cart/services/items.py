"""Cart lines: add, change the quantity, remove, clear.

Rules (spec: Cart): quantities below 1 become 1; the same product, variant and options make
one line (quantities add up); a variable product needs one of its enabled variants; an item
whose stock is tracked cannot go past its stock unless backorders are allowed. Limits (store
settings `cart`): `max_quantity` units of one line, `max_lines` lines. Every refusal changes
nothing.
"""

from __future__ import annotations

import hashlib
import json

from django.db import transaction

from store.cart.models import Cart, CartItem
from store.cart.services.lines import cart_lines, upsert_line
from store.cart.services.session import cart_for_update, cart_lock_touch, touch
from store.cart.services.stock import held_units, stock_limit
from store.catalog.choices import ProductStatus, ProductType
from store.catalog.models import Product, Variant
from store.common.errors import not_found, rule_broken
from store.settings import selectors as store_settings


def item_key(product_id: int, variant_id: int | None, options: dict) -> str:
    """The line's token: the same product, variant and options always give the same one."""
    canonical = json.dumps(
        [product_id, variant_id or 0, options], sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def clamp_quantity(quantity: int | None) -> int:
    return max(1, quantity if quantity is not None else 1)


def _title(product: Product, variant: Variant | None) -> str:
    return (variant.title if variant is not None and variant.title else None) or product.title


def check_quantity(
    product: Product, variant: Variant | None, quantity: int, *, held: int = 0
) -> None:
    """Refuse `quantity` units of one line when the stock or the per-item limit is passed
    (`held`: units of the item already held for this cart by its checkout)."""
    title = _title(product, variant)
    limit = stock_limit(product, variant, held=held)
    if limit == 0:
        raise rule_broken(f"{title} is out of stock.", code="out_of_stock")
    if limit is not None and quantity > limit:
        raise rule_broken(
            f"Only {limit} of {title} in stock; the cart would hold {quantity}.",
            code="insufficient_stock",
        )
    most = store_settings.get_value("cart", "max_quantity")
    if quantity > most:
        raise rule_broken(
            f"At most {most} units of one item per cart; the cart would hold {quantity}.",
            code="cart_item_quantity_limit",
        )


def _check_line(item: CartItem, product_id: int, variant_id: int | None) -> None:
    """Refuse the line just written when its product (variant) cannot be bought, read from
    the line's joined product and variant (the answers of a product and variant lookup)."""
    product = getattr(item, "product", None) if item is not None else None
    if product is None or product.pk != product_id or product.status != ProductStatus.ACTIVE:
        raise not_found("product", product_id)
    variant = item.variant
    if product.type == ProductType.VARIABLE:
        if variant_id is None:
            raise rule_broken(
                f"{product.title} comes in variants: send the variant_id of the one you want.",
                code="variant_required",
            )
        if variant is None or variant.product_id != product.pk or not variant.enabled:
            raise not_found("variant", variant_id)
    elif variant_id is not None:
        raise rule_broken(
            f"{product.title} has no variants: leave variant_id out.", code="not_variable_product"
        )
    price = variant.price if variant is not None else product.price
    if price is None:
        raise rule_broken(f"{product.title} has no price yet.", code="product_not_purchasable")


@transaction.atomic
def cart_item_add(
    *,
    token: str | None,
    user=None,
    product_id: int,
    variant_id: int | None = None,
    quantity: int | None = 1,
    options: dict | None = None,
) -> Cart:
    """Add `quantity` of a product (variant, options) to the request's cart, made if needed.

    The hot path of the shop, in at most three queries for a guest: the cart is locked and
    touched by one UPDATE, which on PostgreSQL also upserts the line (quantities add up; on
    another database, or for a cart made here, the upsert is a statement of its own), and the
    cart's lines are read once with their products and variants: that read both checks the
    item just written (active, purchasable, within stock and limits) and feeds the pricing
    (the view passes `cart.added_lines` and `cart.no_coupons` to `cart_state`). The pricing
    reads the cart's coupons only when the UPDATE found some. A refusal raises, and the
    transaction takes every write back.
    """
    options = options or {}
    quantity = clamp_quantity(quantity)
    key = item_key(product_id, variant_id, options)
    line = {
        "key": key,
        "product_id": product_id,
        "variant_id": variant_id,
        "options": options,
        "quantity": quantity,
    }
    cart = cart_lock_touch(token=token, user=user, line=line)  # and the upsert, where it can
    total = getattr(cart, "line_quantity", None)
    if total is None:
        total = upsert_line(cart=cart, **line)
    lines = cart_lines(cart)
    item = next((line for line in lines if line.key == key), None)
    _check_line(item, product_id, variant_id)
    held = held_units(cart).get((product_id, variant_id), 0)
    check_quantity(item.product, item.variant, total, held=held)
    if total == quantity:  # a new line
        most = store_settings.get_value("cart", "max_lines")
        if len(lines) > most:
            raise rule_broken(f"A cart holds at most {most} different items.", code="cart_full")
    cart.added_lines = lines
    return cart


def _item(cart: Cart | None, item_id: str) -> CartItem:
    item = (
        CartItem.objects.select_related("product", "variant").filter(cart=cart, key=item_id).first()
        if cart is not None
        else None
    )
    if item is None:
        raise not_found("cart_item", item_id)
    return item


@transaction.atomic
def cart_item_update(*, token: str | None, user=None, item_id: str, quantity: int | None) -> Cart:
    """Set a line's quantity (below 1 becomes 1)."""
    cart = cart_for_update(token=token, user=user, create=False)
    item = _item(cart, item_id)
    quantity = clamp_quantity(quantity)
    if quantity > item.quantity:  # lowering a quantity is always allowed
        held = held_units(cart).get((item.product_id, item.variant_id), 0)
        check_quantity(item.product, item.variant, quantity, held=held)
    item.quantity = quantity
    item.save(update_fields=["quantity", "updated_at"])
    touch(cart)
    return cart


@transaction.atomic
def cart_item_remove(*, token: str | None, user=None, item_id: str) -> Cart:
    cart = cart_for_update(token=token, user=user, create=False)
    _item(cart, item_id).delete()
    touch(cart)
    return cart


@transaction.atomic
def cart_clear(*, token: str | None, user=None) -> Cart | None:
    """Empty the cart: its lines and its coupons go; the shipping address stays."""
    cart = cart_for_update(token=token, user=user, create=False)
    if cart is None:
        return None
    return cart_empty(cart=cart)


def cart_empty(*, cart: Cart) -> Cart:
    """Remove a locked cart's lines and coupons (clear; the checkout, once the order is
    placed)."""
    cart.items.all().delete()
    cart.applied_coupons.all().delete()
    touch(cart)
    return cart
