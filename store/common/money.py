"""Money: Decimal in the database (two places), a decimal string on the wire. Never float."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.db import models
from rest_framework import serializers

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


def MoneyModelField(**kwargs) -> models.DecimalField:
    return models.DecimalField(max_digits=MAX_DIGITS, decimal_places=PLACES, **kwargs)


class MoneyField(serializers.DecimalField):
    """Accepts a JSON number or a decimal string, at least 0; answers a decimal string."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_digits", MAX_DIGITS)
        kwargs.setdefault("decimal_places", PLACES)
        kwargs.setdefault("min_value", Decimal(0))
        kwargs.setdefault("coerce_to_string", True)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, float):
            data = repr(data)
        return super().to_internal_value(data)
