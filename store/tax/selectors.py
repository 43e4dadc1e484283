"""Tax reads: which rates apply where, a product's tax class, the shipped EU VAT table."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path

from django.db.models.signals import post_delete, post_save

from store.common.cache import VersionedCache, cached_copy
from store.common.locations import Location, normalise_postcode, postcode_matches, split_patterns
from store.settings import selectors as store_settings
from store.tax.calculation import Rate
from store.tax.models import STANDARD, ProductTaxClass, TaxClass, TaxRate

EU_VAT_FILE = Path(__file__).resolve().parent / "data" / "eu_vat_rates.json"
table = VersionedCache("tax_rates")


@dataclass(frozen=True)
class RateRow:
    id: int
    tax_class: str
    country: str
    region: str
    postcodes: tuple[str, ...]
    percent: Decimal
    label: str
    priority: int
    applies_to_shipping: bool


def enabled_rates() -> list[RateRow]:
    """Every enabled rate, kept whole in the cache (any saved or deleted rate or class drops
    it, on the spot and again at commit; admin bulk actions call `invalidate`)."""
    return cached_copy(table, "enabled", _load_rates)


def _load_rates() -> list[RateRow]:
    return [
        RateRow(
            id=rate.pk,
            tax_class=rate.tax_class.slug,
            country=rate.country,
            region=rate.region,
            postcodes=tuple(split_patterns(rate.postcodes)),
            percent=rate.rate,
            label=rate.name,
            priority=rate.priority,
            applies_to_shipping=rate.applies_to_shipping,
        )
        for rate in TaxRate.objects.filter(enabled=True).select_related("tax_class")
    ]


def invalidate(*args, **kwargs) -> None:
    table.bump()


def connect_invalidation() -> None:
    for model in (TaxRate, TaxClass):
        uid = f"store.tax.rates.{model.__name__}"
        post_save.connect(invalidate, sender=model, dispatch_uid=f"{uid}.save")
        post_delete.connect(invalidate, sender=model, dispatch_uid=f"{uid}.delete")


def tax_settings() -> dict:
    return store_settings.get_section("tax")


def tax_location(
    *, country: str, region: str = "", postcode: str = "", config: dict | None = None
) -> Location:
    """Where tax is reckoned: the given address, or the store's country (setting tax_based_on).

    Without an address (blank country) the store's country stands in, as it does for a
    customer who has not said where they are.
    """
    config = config or store_settings.get_all()
    base = Location(country=config["general"]["store_country"])
    if config["tax"]["tax_based_on"] == "base" or not country:
        return base
    return Location(country=country, region=region, postcode=normalise_postcode(postcode))


def _specificity(rate: RateRow, location: Location) -> tuple | None:
    """How closely `rate` fits `location` (higher is closer), or None when it does not."""
    if rate.country and rate.country != location.country:
        return None
    if rate.region and rate.region != location.region:
        return None
    patterns = rate.postcodes
    if patterns and not any(postcode_matches(p, location.postcode) for p in patterns):
        return None
    return (bool(patterns), bool(rate.region), bool(rate.country), -rate.id)


def rates_for(
    location: Location,
    class_slugs: Iterable[str],
    *,
    shipping: bool = False,
    config: dict | None = None,
) -> dict[str, tuple[Rate, ...]]:
    """The rates of each tax class at `location`: per priority the closest one.

    With `shipping`, only rates that apply to shipping. Classes without a matching rate map to
    an empty tuple (no tax).
    """
    slugs = set(class_slugs)
    out: dict[str, tuple[Rate, ...]] = dict.fromkeys(slugs, ())
    enabled = (config or store_settings.get_all())["tax"]["enabled"]
    if not slugs or not enabled:
        return out
    best: dict[tuple[str, int], tuple[tuple, RateRow]] = {}
    for rate in enabled_rates():
        if rate.tax_class not in slugs or (shipping and not rate.applies_to_shipping):
            continue
        fit = _specificity(rate, location)
        if fit is None:
            continue
        key = (rate.tax_class, rate.priority)
        if key not in best or fit > best[key][0]:
            best[key] = (fit, rate)
    chosen: dict[str, list[RateRow]] = {}
    for (slug, _priority), (_fit, rate) in best.items():
        chosen.setdefault(slug, []).append(rate)
    for slug, rates in chosen.items():
        out[slug] = tuple(
            Rate(id=rate.id, label=rate.label, percent=rate.percent)
            for rate in sorted(rates, key=lambda r: r.priority)
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
