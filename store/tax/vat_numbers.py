"""EU VAT numbers, checked with python-stdnum (`stdnum.eu.vat`: each member state's format and
check digits; no network: whether the number is registered is VIES's business, not ours)."""

from __future__ import annotations

from dataclasses import dataclass

from stdnum.eu import vat as stdnum_vat
from stdnum.exceptions import ValidationError

# A VAT number's prefix is its member state's ISO code, but for Greece (EL) and Northern
# Ireland (XI, traders in goods under the Windsor Framework: the United Kingdom's code).
PREFIX_COUNTRY = {"EL": "GR", "XI": "GB"}
MAX_LENGTH = 32


@dataclass(frozen=True)
class VatNumber:
    number: str  # compact and upper-case, with its prefix: EL094259216
    country: str  # the issuing state's ISO 3166-1 alpha-2 code (EL -> GR)


def parse(value: str) -> VatNumber:
    """The VAT number in `value` (spaces, dots and dashes ignored; the country prefix
    required); ValueError saying what is wrong."""
    text = (value or "").strip()
    if not text:
        raise ValueError("A VAT number is required.")
    if len(text) > MAX_LENGTH or not text.isprintable():
        raise ValueError("Not a VAT number.")
    try:
        number = stdnum_vat.validate(text).upper()
    except ValidationError as exc:
        raise ValueError(
            f"Not a valid EU VAT number ({exc.message.rstrip('.').lower()}): give it with its "
            "country prefix, e.g. DE136695976."
        ) from exc
    prefix = number[:2]
    return VatNumber(number=number, country=PREFIX_COUNTRY.get(prefix, prefix))
