"""The B2B module's store hook, listed in settings.STORE_HOOKS (the store never imports the
theme): `ec_cart_item_price`, a group member's prices less the group's discount. It reads the
discounts from the cache (no query when warm) and does nothing while the module is off."""

from __future__ import annotations

import contextlib
from decimal import Decimal

from theme.modules import selectors as kernel
from theme.modules.b2b import selectors

CENT = Decimal("0.01")


def group_price(price: Decimal, item, cart) -> Decimal:
    """A group member's price: less the group's percent off (the b2b module)."""
    user_id = getattr(cart, "user_id", None)
    if user_id is None or not kernel.module_active("b2b"):
        return price
    percent = getattr(cart, "_theme_group_percent", None)
    if percent is None:
        percent = selectors.group_discount(user_id)
        with contextlib.suppress(AttributeError):  # a dict in some hook tests
            cart._theme_group_percent = percent
    if not percent:
        return price
    return (price * (100 - percent) / 100).quantize(CENT)
