"""Coupon rules that need no database: which items a coupon covers, the cart checks, and how
its discount is spread over the items, to the cent.

Amounts are whole cents in the basis prices are entered in (with or without tax).

Eligibility of an item: it is one of `product_ids` (when any are listed) or of one of
`category_ids` (when any are listed), is not excluded by product or category, and is not on
sale when the coupon excludes sale items. A coupon with no eligible item in the cart is
refused, with the reason that left none (`coupon_not_applicable`, `coupon_excluded_products`,
`coupon_excluded_categories`, `coupon_sale_items_excluded`).

Discounts, applied in this order (then in the order the coupons were applied):
1. fixed product: `amount` off each unit of each eligible item;
2. percent: `amount` percent of each eligible item's original total (not compounded), the
   coupon's total rounded half up once and spread by largest remainder;
3. fixed cart: `amount` off the eligible items, spread in proportion to what is left of them.
No item is discounted below zero; what cannot be taken is not taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from store.common.errors import rule_broken
from store.common.money import allocate_cents, round_half_up, to_cents
from store.coupons.models import DiscountType

ORDER = {DiscountType.FIXED_PRODUCT: 1, DiscountType.PERCENT: 2, DiscountType.FIXED_CART: 3}


@dataclass(frozen=True)
class CouponTerms:
    id: int
    code: str
    discount_type: str
    amount: Decimal
    free_shipping: bool = False
    enabled: bool = True
    expires_at: datetime | None = None
    minimum_amount: Decimal | None = None
    maximum_amount: Decimal | None = None
    individual_use: bool = False
    exclude_sale_items: bool = False
    product_ids: frozenset[int] = frozenset()
    excluded_product_ids: frozenset[int] = frozenset()
    category_ids: frozenset[int] = frozenset()
    excluded_category_ids: frozenset[int] = frozenset()
    description: str = ""


@dataclass(frozen=True)
class BasketLine:
    """A cart line as coupons see it."""

    key: str
    product_id: int
    category_ids: frozenset[int]
    on_sale: bool
    unit: int  # cents
    quantity: int

    @property
    def total(self) -> int:
        return self.unit * self.quantity


def refused(code: str, message: str):
    return rule_broken(message, code=code)


def included(terms: CouponTerms, line: BasketLine) -> bool:
    if terms.product_ids or terms.category_ids:
        return line.product_id in terms.product_ids or bool(line.category_ids & terms.category_ids)
    return True


def eligible(terms: CouponTerms, line: BasketLine) -> bool:
    return (
        included(terms, line)
        and line.product_id not in terms.excluded_product_ids
        and not (line.category_ids & terms.excluded_category_ids)
        and not (terms.exclude_sale_items and line.on_sale)
    )


def check_active(terms, *, now: datetime) -> None:
    """Refuse a disabled or expired coupon (CouponTerms, or the Coupon row itself)."""
    if not terms.enabled:
        raise refused("coupon_disabled", f"Coupon {terms.code!r} is not active.")
    if terms.expires_at is not None and terms.expires_at <= now:
        raise refused(
            "coupon_expired",
            f"Coupon {terms.code!r} expired on {terms.expires_at:%Y-%m-%d %H:%M} UTC.",
        )


def check_basket(terms: CouponTerms, lines: list[BasketLine], *, now: datetime) -> None:
    """Refuse `terms` for this cart (each reason its own code), or return quietly.

    Usage limits need the database: see store.coupons.selectors.check_usage.
    """
    code = terms.code
    check_active(terms, now=now)
    if not lines:
        raise refused("coupon_empty_cart", "Add products to your cart before applying a coupon.")
    subtotal = sum(line.total for line in lines)
    if terms.minimum_amount is not None and subtotal < to_cents(terms.minimum_amount):
        raise refused(
            "coupon_minimum_spend",
            f"The minimum spend for coupon {code!r} is {terms.minimum_amount:.2f}.",
        )
    if terms.maximum_amount is not None and subtotal > to_cents(terms.maximum_amount):
        raise refused(
            "coupon_maximum_spend",
            f"The maximum spend for coupon {code!r} is {terms.maximum_amount:.2f}.",
        )
    candidates = [line for line in lines if included(terms, line)]
    if not candidates:
        raise refused(
            "coupon_not_applicable", f"Coupon {code!r} does not apply to any item in your cart."
        )
    candidates = [c for c in candidates if c.product_id not in terms.excluded_product_ids]
    if not candidates:
        raise refused(
            "coupon_excluded_products",
            f"Coupon {code!r} does not apply to the products in your cart.",
        )
    candidates = [c for c in candidates if not (c.category_ids & terms.excluded_category_ids)]
    if not candidates:
        raise refused(
            "coupon_excluded_categories",
            f"Coupon {code!r} does not apply to products of the categories in your cart.",
        )
    if terms.exclude_sale_items and all(c.on_sale for c in candidates):
        raise refused(
            "coupon_sale_items_excluded", f"Coupon {code!r} is not valid for items on sale."
        )


def check_combination(terms: CouponTerms, applied: list[CouponTerms]) -> None:
    """Refuse `terms` next to the coupons already applied (individual use), or return."""
    for other in applied:
        if other.code.lower() == terms.code.lower():
            raise refused("coupon_already_applied", f"Coupon {terms.code!r} is already applied.")
    for other in applied:
        if other.individual_use:
            raise refused(
                "coupon_individual_use_only",
                f"Coupon {other.code!r} is applied and cannot be combined with other coupons.",
            )
    if terms.individual_use and applied:
        raise refused(
            "coupon_individual_use_only",
            f"Coupon {terms.code!r} cannot be combined with other coupons.",
        )


def sort_for_discount(coupons: list[CouponTerms]) -> list[CouponTerms]:
    return sorted(coupons, key=lambda terms: ORDER.get(terms.discount_type, 9))


def discount(
    terms: CouponTerms, lines: list[BasketLine], remaining: dict[str, int]
) -> dict[str, int]:
    """Cents off each line for `terms`, given what is `remaining` of each line (not changed)."""
    targets = [line for line in lines if eligible(terms, line) and remaining[line.key] > 0]
    out = {line.key: 0 for line in lines}
    if not targets:
        return out
    amount = terms.amount
    if terms.discount_type == DiscountType.FIXED_PRODUCT:
        unit_off = to_cents(amount)
        for line in targets:
            out[line.key] = min(unit_off * line.quantity, remaining[line.key])
    elif terms.discount_type == DiscountType.PERCENT:
        exact = [Decimal(line.total) * amount / 100 for line in targets]
        wanted = round_half_up(sum(exact, Decimal(0)))
        floors = [int(value) for value in exact]
        left = wanted - sum(floors)
        fractions = sorted(range(len(targets)), key=lambda i: (-(exact[i] - floors[i]), i))
        for i in fractions[:left]:
            floors[i] += 1
        for line, share in zip(targets, floors, strict=True):
            out[line.key] = min(share, remaining[line.key])
    else:  # fixed cart
        weights = [remaining[line.key] for line in targets]
        wanted = min(to_cents(amount), sum(weights))
        for line, share in zip(targets, allocate_cents(wanted, weights), strict=True):
            out[line.key] = min(share, remaining[line.key])
    return out
