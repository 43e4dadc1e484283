"""The cart's money arithmetic, in whole cents (pure functions, no database).

Inputs are the lines (unit price as entered, after the `ec_cart_item_price` hook), the
coupons' cuts of each line (store.coupons.rules), the shipping charge and the tax rates of
each. Outputs satisfy, always and to the cent:

    tax   = subtotal_tax - discount_tax + shipping_tax
    total = subtotal - discount + shipping + tax

where `subtotal`, `discount` and `shipping` are amounts without tax, whether prices are
entered with tax or without it, and none of them is ever negative. Tax follows the one
rounding rule of store.tax.calculation: per line after its discounts, half up, once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from store.common.money import allocate_cents
from store.coupons.rules import BasketLine, CouponTerms, discount, sort_for_discount
from store.tax.calculation import Rate, split_by_rate, tax_cents


@dataclass(frozen=True)
class PricedLine:
    key: str
    product_id: int
    category_ids: frozenset[int]
    on_sale: bool
    unit: int  # cents, as entered (with or without tax)
    quantity: int
    rates: tuple[Rate, ...] = ()
    weight: Decimal = Decimal(0)  # of one unit

    @property
    def total(self) -> int:
        return self.unit * self.quantity

    def basket_line(self) -> BasketLine:
        return BasketLine(
            key=self.key,
            product_id=self.product_id,
            category_ids=self.category_ids,
            on_sale=self.on_sale,
            unit=self.unit,
            quantity=self.quantity,
        )


@dataclass(frozen=True)
class ShippingCharge:
    cost: int  # cents, as entered
    rates: tuple[Rate, ...] = ()


@dataclass
class LineAmounts:
    total: int  # as entered, before discounts (= unit x quantity)
    discount: int  # as entered
    subtotal: int  # without tax, before discounts
    subtotal_tax: int
    net_discount: int  # without tax
    discount_tax: int
    tax: int  # after discounts
    tax_by_rate: list[tuple[Rate, int]] = field(default_factory=list)


@dataclass
class CouponAmounts:
    code: str
    discount: int  # without tax
    discount_tax: int
    entered: int  # as entered (with or without tax)


@dataclass
class TaxLine:
    rate: Rate
    amount: int


@dataclass
class Totals:
    subtotal: int = 0
    subtotal_tax: int = 0
    discount: int = 0
    discount_tax: int = 0
    shipping: int = 0
    shipping_tax: int = 0
    tax: int = 0
    total: int = 0
    lines: dict[str, LineAmounts] = field(default_factory=dict)
    coupons: list[CouponAmounts] = field(default_factory=list)
    tax_lines: list[TaxLine] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        return {
            name: getattr(self, name)
            for name in (
                "subtotal",
                "subtotal_tax",
                "discount",
                "discount_tax",
                "shipping",
                "shipping_tax",
                "tax",
                "total",
            )
        }


def coupon_cuts(
    lines: list[PricedLine], coupons: list[CouponTerms]
) -> list[tuple[CouponTerms, dict[str, int]]]:
    """Each coupon's cents off each line (as entered), in the order discounts apply."""
    basket = [line.basket_line() for line in lines]
    remaining = {line.key: line.total for line in lines}
    out = []
    for terms in sort_for_discount(coupons):
        cuts = discount(terms, basket, remaining)
        for key, cut in cuts.items():
            remaining[key] -= cut
        out.append((terms, cuts))
    return out


def _line(line: PricedLine, cut: int, *, inclusive: bool) -> LineAmounts:
    total = line.total
    after = total - cut
    subtotal_tax = tax_cents(total, line.rates, inclusive=inclusive)
    tax = tax_cents(after, line.rates, inclusive=inclusive)
    if inclusive:
        subtotal = total - subtotal_tax
        net_after = after - tax
    else:
        subtotal = total
        net_after = after
    return LineAmounts(
        total=total,
        discount=cut,
        subtotal=subtotal,
        subtotal_tax=subtotal_tax,
        net_discount=subtotal - net_after,
        discount_tax=subtotal_tax - tax,
        tax=tax,
        tax_by_rate=list(zip(line.rates, split_by_rate(tax, line.rates), strict=True)),
    )


def calculate(
    lines: list[PricedLine],
    cuts: list[tuple[CouponTerms, dict[str, int]]],
    shipping: ShippingCharge | None,
    *,
    inclusive: bool,
) -> Totals:
    """The cart's totals from its lines, the coupons' cuts and the shipping charge."""
    totals = Totals()
    per_coupon = {terms.code: CouponAmounts(terms.code, 0, 0, 0) for terms, _cuts in cuts}
    by_rate: dict[int, TaxLine] = {}

    def add_tax(rate: Rate, amount: int) -> None:
        entry = by_rate.setdefault(rate.id, TaxLine(rate=rate, amount=0))
        entry.amount += amount

    for line in lines:
        shares = [(terms.code, line_cuts.get(line.key, 0)) for terms, line_cuts in cuts]
        cut = sum(share for _code, share in shares)
        amounts = _line(line, cut, inclusive=inclusive)
        totals.lines[line.key] = amounts
        totals.subtotal += amounts.subtotal
        totals.subtotal_tax += amounts.subtotal_tax
        totals.discount += amounts.net_discount
        totals.discount_tax += amounts.discount_tax
        for rate, amount in amounts.tax_by_rate:
            add_tax(rate, amount)
        if cut:
            weights = [share for _code, share in shares]
            nets = allocate_cents(amounts.net_discount, weights)
            taxes = allocate_cents(amounts.discount_tax, weights)
            for (code, share), net, tax in zip(shares, nets, taxes, strict=True):
                per_coupon[code].discount += net
                per_coupon[code].discount_tax += tax
                per_coupon[code].entered += share
    if shipping is not None and shipping.cost > 0:
        shipping_tax = tax_cents(shipping.cost, shipping.rates, inclusive=inclusive)
        totals.shipping = shipping.cost - shipping_tax if inclusive else shipping.cost
        totals.shipping_tax = shipping_tax
        for rate, amount in zip(
            shipping.rates, split_by_rate(shipping_tax, shipping.rates), strict=True
        ):
            add_tax(rate, amount)
    totals.tax = totals.subtotal_tax - totals.discount_tax + totals.shipping_tax
    totals.total = totals.subtotal - totals.discount + totals.shipping + totals.tax
    totals.coupons = list(per_coupon.values())
    totals.tax_lines = [entry for entry in by_rate.values() if entry.amount]
    return totals


def lower_tax(totals: Totals, tax: int) -> None:
    """Bring `totals` to the tax total `tax` (cents) when a hook lowered it (a cart-wide
    discount the ec_cart_calculated_totals hook applies, with its tax recomputed): the cents
    taken off are spread over the lines' taxes in proportion, each line's share over its rates,
    and the per-rate tax lines follow, so an order made from the lines and the cart's tax
    breakdown add up to the hook's figure. Anything else (a raise, or more than the lines'
    tax) is left alone."""
    change = totals.tax - tax
    keys = [key for key, line in totals.lines.items() if line.tax > 0]
    if change <= 0 or change > sum(totals.lines[key].tax for key in keys):
        return
    by_rate: dict[int, int] = {}
    for key, cut in zip(
        keys, allocate_cents(change, [totals.lines[key].tax for key in keys]), strict=True
    ):
        line = totals.lines[key]
        weights = [amount for _rate, amount in line.tax_by_rate]
        shares = allocate_cents(cut, weights) if sum(weights) else [0] * len(weights)
        line.tax_by_rate = [
            (rate, amount - share)
            for (rate, amount), share in zip(line.tax_by_rate, shares, strict=True)
        ]
        for (rate, _amount), share in zip(line.tax_by_rate, shares, strict=True):
            by_rate[rate.id] = by_rate.get(rate.id, 0) + share
        line.tax -= cut
        line.discount_tax += cut
    for entry in totals.tax_lines:
        entry.amount -= by_rate.get(entry.rate.id, 0)
    totals.tax_lines = [entry for entry in totals.tax_lines if entry.amount]
    totals.discount_tax += change
    totals.tax = tax
