"""Amounts as providers send them: minor units (cents) for Stripe, decimal strings for PayPal."""

from __future__ import annotations

from decimal import Decimal

# ISO 4217 currencies without a minor unit, as Stripe counts them.
ZERO_DECIMAL = frozenset(
    [
        "BIF",
        "CLP",
        "DJF",
        "GNF",
        "JPY",
        "KMF",
        "KRW",
        "MGA",
        "PYG",
        "RWF",
        "UGX",
        "VND",
        "VUV",
        "XAF",
        "XOF",
        "XPF",
    ]
)


def to_minor(amount: Decimal, currency: str) -> int:
    if currency.upper() in ZERO_DECIMAL:
        return int(amount)
    return int((amount * 100).to_integral_value())


def from_minor(value: int, currency: str) -> Decimal:
    if currency.upper() in ZERO_DECIMAL:
        return Decimal(int(value)).quantize(Decimal("0.01"))
    return (Decimal(int(value)) / 100).quantize(Decimal("0.01"))


def as_text(amount: Decimal, currency: str) -> str:
    if currency.upper() in ZERO_DECIMAL:
        return str(int(amount))
    return f"{amount.quantize(Decimal('0.01'))}"
