"""The cart's money arithmetic: exact examples of the rounding rule and the coupon spreads, and
a property test (hypothesis): totals always equal the sum of their parts, never negative, to
the cent, whatever the prices, quantities, coupons, rates and shipping."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store.cart.calculation import PricedLine, ShippingCharge, calculate, coupon_cuts
from store.common.money import allocate_cents
from store.coupons.rules import CouponTerms
from store.tax.calculation import Rate, split_by_rate, tax_cents

VAT24 = Rate(1, "VAT", Decimal("24"))
VAT13 = Rate(2, "VAT", Decimal("13"))


def line(key, unit, quantity=1, *, rates=(), product_id=1, categories=(), on_sale=False):
    return PricedLine(
        key=key,
        product_id=product_id,
        category_ids=frozenset(categories),
        on_sale=on_sale,
        unit=unit,
        quantity=quantity,
        rates=tuple(rates),
    )


def coupon(code, kind, amount, **fields):
    return CouponTerms(
        id=hash(code), code=code, discount_type=kind, amount=Decimal(amount), **fields
    )


def totals(lines, coupons=(), shipping=None, inclusive=False):
    return calculate(lines, coupon_cuts(lines, list(coupons)), shipping, inclusive=inclusive)


# --- Examples ----------------------------------------------------------------------------------


def test_tax_on_prices_without_tax_rounds_half_up_per_line():
    # 3 x 0.35 = 1.05; 24% = 0.252 -> 0.25; 1 x 0.10 at 24% = 0.024 -> 0.02
    result = totals([line("a", 35, 3, rates=[VAT24]), line("b", 10, rates=[VAT24])])
    assert result.as_dict() == {
        "subtotal": 115,
        "subtotal_tax": 27,
        "discount": 0,
        "discount_tax": 0,
        "shipping": 0,
        "shipping_tax": 0,
        "tax": 27,
        "total": 142,
    }


def test_half_a_cent_rounds_up():
    assert tax_cents(125, [Rate(1, "x", Decimal("10"))], inclusive=False) == 13  # 12.5 -> 13
    assert tax_cents(124, [Rate(1, "x", Decimal("10"))], inclusive=False) == 12


def test_prices_with_tax_keep_their_amount_and_hold_the_tax():
    # 12.40 with 24% inside: tax 2.40, net 10.00; total stays 12.40.
    result = totals([line("a", 1240, rates=[VAT24])], inclusive=True)
    assert (result.subtotal, result.tax, result.total) == (1000, 240, 1240)


def test_stacked_rates_are_one_rounding_split_by_largest_remainder():
    rates = [Rate(1, "A", Decimal("5")), Rate(2, "B", Decimal("7.5"))]
    result = totals([line("a", 999, rates=rates)])
    assert result.tax == 125  # 999 x 12.5% = 124.875 -> 125
    assert {t.rate.id: t.amount for t in result.tax_lines} == {1: 50, 2: 75}
    assert split_by_rate(125, rates) == [50, 75]


def test_a_percent_coupon_is_rounded_once_and_spread_exactly():
    lines = [line("a", 333), line("b", 333), line("c", 334)]
    result = totals(lines, [coupon("P", "percent", "10")])
    assert result.discount == 100
    assert sum(result.lines[k].discount for k in "abc") == 100
    assert [result.lines[k].discount for k in "abc"] == [33, 33, 34]


def test_fixed_cart_spreads_by_remaining_and_never_below_zero():
    lines = [line("a", 1000), line("b", 500)]
    result = totals(lines, [coupon("F", "fixed_cart", "20.00")])
    assert (result.discount, result.total) == (1500, 0)
    result = totals(lines, [coupon("F", "fixed_cart", "3.00")])
    assert [result.lines[k].discount for k in "ab"] == [200, 100]


def test_fixed_product_takes_the_amount_off_each_eligible_unit():
    lines = [line("a", 1000, 3, product_id=1), line("b", 400, 1, product_id=2)]
    result = totals(lines, [coupon("X", "fixed_product", "5.00", product_ids=frozenset({2}))])
    assert [result.lines[k].discount for k in "ab"] == [0, 400]
    result = totals(lines, [coupon("X", "fixed_product", "2.00")])
    assert [result.lines[k].discount for k in "ab"] == [600, 200]


def test_discount_order_is_fixed_product_then_percent_then_fixed_cart():
    lines = [line("a", 10000)]
    cuts = coupon_cuts(
        lines,
        [
            coupon("CART", "fixed_cart", "5"),
            coupon("PCT", "percent", "50"),
            coupon("PROD", "fixed_product", "10"),
        ],
    )
    assert [terms.code for terms, _ in cuts] == ["PROD", "PCT", "CART"]
    # 100 - 10 = 90; 50% of the original 100 = 50 -> 40 left; 5 off -> 35.
    assert [c["a"] for _terms, c in cuts] == [1000, 5000, 500]


def test_sale_and_excluded_items_take_no_discount():
    lines = [
        line("a", 1000, product_id=1, on_sale=True),
        line("b", 1000, product_id=2, categories={7}),
        line("c", 1000, product_id=3),
    ]
    terms = coupon(
        "P", "percent", "10", exclude_sale_items=True, excluded_category_ids=frozenset({7})
    )
    result = totals(lines, [terms])
    assert [result.lines[k].discount for k in "abc"] == [0, 0, 100]


def test_discount_with_tax_inclusive_prices_splits_net_and_tax():
    result = totals(
        [line("a", 1240, rates=[VAT24])], [coupon("F", "fixed_cart", "1.24")], inclusive=True
    )
    # 12.40 - 1.24 = 11.16 with 24% inside: tax 2.16, net 9.00; discount 1.00 + 0.24 tax.
    assert (result.subtotal, result.discount, result.discount_tax, result.tax, result.total) == (
        1000,
        100,
        24,
        216,
        1116,
    )
    assert [(c.code, c.discount, c.discount_tax, c.entered) for c in result.coupons] == [
        ("F", 100, 24, 124)
    ]


def test_shipping_is_taxed_at_its_own_rates():
    result = totals([line("a", 1000, rates=[VAT13])], shipping=ShippingCharge(500, (VAT24,)))
    assert (result.subtotal_tax, result.shipping, result.shipping_tax, result.total) == (
        130,
        500,
        120,
        1750,
    )
    assert {t.rate.id: t.amount for t in result.tax_lines} == {2: 130, 1: 120}


def test_allocate_cents_is_exact():
    assert allocate_cents(10, [1, 1, 1]) == [4, 3, 3]
    assert allocate_cents(0, [0, 0]) == [0, 0]
    assert allocate_cents(7, [0, 5]) == [0, 7]


# --- The property ------------------------------------------------------------------------------

rate_values = st.decimals(min_value=0, max_value=30, places=2).map(
    lambda d: d.quantize(Decimal("0.01"))
)
rates_st = st.lists(rate_values, max_size=3).map(
    lambda values: tuple(Rate(i + 1, f"R{i}", v) for i, v in enumerate(values))
)
lines_st = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=999_999),  # unit price in cents
        st.integers(min_value=1, max_value=50),  # quantity
        st.integers(min_value=1, max_value=4),  # product id
        st.booleans(),  # on sale
        rates_st,
    ),
    max_size=8,
)
coupon_st = st.builds(
    lambda kind, amount, products, sale, free: CouponTerms(
        id=0,
        code="",
        discount_type=kind,
        amount=min(amount, Decimal(100)) if kind == "percent" else amount,
        free_shipping=free,
        exclude_sale_items=sale,
        product_ids=frozenset(products),
    ),
    st.sampled_from(["percent", "fixed_cart", "fixed_product"]),
    st.decimals(min_value=0, max_value=5000, places=2),
    st.sets(st.integers(min_value=1, max_value=4), max_size=2),
    st.booleans(),
    st.booleans(),
)


@pytest.mark.sqlite_only  # a calculation without the database: the same in every pass
@settings(max_examples=400)
@given(
    raw_lines=lines_st,
    raw_coupons=st.lists(coupon_st, max_size=3),
    shipping=st.one_of(st.none(), st.tuples(st.integers(0, 99_999), rates_st)),
    inclusive=st.booleans(),
)
def test_totals_are_the_sum_of_their_parts(raw_lines, raw_coupons, shipping, inclusive):
    lines = [
        line(f"l{i}", unit, qty, rates=rates, product_id=pid, on_sale=sale)
        for i, (unit, qty, pid, sale, rates) in enumerate(raw_lines)
    ]
    coupons = [
        CouponTerms(**{**c.__dict__, "code": f"C{i}", "id": i}) for i, c in enumerate(raw_coupons)
    ]
    charge = ShippingCharge(shipping[0], shipping[1]) if shipping else None
    result = totals(lines, coupons, charge, inclusive=inclusive)

    parts = result.as_dict()
    assert all(isinstance(value, int) for value in parts.values())  # whole cents
    assert all(value >= 0 for value in parts.values()), parts
    assert result.tax == result.subtotal_tax - result.discount_tax + result.shipping_tax
    assert result.total == result.subtotal - result.discount + result.shipping + result.tax
    # The parts add up over the lines.
    amounts = result.lines.values()
    assert result.subtotal == sum(a.subtotal for a in amounts)
    assert result.discount == sum(a.net_discount for a in amounts)
    assert result.subtotal_tax == sum(a.subtotal_tax for a in amounts)
    # The shopper pays the items as entered, less the discounts, plus shipping (+ tax on top
    # when prices are entered without it).
    entered = sum(a.total - a.discount for a in amounts)
    shipping_cost = charge.cost if charge else 0
    if inclusive:
        assert result.total == entered + shipping_cost
        assert result.subtotal + result.subtotal_tax == sum(a.total for a in amounts)
    else:
        assert result.total == entered + shipping_cost + result.tax
        assert result.subtotal == sum(a.total for a in amounts)
    for a in amounts:
        assert 0 <= a.discount <= a.total
        assert a.net_discount >= 0
        assert a.discount_tax >= 0
        assert sum(amount for _rate, amount in a.tax_by_rate) == a.tax
    # Coupons' shares add up to the discount; tax lines add up to the tax.
    assert sum(c.discount for c in result.coupons) == result.discount
    assert sum(c.discount_tax for c in result.coupons) == result.discount_tax
    assert sum(t.amount for t in result.tax_lines) == result.tax


def test_a_hook_lowered_tax_is_spread_over_the_lines_and_rates():
    """store.cart.calculation.lower_tax: the cents a hook took off the tax (a promotion's
    discount with its tax recomputed) come off the lines' taxes in proportion, and off the
    per-rate tax lines; the shipping's tax stays; a raise, or more than the lines' tax, is
    left alone."""
    from store.cart.calculation import lower_tax

    lines = [line("a", 10000, rates=[VAT24]), line("b", 5000, rates=[VAT13])]
    result = totals(lines, shipping=ShippingCharge(cost=500, rates=(VAT24,)))
    assert (result.tax, result.lines["a"].tax, result.lines["b"].tax) == (3170, 2400, 650)
    lower_tax(result, 3170 - 305)
    assert (result.lines["a"].tax, result.lines["b"].tax) == (2400 - 240, 650 - 65)
    assert (result.tax, result.discount_tax) == (2865, 305)
    assert {entry.rate.id: entry.amount for entry in result.tax_lines} == {1: 2280, 2: 585}
    assert sum(entry.amount for entry in result.tax_lines) == result.tax
    assert result.lines["a"].tax_by_rate == [(VAT24, 2160)]
    for refused in (result.tax + 1, result.tax - 10_000):
        lower_tax(result, refused)
        assert result.tax == 2865
