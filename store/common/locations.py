"""Addresses as shipping and tax see them: country, region and postcode, and postcode patterns.

A `Location` is what zones and tax rates are matched against. Countries are ISO 3166-1 alpha-2
codes (django-countries); regions are the ISO 3166-2 subdivision code without the country
prefix ("I" for Attica, "CA" for California), checked with pycountry where the country has
subdivisions; postcodes are compared upper-case without spaces.

Postcode patterns (shipping zones, tax rates), in the WooCommerce syntax:
- `10431`         that postcode exactly;
- `104*`          every postcode starting with 104;
- `10000...19999` a range (numeric when both ends are numbers, else by text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import pycountry
from django_countries import countries

_POSTCODE = re.compile(r"^[A-Z0-9][A-Z0-9 -]{0,15}$")
MAX_PATTERN = 100


@dataclass(frozen=True)
class Location:
    country: str
    region: str = ""
    postcode: str = ""


def normalise_postcode(value: str | None) -> str:
    return re.sub(r"[\s-]", "", (value or "").upper())


def country_valid(code: str) -> bool:
    return code in countries


def clean_country(value: str | None) -> str:
    """The ISO 3166-1 alpha-2 code as stored (upper-case, trimmed; "" for none); ValueError
    when it is not a country's code."""
    text = (value or "").strip().upper()
    if text and not country_valid(text):
        raise ValueError(f"Unknown country code {text!r} (ISO 3166-1 alpha-2, e.g. GR).")
    return text


@cache
def subdivisions(country: str) -> frozenset[str]:
    """The country's ISO 3166-2 subdivision codes, without the `CC-` prefix."""
    found = pycountry.subdivisions.get(country_code=country) or []
    return frozenset(s.code.split("-", 1)[1].upper() for s in found)


def clean_region(country: str, region: str | None) -> str:
    """The region as stored ("I"), accepting "GR-I" too; ValueError when unknown."""
    text = (region or "").strip().upper()
    if not text:
        return ""
    if text.startswith(f"{country}-"):
        text = text[len(country) + 1 :]
    known = subdivisions(country)
    if known:
        if text not in known:
            raise ValueError(
                f"Unknown region {region!r} for {country}: use an ISO 3166-2 subdivision code "
                f"(e.g. {sorted(known)[0]})."
            )
    elif len(text) > 10 or not re.fullmatch(r"[A-Z0-9]+", text):
        raise ValueError("A region is a short code of letters and digits.")
    return text


def clean_postcode(value: str | None) -> str:
    """The postcode as stored (upper-case, trimmed); ValueError when it cannot be one."""
    text = (value or "").strip().upper()
    if not text:
        return ""
    if not _POSTCODE.match(text):
        raise ValueError("A postcode has up to 16 letters, digits, spaces or dashes.")
    return text


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` is not a postcode pattern, or None."""
    text = pattern.strip().upper()
    if not text or len(text) > MAX_PATTERN:
        return "A postcode pattern has 1 to 100 characters."
    if "..." in text:
        low, _, high = text.partition("...")
        if not low or not high or "*" in text:
            return "A range is written LOW...HIGH, e.g. 10000...19999."
        if low.isdigit() and high.isdigit() and int(low) > int(high):
            return "A range starts at its lower end."
        return None
    if "*" in text[:-1]:
        return "A wildcard (*) may only end a pattern, e.g. 104*."
    return None


def postcode_matches(pattern: str, postcode: str) -> bool:
    """Whether the (normalised) `postcode` falls under `pattern`."""
    if not postcode:
        return False
    text = normalise_postcode(pattern.replace("...", "\0")).replace("\0", "...")
    if "..." in text:
        low, _, high = text.partition("...")
        if low.isdigit() and high.isdigit() and postcode.isdigit():
            return int(low) <= int(postcode) <= int(high)
        return low <= postcode <= high
    if text.endswith("*"):
        return postcode.startswith(text[:-1])
    return postcode == text


def split_patterns(text: str) -> list[str]:
    """Patterns written one per line or separated by commas."""
    return [p.strip() for p in re.split(r"[\n,;]", text or "") if p.strip()]
