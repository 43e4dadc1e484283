"""Shipping rules for writes: what a zone location and a method must hold.

The admin (and the Shipping routes of a later issue) check with these before saving.
"""

from __future__ import annotations

from store.common.locations import clean_country, clean_region, country_valid, pattern_problem
from store.shipping.calculation import weight_brackets
from store.shipping.models import FreeShippingRequires, LocationType, MethodType


def location_clean(*, type: str, code: str) -> str:
    """The code as stored (GR, GR:I, 104*); ValueError saying what is wrong."""
    text = (code or "").strip().upper()
    if type == LocationType.COUNTRY:
        if not text:
            raise ValueError("Give a country code (ISO 3166-1 alpha-2, e.g. GR).")
        return clean_country(text)
    if type == LocationType.REGION:
        country, _, region = text.replace("-", ":", 1).partition(":")
        if not country_valid(country) or not region:
            raise ValueError("A region is written COUNTRY:REGION, e.g. GR:I or US:CA.")
        return f"{country}:{clean_region(country, region)}"
    if type == LocationType.POSTCODE:
        problem = pattern_problem(text)
        if problem:
            raise ValueError(problem)
        return text
    raise ValueError(f"Unknown location type {type!r}.")


def method_problems(*, type: str, min_amount, requires: str, weight_rates) -> dict[str, str]:
    """What is wrong with a method's settings for its type (empty when nothing is)."""
    problems: dict[str, str] = {}
    if type == MethodType.FREE_SHIPPING:
        needs_amount = requires in (
            FreeShippingRequires.MIN_AMOUNT,
            FreeShippingRequires.EITHER,
            FreeShippingRequires.BOTH,
        )
        if needs_amount and min_amount is None:
            problems["min_amount"] = "Free shipping that requires a minimum amount needs one."
    if type == MethodType.WEIGHT_BASED:
        try:
            weight_brackets(weight_rates)
        except ValueError as exc:
            problems["weight_rates"] = str(exc)
    elif weight_rates:
        problems["weight_rates"] = "Only by-weight methods have weight brackets."
    return problems
