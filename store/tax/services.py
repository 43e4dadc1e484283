"""Tax writes: the EU VAT rates loaded from the shipped data, and the checks of a rate."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from store.common.locations import clean_country, clean_region, pattern_problem, split_patterns
from store.tax import selectors
from store.tax.models import REDUCED, STANDARD, ZERO, TaxClass, TaxRate

EU_VAT_SOURCE = "eu_vat"
DEFAULT_CLASSES = ((STANDARD, "Standard", 0), (REDUCED, "Reduced rate", 1), (ZERO, "Zero rate", 2))


@dataclass
class LoadReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0


def tax_classes_ensure() -> dict[str, TaxClass]:
    """The three default classes (standard, reduced-rate, zero-rate), created when missing."""
    out = {}
    for slug, name, order in DEFAULT_CLASSES:
        out[slug], _ = TaxClass.objects.get_or_create(
            slug=slug, defaults={"name": name, "sort_order": order}
        )
    return out


@transaction.atomic
def eu_vat_rates_load(*, dry_run: bool = False) -> LoadReport:
    """Create or update the country-wide EU VAT rates from store/tax/data/eu_vat_rates.json.

    The standard class gets each country's standard rate, the reduced-rate class its highest
    reduced rate (the standard rate where the country has none); the zero-rate class has no
    rates. Only rows the loader made (source `eu_vat`) are updated; staff's rates are left
    alone. Idempotent. With `dry_run` nothing is saved.
    """
    classes = tax_classes_ensure()
    report = LoadReport()
    existing = {
        (rate.tax_class_id, rate.country): rate
        for rate in TaxRate.objects.select_for_update().filter(
            source=EU_VAT_SOURCE, region="", postcodes=""
        )
    }
    for entry in selectors.eu_vat_table()["countries"]:
        country = entry["country"]
        wanted = {
            STANDARD: entry["standard"],
            REDUCED: entry["reduced"][0] if entry["reduced"] else entry["standard"],
        }
        for slug, percent in wanted.items():
            tax_class = classes[slug]
            rate = existing.get((tax_class.pk, country))
            label = f"{country} {slug} {percent.normalize():f}%"
            if rate is None:
                report.created.append(label)
                if not dry_run:
                    TaxRate.objects.create(
                        tax_class=tax_class,
                        country=country,
                        rate=percent,
                        name="VAT",
                        priority=1,
                        source=EU_VAT_SOURCE,
                    )
            elif rate.rate != percent:
                report.updated.append(f"{label} (was {rate.rate.normalize():f}%)")
                if not dry_run:
                    rate.rate = percent
                    rate.save(update_fields=["rate", "updated_at"])
            else:
                report.unchanged += 1
    if dry_run:
        transaction.set_rollback(True)
    return report


def tax_rate_problems(*, country: str, region: str, postcodes: str) -> dict[str, str]:
    """What is wrong with a rate's location fields (empty when nothing is)."""
    problems: dict[str, str] = {}
    try:
        clean_country(country)
    except ValueError as exc:
        problems["country"] = str(exc)
    if region:
        if not country:
            problems["region"] = "A region needs a country."
        elif "country" not in problems:
            try:
                clean_region(country, region)
            except ValueError as exc:
                problems["region"] = str(exc)
    for pattern in split_patterns(postcodes):
        problem = pattern_problem(pattern)
        if problem:
            problems["postcodes"] = f"{pattern!r}: {problem}"
            break
    return problems


@transaction.atomic
def tax_rates_set_enabled(*, ids, enabled: bool) -> int:
    """Turn rates on or off (one UPDATE: the cached rate table is dropped by hand, as an
    UPDATE sends no signal); answers how many changed."""
    count = (
        TaxRate.objects.filter(pk__in=list(ids)).exclude(enabled=enabled).update(enabled=enabled)
    )
    transaction.on_commit(selectors.invalidate)
    selectors.invalidate()
    return count
