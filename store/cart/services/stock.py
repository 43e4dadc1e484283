"""What the catalog's stock allows in a cart (read from the product's or variant's fields,
which the inventory keeps up to date). The cart only checks; the checkout takes the stock."""

from __future__ import annotations

from store.catalog.choices import StockStatus


def stock_limit(product, variant=None) -> int | None:
    """The most units a cart may hold, or None for no limit.

    A tracked item without backorders is limited to its stock; an untracked item marked out of
    stock cannot be bought (0); anything else (untracked, or backorders allowed) is unlimited.
    A variant's own fields count for a variable product.
    """
    source = variant if variant is not None else product
    if source.track_inventory:
        if source.allow_backorders:
            return None
        return max(source.stock_quantity, 0)
    if source.stock_status == StockStatus.OUT_OF_STOCK:
        return 0
    return None
