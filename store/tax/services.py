"""Tax writes: classes and rates (checked as the API and the admin need) and the EU VAT rates
loaded from the pinned data."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils.text import slugify

from store.common.errors import invalid_params, rule_broken
from store.common.locations import clean_country, clean_region, pattern_problem, split_patterns
from store.tax import selectors
from store.tax.models import EU_VAT_SOURCE, REDUCED, STANDARD, ZERO, TaxClass, TaxRate

DEFAULT_CLASSES = ((STANDARD, "Standard", 0), (REDUCED, "Reduced rate", 1), (ZERO, "Zero rate", 2))


@dataclass
class LoadReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    kept: list[str] = field(default_factory=list)  # where staff's own rate stands


def tax_classes_ensure() -> dict[str, TaxClass]:
    """The three default classes (standard, reduced-rate, zero-rate), created when missing."""
    out = {}
    for slug, name, order in DEFAULT_CLASSES:
        out[slug], _ = TaxClass.objects.get_or_create(
            slug=slug, defaults={"name": name, "sort_order": order}
        )
    return out


@transaction.atomic
def eu_vat_rates_load(*, dry_run: bool = False, table: dict | None = None) -> LoadReport:
    """Create or update the country-wide EU VAT rates from `table` (store.tax.eu_vat's shape;
    default: the pinned eu-vat-rates-data library's, `selectors.eu_vat_table()`).

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
    # Staff's country-wide rates of priority 1: the loader makes no second rate beside one.
    staff_rates = {
        (rate.tax_class_id, rate.country): rate
        for rate in TaxRate.objects.filter(source="", region="", postcodes="", priority=1)
    }
    for entry in (table or selectors.eu_vat_table())["countries"]:
        country = entry["country"]
        wanted = {
            STANDARD: entry["standard"],
            REDUCED: entry["reduced"][0] if entry["reduced"] else entry["standard"],
        }
        for slug, percent in wanted.items():
            tax_class = classes[slug]
            rate = existing.get((tax_class.pk, country))
            label = f"{country} {slug} {percent.normalize():f}%"
            mine = staff_rates.get((tax_class.pk, country))
            if rate is None and mine is not None:
                report.kept.append(f"{label} (staff's rate {mine.rate.normalize():f}% kept)")
            elif rate is None:
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


# --- Tax classes ----------------------------------------------------------------------------


CLASS_FIELDS = ("name", "slug", "sort_order")


def _slug_for(name: str) -> str:
    base = slugify(name)[:90] or "tax-class"
    if base.isdigit():
        base = f"class-{base}"
    slug, n = base, 2
    while TaxClass.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def tax_class_check_slug(slug: str, *, instance: TaxClass | None = None) -> None:
    """400 for an all-digits slug, 409 `tax_class_exists` for a taken one."""
    if slug.isdigit():
        raise invalid_params({"slug": "A slug needs a letter (ids are numbers)."})
    taken = TaxClass.objects.filter(slug=slug)
    if instance is not None:
        taken = taken.exclude(pk=instance.pk)
    if taken.exists():
        raise rule_broken(
            f"A tax class with slug {slug!r} exists.", code="tax_class_exists", status=409
        )


def protected_class_slugs() -> set[str]:
    """Classes the store relies on: standard (products without a class) and the class
    shipping is taxed at (setting tax.shipping_tax_class)."""
    return {STANDARD, selectors.tax_settings()["shipping_tax_class"]}


@transaction.atomic
def tax_class_create(*, fields: dict) -> TaxClass:
    """A new class: `name` required, `slug` made from it when not given (unique: 409
    `tax_class_exists`), `sort_order`."""
    name = fields["name"].strip()
    if not name:
        raise invalid_params({"name": "A name is required."})
    slug = fields.get("slug") or _slug_for(name)
    tax_class_check_slug(slug)
    return TaxClass.objects.create(name=name, slug=slug, sort_order=fields.get("sort_order", 0))


@transaction.atomic
def tax_class_update(*, ref: str | int, fields: dict) -> TaxClass:
    """Change a class's name, slug or order. The slug of standard and of the shipping tax
    class cannot change (409 `tax_class_protected`)."""
    tax_class = selectors.tax_class_get(ref, for_update=True)
    changes = {key: fields[key] for key in CLASS_FIELDS if key in fields}
    if "name" in changes:
        changes["name"] = changes["name"].strip()
        if not changes["name"]:
            raise invalid_params({"name": "A name is required."})
    if changes.get("slug") not in (None, tax_class.slug):
        if tax_class.slug in protected_class_slugs():
            raise rule_broken(
                f"The slug of the {tax_class.slug!r} class cannot change: the store relies on "
                "it (products without a class, or the shipping tax class setting).",
                code="tax_class_protected",
                status=409,
            )
        tax_class_check_slug(changes["slug"], instance=tax_class)
    if changes.get("slug") is None:
        changes.pop("slug", None)
    for key, value in changes.items():
        setattr(tax_class, key, value)
    tax_class.save()
    return tax_class


@transaction.atomic
def tax_class_delete(*, ref: str | int) -> None:
    """Delete a class that nothing uses: refused (409) for standard and the shipping tax class
    (`tax_class_protected`) and for a class with rates or products (`tax_class_in_use`)."""
    tax_class = selectors.tax_class_get(ref, for_update=True)
    if tax_class.slug in protected_class_slugs():
        raise rule_broken(
            f"The {tax_class.slug!r} class cannot be deleted: the store relies on it "
            "(products without a class, or the shipping tax class setting).",
            code="tax_class_protected",
            status=409,
        )
    usage = selectors.class_usage([tax_class.pk])[tax_class.pk]
    if usage["rates"] or usage["products"]:
        raise rule_broken(
            f"The {tax_class.slug!r} class is in use ({usage['rates']} rate(s), "
            f"{usage['products']} product(s)): delete its rates and move its products to "
            "another class first.",
            code="tax_class_in_use",
            status=409,
        )
    tax_class.delete()


# --- Tax rates ------------------------------------------------------------------------------


RATE_FIELDS = (
    "tax_class",
    "country",
    "region",
    "postcodes",
    "rate",
    "name",
    "priority",
    "applies_to_shipping",
    "enabled",
)


def _canonical_postcodes(text: str) -> str:
    """Postcode patterns as stored: upper-case, one per line, each once, in the order given."""
    seen: dict[str, None] = {}
    for pattern in split_patterns((text or "").upper()):
        seen.setdefault(pattern, None)
    return "\n".join(seen)


def tax_rate_clean(values: dict) -> dict:
    """A rate's fields checked and as stored (400 naming each bad one; nothing saved):
    country and region (ISO codes, `GR-I` taken as `I`), postcode patterns, a rate from 0 to
    100 percent, an existing class (its slug)."""
    out = dict(values)
    problems: dict[str, str] = {}
    country = (out.get("country") or "").strip().upper()
    region = (out.get("region") or "").strip().upper()
    if country and region.startswith(f"{country}-"):
        region = region[len(country) + 1 :]
    out["country"], out["region"] = country, region
    out["postcodes"] = _canonical_postcodes(out.get("postcodes") or "")
    problems.update(tax_rate_problems(country=country, region=region, postcodes=out["postcodes"]))
    if out.get("rate") is None or not 0 <= out["rate"] <= 100:
        problems["rate"] = "A rate is a percentage from 0 to 100."
    if isinstance(out.get("tax_class"), str):
        found = TaxClass.objects.filter(slug=out["tax_class"]).first()
        if found is None:
            problems["tax_class"] = f"No tax class {out['tax_class'][:100]!r}."
        out["tax_class"] = found
    if "name" in out:
        out["name"] = (out["name"] or "").strip() or "VAT"
    if problems:
        raise invalid_params(problems)
    return out


def _check_duplicate(values: dict, *, instance: TaxRate | None = None) -> None:
    same = TaxRate.objects.filter(
        tax_class=values["tax_class"],
        country=values["country"],
        region=values["region"],
        postcodes=values["postcodes"],
        priority=values["priority"],
    )
    if instance is not None:
        same = same.exclude(pk=instance.pk)
    first = same.first()
    if first is not None:
        raise rule_broken(
            f"Rate {first.pk} already applies to this class, place and priority: change it, or "
            "give this one another priority (rates of different priorities add up).",
            code="tax_rate_exists",
            status=409,
        )


def _values_of(rate: TaxRate) -> dict:
    return {key: getattr(rate, key) for key in RATE_FIELDS if key != "tax_class"} | {
        "tax_class": rate.tax_class
    }


def tax_rate_check(*, fields: dict, rate: TaxRate | None = None) -> dict:
    """The values creating (`rate` None) or changing `rate` with `fields` would save, checked
    (400 naming each bad field, 409 `tax_rate_exists`); nothing is saved."""
    base = _values_of(rate) if rate is not None else {"tax_class": STANDARD, "name": "VAT"}
    base.setdefault("priority", 1)
    sent = {key: fields[key] for key in RATE_FIELDS if key in fields}
    values = tax_rate_clean(base | sent)
    _check_duplicate(values, instance=rate)
    return values


def _lock_class(fields: dict, rate: TaxRate | None = None) -> None:
    """Lock the class the rate will belong to: two writes of the same class and place wait
    for each other, so the duplicate check holds."""
    slug = fields.get("tax_class")
    if isinstance(slug, str):
        TaxClass.objects.select_for_update().filter(slug=slug).first()
    else:
        pk = rate.tax_class_id if rate is not None else None
        query = TaxClass.objects.select_for_update()
        (query.filter(pk=pk) if pk else query.filter(slug=STANDARD)).first()


@transaction.atomic
def tax_rate_create(*, fields: dict) -> TaxRate:
    """A staff rate (source blank: the EU VAT loader never changes it): class by slug
    (default standard), place, percent; 409 `tax_rate_exists` for a rate of the same class,
    place and priority."""
    _lock_class(fields)
    values = tax_rate_check(fields=fields)
    return TaxRate.objects.create(**values)  # the cached rate table drops on save (signal)


@transaction.atomic
def tax_rate_update(*, rate_id: int, fields: dict) -> TaxRate:
    """Change the fields sent (checked as on create, the duplicate check over the result). A
    rate loaded from the EU VAT data that staff change becomes theirs (source blank)."""
    rate = selectors.tax_rate_get(rate_id, for_update=True)
    _lock_class(fields, rate)
    values = tax_rate_check(fields=fields, rate=rate)
    changed = {key for key, value in values.items() if getattr(rate, key) != value}
    for key in changed:
        setattr(rate, key, values[key])
    if changed - {"enabled"} and rate.source:
        rate.source = ""
    rate.save()
    return rate


@transaction.atomic
def tax_rate_delete(*, rate_id: int) -> None:
    rate = selectors.tax_rate_get(rate_id, for_update=True)
    rate.delete()


@transaction.atomic
def tax_rate_toggle(*, rate_id: int, enabled: bool | None = None) -> TaxRate:
    """Enable or disable a rate (`enabled` absent: the opposite of now)."""
    rate = selectors.tax_rate_get(rate_id, for_update=True)
    rate.enabled = (not rate.enabled) if enabled is None else enabled
    rate.save(update_fields=["enabled", "updated_at"])
    return rate
