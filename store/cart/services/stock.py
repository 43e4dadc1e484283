"""What the catalog's stock allows in a cart (read from the product's or variant's fields,
which the inventory keeps up to date). The cart only checks; the checkout takes the stock.

While the cart's checkout is open, the stock of its lines is held for it in the inventory
ledger (movements referenced `cart:<id>`, store.checkout): those units are out of the
catalog's `stock_quantity` for everyone else, but still this cart's to keep or raise, so they
are added back to its own limits.
"""

from __future__ import annotations

from store.catalog.choices import StockStatus
from store.inventory import selectors as inventory

#: The ledger reference of the stock held for a cart by its open checkout.
HOLD_REFERENCE_TYPE = "cart"


def stock_limit(product, variant=None, *, held: int = 0) -> int | None:
    """The most units a cart may hold, or None for no limit.

    A tracked item without backorders is limited to its stock (plus `held`: the units held
    for this very cart); an untracked item marked out of stock cannot be bought (0); anything
    else (untracked, or backorders allowed) is unlimited. A variant's own fields count for a
    variable product.
    """
    source = variant if variant is not None else product
    if source.track_inventory:
        if source.allow_backorders:
            return None
        return max(source.stock_quantity + held, 0)
    if source.stock_status == StockStatus.OUT_OF_STOCK:
        return 0
    return None


def held_units(cart) -> dict[tuple[int, int | None], int]:
    """Units held for `cart` per item ((product id, variant id)); one query, none when the
    cart holds nothing."""
    if cart is None or not cart.stock_held:
        return {}
    return inventory.held_per_item(reference_type=HOLD_REFERENCE_TYPE, reference_id=cart.pk)
