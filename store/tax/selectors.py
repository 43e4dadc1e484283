"""Tax reads: which rates apply where, a product's tax class, the shipped EU VAT table."""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal
from functools import cache
from pathlib import Path

from django.db.models import Q

from store.common.locations import Location, normalise_postcode, postcode_matches, split_patterns
from store.settings import selectors as store_settings
from store.tax.calculation import Rate
from store.tax.models import STANDARD, ProductTaxClass, TaxRate

EU_VAT_FILE = Path(__file__).resolve().parent / "data" / "eu_vat_rates.json"


def tax_settings() -> dict:
    return store_settings.get_section("tax")


def tax_location(*, country: str, region: str = "", postcode: str = "") -> Location:
    """Where tax is reckoned: the given address, or the store's country (setting tax_based_on).

    Without an address (blank country) the store's country stands in, as it does for a
    customer who has not said where they are.
    """
    base = Location(country=store_settings.get_value("general", "store_country"))
    if tax_settings()["tax_based_on"] == "base" or not country:
        return base
    return Location(country=country, region=region, postcode=normalise_postcode(postcode))


def _specificity(rate: TaxRate, location: Location) -> tuple | None:
    """How closely `rate` fits `location` (higher is closer), or None when it does not."""
    if rate.country and rate.country != location.country:
        return None
    if rate.region and rate.region != location.region:
        return None
    patterns = split_patterns(rate.postcodes)
    if patterns and not any(postcode_matches(p, location.postcode) for p in patterns):
        return None
    return (bool(patterns), bool(rate.region), bool(rate.country), -rate.pk)


def rates_for(
    location: Location, class_slugs: Iterable[str], *, shipping: bool = False
) -> dict[str, tuple[Rate, ...]]:
    """The rates of each tax class at `location`: per priority the closest one (one query).

    With `shipping`, only rates that apply to shipping. Classes without a matching rate map to
    an empty tuple (no tax).
    """
    slugs = set(class_slugs)
    out: dict[str, tuple[Rate, ...]] = dict.fromkeys(slugs, ())
    if not slugs or not tax_settings()["enabled"]:
        return out
    rows = TaxRate.objects.filter(enabled=True, tax_class__slug__in=slugs).filter(
        Q(country=location.country) | Q(country="")
    )
    if shipping:
        rows = rows.filter(applies_to_shipping=True)
    best: dict[tuple[str, int], tuple[tuple, TaxRate]] = {}
    for rate in rows.select_related("tax_class"):
        fit = _specificity(rate, location)
        if fit is None:
            continue
        key = (rate.tax_class.slug, rate.priority)
        if key not in best or fit > best[key][0]:
            best[key] = (fit, rate)
    chosen: dict[str, list[tuple[int, TaxRate]]] = {}
    for (slug, priority), (_fit, rate) in best.items():
        chosen.setdefault(slug, []).append((priority, rate))
    for slug, items in chosen.items():
        out[slug] = tuple(
            Rate(id=rate.pk, label=rate.name, percent=rate.rate)
            for _priority, rate in sorted(items, key=lambda item: item[0])
        )
    return out


def product_tax_classes(product_ids: Iterable[int]) -> dict[int, str]:
    """Each product's tax class slug (`standard` when none is set), in one query."""
    ids = list(set(product_ids))
    out = dict.fromkeys(ids, STANDARD)
    if ids:
        out.update(
            ProductTaxClass.objects.filter(product_id__in=ids).values_list(
                "product_id", "tax_class__slug"
            )
        )
    return out


@cache
def eu_vat_table() -> dict:
    """The EU VAT rates the project ships (store/tax/data/eu_vat_rates.json)."""
    data = json.loads(EU_VAT_FILE.read_text(encoding="utf-8"))
    for entry in data["countries"]:
        entry["standard"] = Decimal(entry["standard"])
        entry["reduced"] = [Decimal(value) for value in entry["reduced"]]
        entry["super_reduced"] = [Decimal(v) for v in entry.get("super_reduced", [])]
    return data
