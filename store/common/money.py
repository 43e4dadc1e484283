"""Money: Decimal in the database (two places), a decimal string on the wire. Never float."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django.db import models

from store.common.params import StrictDecimalField

MAX_DIGITS = 12
PLACES = 2
_QUANTUM = Decimal(1).scaleb(-PLACES)


def money(value) -> Decimal:
    """`value` as a Decimal of two places (half up); floats go through their shortest repr."""
    if isinstance(value, float):
        value = repr(value)
    return Decimal(value).quantize(_QUANTUM, rounding=ROUND_HALF_UP)


def money_str(value) -> str | None:
    return None if value is None else format(money(value), "f")


def parse_money(value) -> Decimal:
    """A money amount typed or sent as JSON (a number or a decimal string), checked as
    MoneyField checks it: a finite number, not negative, at most two places and MAX_DIGITS
    digits. ValueError saying what is wrong (for rules kept in JSON, like weight brackets)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        raise ValueError("is not a number")
    try:
        amount = Decimal(repr(value) if isinstance(value, float) else str(value).strip())
    except InvalidOperation:
        raise ValueError("is not a number") from None
    if not amount.is_finite():
        raise ValueError("is not a number")
    if amount < 0:
        raise ValueError("is negative")
    if amount and amount.adjusted() >= MAX_DIGITS - PLACES:
        raise ValueError(f"has more than {MAX_DIGITS - PLACES} digits before the point")
    if amount != amount.quantize(_QUANTUM, rounding=ROUND_HALF_UP):
        raise ValueError(f"has more than {PLACES} decimal places")
    return amount.quantize(_QUANTUM)


def MoneyModelField(**kwargs) -> models.DecimalField:
    return models.DecimalField(max_digits=MAX_DIGITS, decimal_places=PLACES, **kwargs)


class MoneyField(StrictDecimalField):
    """Accepts a JSON number or a decimal string, at least 0, at most two places; answers a
    decimal string."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_digits", MAX_DIGITS)
        kwargs.setdefault("decimal_places", PLACES)
        kwargs.setdefault("coerce_to_string", True)
        super().__init__(**kwargs)


# --- Whole cents: the cart's arithmetic (store.cart.calculation, store.tax.calculation) ----------


def to_cents(value) -> int:
    """A money value as whole cents (rounded half up to the cent first)."""
    return int(money(value).scaleb(PLACES))


def from_cents(cents: int) -> Decimal:
    return Decimal(cents).scaleb(-PLACES).quantize(_QUANTUM)


def round_half_up(value: Decimal) -> int:
    """A Decimal amount of cents rounded to a whole cent, halves away from zero."""
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def allocate_cents(total: int, weights: list[int]) -> list[int]:
    """Split `total` cents in proportion to `weights`, exactly (largest remainder).

    Each share is the floor of its exact part; the cents left go one each to the largest
    fractional parts (earlier entries first on ties). The shares always add up to `total`.
    """
    whole = sum(weights)
    if total == 0 or whole == 0:
        if total:
            raise ValueError("cannot allocate cents over zero weights")
        return [0] * len(weights)
    shares = [total * w // whole for w in weights]
    remainders = [(total * w) % whole for w in weights]
    left = total - sum(shares)
    order = sorted(range(len(weights)), key=lambda i: (-remainders[i], i))
    for i in order[:left]:
        shares[i] += 1
    return shares
