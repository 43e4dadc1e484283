"""Amounts in the providers' units (common.money), for the licence renewals and the store."""

from decimal import Decimal

import pytest

from common.money import decimal_text, from_minor_units, to_minor_units


@pytest.mark.parametrize(
    ("amount", "currency", "minor", "text"),
    [
        (Decimal("10.50"), "EUR", 1050, "10.50"),
        (Decimal("10"), "eur", 1000, "10.00"),
        (Decimal("1200"), "JPY", 1200, "1200"),
        (Decimal("1.234"), "KWD", 1234, "1.234"),
    ],
)
def test_minor_units_and_text_follow_the_currencys_decimals(amount, currency, minor, text):
    assert to_minor_units(amount, currency) == minor
    assert from_minor_units(minor, currency) == amount
    assert decimal_text(amount, currency) == text
