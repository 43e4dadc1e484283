"""Tax arithmetic, to the cent, with one rounding rule (pure functions, no database).

The rule: tax is computed per amount (a cart line after its discounts, or the shipping cost)
at the sum of the rates that apply to it, and rounded half up to the cent once. Per-rate
figures (the receipt's tax lines) split that rounded amount in proportion to the rates by
largest remainder, so they always add up to it. Totals are sums of these rounded amounts.

- Prices without tax: tax = round(amount x R / 100).
- Prices with tax: the amount already holds the tax; tax = round(amount x R / (100 + R)) and
  the net is the amount less that tax.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from store.common.money import allocate_cents, round_half_up

HUNDRED = Decimal(100)


@dataclass(frozen=True)
class Rate:
    """One applicable rate: its id, its label and its percentage."""

    id: int
    label: str
    percent: Decimal


def tax_cents(amount: int, rates: Sequence[Rate], *, inclusive: bool) -> int:
    """The tax on `amount` cents (or inside it, when `inclusive`)."""
    if amount <= 0 or not rates:
        return 0
    combined = sum((rate.percent for rate in rates), Decimal(0))
    if combined <= 0:
        return 0
    if inclusive:
        return round_half_up(Decimal(amount) * combined / (HUNDRED + combined))
    return round_half_up(Decimal(amount) * combined / HUNDRED)


def split_by_rate(tax: int, rates: Sequence[Rate]) -> list[int]:
    """`tax` cents split over `rates` in proportion to their percentages (exact)."""
    if not rates:
        return []
    # Percentages have at most 4 places: scale them to whole numbers for exact allocation.
    weights = [int(rate.percent.scaleb(4)) for rate in rates]
    if sum(weights) == 0:
        return [0] * len(rates)
    return allocate_cents(tax, weights)


@dataclass(frozen=True)
class Taxed:
    """An amount taxed by the rule above: as entered, without tax, its tax, with tax, and the
    tax per rate (adding up to `tax`)."""

    amount: int
    net: int
    tax: int
    gross: int
    by_rate: tuple[tuple[Rate, int], ...]


def taxed(amount: int, rates: Sequence[Rate], *, inclusive: bool) -> Taxed:
    """`amount` cents (as entered: with tax when `inclusive`) taxed at `rates`."""
    tax = tax_cents(amount, rates, inclusive=inclusive)
    net = amount - tax if inclusive else amount
    return Taxed(
        amount=amount,
        net=net,
        tax=tax,
        gross=net + tax,
        by_rate=tuple(zip(rates, split_by_rate(tax, rates), strict=True)),
    )
