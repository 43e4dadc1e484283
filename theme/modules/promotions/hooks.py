"""The promotions' store hook, listed in settings.STORE_HOOKS (the store never imports the
theme): `ec_cart_calculated_totals`, the active promotion rules cut the cart's total, its tax
recomputed. It reads the rules from the cache (no query when warm) and does nothing while the
module is off."""

from __future__ import annotations

from decimal import Decimal

from store.settings import selectors as store_settings
from theme.modules import selectors as kernel
from theme.modules.promotions import selectors

CENT = Decimal("0.01")
AMOUNTS = ("subtotal", "subtotal_tax", "discount", "discount_tax", "tax", "total")
#: The attribute of the priced Cart where the promotions applied are left for /promotions/cart.
APPLIED = "_theme_promotions"


def promotions_in_totals(totals: dict, cart) -> dict:
    """Cut the totals by every applicable promotion, as a cart-wide coupon would: the base is
    the goods after the coupons' discount as prices are entered (without tax, or with it when
    prices include tax), and the tax is recomputed on the discounted amounts (the goods' tax
    falls in proportion to the cut). The store then spreads that tax change over the lines
    (store.cart.calculation.lower_tax), so the order made from the cart carries it."""
    if not kernel.module_active("promotions") or getattr(cart, "pk", None) is None:
        return totals  # (a priced cart is a saved Cart; anything else is left alone)
    figures = {key: Decimal(totals.get(key) or 0) for key in AMOUNTS}
    net = figures["subtotal"] - figures["discount"]  # the goods, without tax, after coupons
    goods_tax = max(figures["subtotal_tax"] - figures["discount_tax"], Decimal(0))
    inclusive = store_settings.get_value("tax", "prices_include_tax")
    entered = net + goods_tax if inclusive else net
    applied = selectors.promotions_for(entered)
    setattr(cart, APPLIED, applied)
    cut = min(sum((amount for _rule, amount in applied), Decimal(0)), max(entered, Decimal(0)))
    if cut <= 0:
        return totals
    cut_tax = (cut * goods_tax / entered).quantize(CENT) if goods_tax else Decimal(0)
    net_cut = cut - cut_tax if inclusive else cut
    return {
        **totals,
        "discount": figures["discount"] + net_cut,
        "discount_tax": figures["discount_tax"] + cut_tax,
        "tax": figures["tax"] - cut_tax,
        "total": figures["total"] - net_cut - cut_tax,
    }
