"""A cart priced: its lines through the `ec_cart_item_price` hook, its coupons re-checked, the
shipping methods of its address, tax, and the totals through `ec_cart_calculated_totals`.

Loading a cart also tidies it (as a shop does when the cart page opens): a line whose product
can no longer be bought (archived, without a price, its variant disabled) is removed, and so
is a coupon that no longer applies (expired, disabled, minimum spend no longer met, ...); each
removal is reported once in `notices`. Usage limits are not re-checked here: uses are counted
when the order is placed (store.coupons.services).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from decimal import Decimal

from django.core.exceptions import ObjectDoesNotExist
from django.utils import timezone

from common.compiled import CompiledQuery
from common.errors import ServiceError
from store.cart.calculation import (
    PricedLine,
    ShippingCharge,
    Totals,
    calculate,
    coupon_cuts,
    lower_tax,
)
from store.cart.models import Cart, CartCoupon, CartItem
from store.cart.services.lines import cart_lines
from store.cart.services.stock import held_units
from store.catalog.choices import ProductStatus, ProductType
from store.catalog.models import Product
from store.common import hooks
from store.common.locations import Location
from store.common.money import from_cents, money, to_cents
from store.coupons import selectors as coupon_selectors
from store.coupons.models import Coupon
from store.coupons.rules import CouponTerms, check_basket, check_combination
from store.settings import selectors as store_settings
from store.shipping import selectors as shipping_selectors
from store.shipping.calculation import package_of
from store.shipping.selectors import Quote
from store.tax import selectors as tax_selectors
from store.tax.models import STANDARD

logger = logging.getLogger(__name__)

MONEY_KEYS = (
    "subtotal",
    "subtotal_tax",
    "discount",
    "discount_tax",
    "shipping",
    "shipping_tax",
    "tax",
    "total",
)


@dataclass
class PricedItem:
    item: CartItem
    unit: Decimal  # as entered, after the item-price hook
    line: PricedLine


@dataclass
class CartState:
    cart: Cart | None
    items: list[PricedItem]
    totals: dict[str, Decimal]
    amounts: Totals
    coupons: list[tuple[Coupon, CouponTerms]]
    address: Location | None  # the address the shopper gave, if any
    location: Location  # where shipping and tax were reckoned
    quotes: list[Quote]
    method: Quote | None  # the method counted in the totals
    shipping_rates: tuple  # the tax rates of shipping here
    free_shipping: bool
    prices_include_tax: bool
    currency: str
    config: dict = field(default_factory=dict)  # the store settings the pricing used
    notices: list[dict] = field(default_factory=list)
    held: dict = field(default_factory=dict)  # units held for the cart by its checkout, per item
    reverse_charge: bool = False  # the EU B2B reverse charge took the tax off (store.tax)

    @property
    def item_count(self) -> int:
        return sum(priced.item.quantity for priced in self.items)


def _tax_class(product: Product) -> str:
    try:
        return product.tax_class_link.tax_class.slug
    except ObjectDoesNotExist:
        return STANDARD


def unavailable(item: CartItem) -> bool:
    product, variant = item.product, item.variant
    if product.status != ProductStatus.ACTIVE:
        return True
    if product.type == ProductType.VARIABLE:
        return variant is None or not variant.enabled or variant.price is None
    return variant is not None or product.price is None


def title_of(item: CartItem) -> str:
    variant = item.variant
    return (variant.title if variant is not None and variant.title else "") or item.product.title


def _category_ids(product_ids: list[int], needed: bool) -> dict[int, frozenset[int]]:
    if not needed or not product_ids:
        return {}
    out: dict[int, set[int]] = {}
    links = Product.categories.through.objects.filter(product_id__in=product_ids)
    for product_id, category_id in links.values_list("product_id", "category_id"):
        out.setdefault(product_id, set()).add(category_id)
    return {key: frozenset(value) for key, value in out.items()}


def _unit_price(item: CartItem, cart: Cart) -> Decimal:
    base = item.variant.price if item.variant is not None else item.product.price
    price = hooks.apply_filters(hooks.CART_ITEM_PRICE, money(base), item, cart)
    price = money(price)
    if price < 0:
        logger.warning("the %s hook answered a negative price; using 0", hooks.CART_ITEM_PRICE)
        return money(0)
    return price


# The cart's coupons, read by every priced answer: compiled once per connection.
_APPLIED = CompiledQuery(
    lambda cart_id: (
        CartCoupon.objects.filter(cart_id=cart_id)
        .select_related("coupon")
        .order_by("applied_at", "id")
    ),
    (-1,),
    (-2,),
)


def _applied(cart: Cart) -> list[Coupon]:
    return [link.coupon for link in _APPLIED.instances(cart.pk)]


def address_of(cart: Cart | None) -> Location | None:
    if cart is None or not cart.shipping_country:
        return None
    return Location(cart.shipping_country, cart.shipping_region, cart.shipping_postcode)


def pricing_cache_keys() -> list[str]:
    """The cache entries every pricing reads (the store settings, the version tokens of the
    tax rates, shipping zones and coupon terms): a hot path reads them in one round trip
    (`store.common.cache.read_together`)."""
    return [
        store_settings.cache_key(),
        tax_selectors.table.version_key(),
        shipping_selectors.table.version_key(),
        coupon_selectors.terms_cache.version_key(),
    ]


def cart_state(
    cart: Cart | None,
    *,
    preview_coupon: Coupon | None = None,
    alone: bool = False,
    tidy: bool = True,
    lines: list[CartItem] | None = None,
    no_coupons: bool = False,
) -> CartState:
    """Price `cart` (None: an empty cart).

    `lines`: the cart's lines as `cart_lines` reads them, when the caller has just read them
    (the add path); `no_coupons`: the cart is known to hold no coupons (just made, or seen
    without any under its lock: `cart.no_coupons`), so there are none to read.

    `preview_coupon` is counted as if applied, without saving (its refusal is raised); with
    `alone` the applied coupons are left out (an individual-use coupon replaces them).
    `tidy` removes unbuyable lines and coupons that no longer apply (and says so in
    `notices`).
    """
    now = timezone.now()
    notices: list[dict] = []
    config = store_settings.get_all()  # one read of the settings for the whole pricing
    tax = config["tax"]
    inclusive = tax["prices_include_tax"]
    items = list(lines) if lines is not None else cart_lines(cart) if cart is not None else []
    stale = [item for item in items if unavailable(item)]
    if stale:
        items = [item for item in items if item not in stale]
        if tidy:
            CartItem.objects.filter(pk__in=[item.pk for item in stale]).delete()
        for item in stale:
            notices.append(
                {
                    "code": "item_removed",
                    "message": f"{title_of(item)} was removed from your cart: it can no "
                    "longer be bought.",
                }
            )

    coupons_all = _applied(cart) if cart is not None and not alone and not no_coupons else []
    if preview_coupon is not None:
        coupons_all.append(preview_coupon)
    terms_of = coupon_selectors.cached_terms(coupons_all)
    needs_categories = any(t.category_ids or t.excluded_category_ids for t in terms_of.values())

    address = address_of(cart)
    location = tax_selectors.tax_location(
        country=address.country if address else "",
        region=address.region if address else "",
        postcode=address.postcode if address else "",
        config=config,
    )
    shipping_location = address or Location(config["general"]["store_country"])
    reverse_charge = tax_selectors.reverse_charge_applies(
        cart.vat_number if cart is not None else "", config
    )
    product_ids = [item.product_id for item in items]
    classes = {item.product_id: _tax_class(item.product) for item in items}
    rates = tax_selectors.rates_for(
        location, set(classes.values()), config=config, reverse_charge=reverse_charge
    )
    categories = _category_ids(product_ids, needs_categories)

    priced = []
    for item in items:
        unit = _unit_price(item, cart)
        source = item.variant or item.product
        weight = source.weight if source.weight is not None else item.product.weight
        line = PricedLine(
            key=item.key,
            product_id=item.product_id,
            category_ids=categories.get(item.product_id, frozenset()),
            on_sale=bool(source.on_sale),
            unit=to_cents(unit),
            quantity=item.quantity,
            rates=rates.get(classes[item.product_id], ()),
            weight=weight or Decimal(0),
        )
        priced.append(PricedItem(item=item, unit=unit, line=line))
    lines = [p.line for p in priced]
    basket = [line.basket_line() for line in lines]

    kept: list[tuple[Coupon, CouponTerms]] = []
    dropped: list[int] = []
    for coupon in coupons_all:
        terms = terms_of[coupon.pk]
        try:
            check_basket(terms, basket, now=now)
            check_combination(terms, [t for _c, t in kept])
        except ServiceError as exc:
            if coupon is preview_coupon:
                raise
            dropped.append(coupon.pk)
            notices.append(
                {
                    "code": "coupon_removed",
                    "message": f"Coupon {coupon.code!r} was removed: {exc.detail}",
                }
            )
            continue
        kept.append((coupon, terms))
    if dropped and tidy and cart is not None:
        CartCoupon.objects.filter(cart=cart, coupon_id__in=dropped).delete()

    cuts = coupon_cuts(lines, [terms for _coupon, terms in kept])
    free_shipping = any(terms.free_shipping for _coupon, terms in kept)
    cut_total = sum(sum(line_cuts.values()) for _terms, line_cuts in cuts)
    package = package_of(
        ((line.total, line.quantity, line.weight) for line in lines),
        discount=cut_total,
        free_shipping_coupon=free_shipping,
    )
    # The one shipping calculation (POST /shipping/calculate answers the same figures).
    shipping = shipping_selectors.shipping_for(
        shipping_location,
        package,
        tax_location=location,
        config=config,
        reverse_charge=reverse_charge,
    )
    quotes = shipping.quotes
    method = None
    if lines:
        chosen = cart.shipping_method_id if cart is not None else None
        method = next((q for q in quotes if q.method.pk == chosen), None) or (
            quotes[0] if quotes else None
        )
    charge = None
    if method is not None:
        charge = ShippingCharge(cost=method.cost, rates=method.rates)

    amounts = calculate(lines, cuts, charge, inclusive=inclusive)
    totals = {key: from_cents(value) for key, value in amounts.as_dict().items()}
    if cart is not None:
        changed = hooks.apply_filters(hooks.CART_CALCULATED_TOTALS, dict(totals), cart)
        totals = {key: money(changed.get(key, totals[key])) for key in MONEY_KEYS}
        # A hook that lowered the tax (a promotion's discount, its tax recomputed): the lines
        # and the per-rate tax lines follow, for the order made from them.
        lower_tax(amounts, to_cents(totals["tax"]))
    return CartState(
        cart=cart,
        items=priced,
        totals=totals,
        amounts=amounts,
        coupons=kept,
        address=address,
        location=shipping_location,
        quotes=quotes,
        method=method,
        shipping_rates=shipping.rates,
        free_shipping=free_shipping,
        prices_include_tax=inclusive,
        currency=config["currency"]["currency"],
        config=config,
        notices=notices,
        held=held_units(cart),
        reverse_charge=reverse_charge,
    )
