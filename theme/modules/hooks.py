"""The modules' store hooks, listed in settings.STORE_HOOKS (the store never imports the theme):

- `ec_cart_calculated_totals`: the active promotion rules cut the cart's total (promotions);
- `ec_cart_item_price`: a B2B group member's prices less the group's discount (b2b).

Both read their rules from the cache (no query when warm) and do nothing while their module
is off."""

from __future__ import annotations

import contextlib
from decimal import Decimal

from theme.modules import selectors

CENT = Decimal("0.01")
#: The attribute of the priced Cart where the promotions applied are left for /promotions/cart.
APPLIED = "_theme_promotions"


def promotions_in_totals(totals: dict, cart) -> dict:
    """Cut the totals by every applicable promotion: the base is the subtotal less the coupons'
    discount; the cut joins `discount` and leaves `total` (tax is not recomputed)."""
    if not selectors.module_active("promotions") or getattr(cart, "pk", None) is None:
        return totals  # (a priced cart is a saved Cart; anything else is left alone)
    subtotal = Decimal(totals.get("subtotal") or 0)
    discount = Decimal(totals.get("discount") or 0)
    applied = selectors.promotions_for(subtotal - discount)
    setattr(cart, APPLIED, applied)
    cut = sum((amount for _rule, amount in applied), Decimal(0))
    if not cut:
        return totals
    total = Decimal(totals.get("total") or 0)
    cut = min(cut, total)
    return {**totals, "discount": discount + cut, "total": total - cut}


def group_price(price: Decimal, item, cart) -> Decimal:
    """A group member's price: less the group's percent off (the b2b module)."""
    user_id = getattr(cart, "user_id", None)
    if user_id is None or not selectors.module_active("b2b"):
        return price
    percent = getattr(cart, "_theme_group_percent", None)
    if percent is None:
        percent = selectors.group_discount(user_id)
        with contextlib.suppress(AttributeError):  # a dict in some hook tests
            cart._theme_group_percent = percent
    if not percent:
        return price
    return (price * (100 - percent) / 100).quantize(CENT)
