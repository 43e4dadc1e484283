"""Amounts as payment providers count them: integers of the currency's minor unit (Stripe) or
decimal strings with the currency's own number of decimals (PayPal). One table of currency
exponents for the licence renewals' and the store's gateways.
"""

from __future__ import annotations

from decimal import Decimal

# ISO 4217 currencies without a minor unit and with three decimals, as the providers count them
# (https://docs.stripe.com/currencies#zero-decimal and #three-decimal).
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
THREE_DECIMAL = frozenset(["BHD", "JOD", "KWD", "OMR", "TND"])


def minor_unit_exponent(currency: str) -> int:
    currency = currency.upper()
    if currency in ZERO_DECIMAL:
        return 0
    if currency in THREE_DECIMAL:
        return 3
    return 2


def to_minor_units(amount: Decimal, currency: str) -> int:
    return int((amount * (10 ** minor_unit_exponent(currency))).to_integral_value())


def from_minor_units(value: int, currency: str) -> Decimal:
    exponent = minor_unit_exponent(currency)
    return (Decimal(int(value)) / (10**exponent)).quantize(Decimal(1).scaleb(-max(exponent, 2)))


def decimal_text(amount: Decimal, currency: str) -> str:
    """The amount with the currency's own number of decimals ("10", "10.50", "10.500")."""
    exponent = minor_unit_exponent(currency)
    return str(Decimal(amount).quantize(Decimal(1).scaleb(-exponent)))
