"""Tax reads: which rates apply where (the EU reverse charge included), a product's tax class, the
EU VAT table, classes and rates for the API, the calculation without a cart (`tax_quote`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from django.db.models import Count, Q
from django.db.models.signals import post_delete, post_save
from django_countries import countries

from store.catalog.choices import ProductStatus, ProductType
from store.catalog.models import Product, Variant
from store.common.cache import VersionedCache, cached_copy
from store.common.errors import invalid_params, not_found
from store.common.locations import Location, normalise_postcode, postcode_matches, split_patterns
from store.common.money import to_cents
from store.common.pagination import Page, paginate
from store.settings import selectors as store_settings
from store.tax import eu_vat, vat_numbers
from store.tax.calculation import Rate, Taxed, taxed
from store.tax.models import EU_VAT_SOURCE, STANDARD, ProductTaxClass, TaxClass, TaxRate
from store.tax.vat_numbers import VatNumber

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
    customer who has not said where they are. The region is compared upper-case, as rates keep
    it (an ISO 3166-2 code already is; free text where the country has none may not be).
    """
    config = config or store_settings.get_all()
    base = Location(country=config["general"]["store_country"])
    if config["tax"]["tax_based_on"] == "base" or not country:
        return base
    return Location(
        country=country, region=region.strip().upper(), postcode=normalise_postcode(postcode)
    )


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
    reverse_charge: bool = False,
) -> dict[str, tuple[Rate, ...]]:
    """The rates of each tax class at `location`: per priority the closest one.

    With `shipping`, only rates that apply to shipping. Classes without a matching rate map to
    an empty tuple (no tax); so does every class under the EU reverse charge
    (`reverse_charge_applies`).
    """
    slugs = set(class_slugs)
    out: dict[str, tuple[Rate, ...]] = dict.fromkeys(slugs, ())
    enabled = (config or store_settings.get_all())["tax"]["enabled"]
    if not slugs or not enabled or reverse_charge:
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
    """The EU VAT rates of the pinned `eu-vat-rates-data` library (store.tax.eu_vat)."""
    return eu_vat.library_table()


def eu_countries() -> frozenset[str]:
    """The EU member states' codes (the EU VAT table's countries)."""
    return frozenset(entry["country"] for entry in eu_vat_table()["countries"])


# --- EU B2B reverse charge --------------------------------------------------------------------


def vat_number_of(value: str | None) -> VatNumber | None:
    """A stored (already checked) VAT number parsed; None when blank or no longer valid."""
    if not value:
        return None
    try:
        return vat_numbers.parse(value)
    except ValueError:
        return None


def vat_number_clean(value: str | None, *, name: str = "vat_number") -> str:
    """A VAT number as stored (compact, upper-case; "" for none); 400 naming `name` when
    python-stdnum finds it invalid."""
    if value is None or not str(value).strip():
        return ""
    try:
        return vat_numbers.parse(str(value)).number
    except ValueError as exc:
        raise invalid_params({name: str(exc)}, code="invalid_vat_number") from exc


def reverse_charge_applies(vat_number: str | VatNumber | None, config: dict) -> bool:
    """The EU B2B reverse charge: with the setting `tax.eu_reverse_charge` on, a customer whose
    VAT number (valid per python-stdnum) was issued by an EU member state other than the
    store's (`general.store_country`, itself a member state) pays no tax: the customer
    accounts for it. Prices with tax included are then charged without it."""
    if not config["tax"]["eu_reverse_charge"]:
        return False
    number = vat_number if isinstance(vat_number, VatNumber) else vat_number_of(vat_number)
    if number is None:
        return False
    eu = eu_countries()
    store_country = config["general"]["store_country"]
    return store_country in eu and number.country in eu and number.country != store_country


# --- Reads for the API ------------------------------------------------------------------------


def _class_ref_filter(ref: str | int) -> Q:
    text = str(ref)
    return Q(pk=int(text)) if text.isdigit() and len(text) < 10 else Q(slug=text[:100])


def tax_class_get(ref: str | int, *, for_update: bool = False) -> TaxClass:
    """A tax class by its id or slug; 404 `tax_class_not_found`."""
    queryset = TaxClass.objects.select_for_update() if for_update else TaxClass.objects
    found = queryset.filter(_class_ref_filter(ref)).first()
    if found is None:
        raise not_found("tax_class", ref if isinstance(ref, int) else str(ref))
    return found


def class_usage(class_ids: Iterable[int]) -> dict[int, dict[str, int]]:
    """Each class's rates (all, enabled) and products, in two queries."""
    ids = list(class_ids)
    out = {pk: {"rates": 0, "enabled_rates": 0, "products": 0} for pk in ids}
    if not ids:
        return out
    rows = (
        TaxRate.objects.filter(tax_class_id__in=ids)
        .values("tax_class_id")
        .annotate(total=Count("id"), enabled=Count("id", filter=Q(enabled=True)))
        .order_by()
    )
    for row in rows:
        out[row["tax_class_id"]].update(rates=row["total"], enabled_rates=row["enabled"])
    products = (
        ProductTaxClass.objects.filter(tax_class_id__in=ids)
        .values("tax_class_id")
        .annotate(total=Count("product_id"))
        .order_by()
    )
    for row in products:
        out[row["tax_class_id"]]["products"] = row["total"]
    return out


def tax_class_page(query: dict) -> Page:
    queryset = TaxClass.objects.all()
    if query.get("search"):
        text = query["search"]
        queryset = queryset.filter(Q(name__icontains=text) | Q(slug__icontains=text))
    return paginate(queryset, page=query["page"], per_page=query["per_page"])


def tax_rate_queryset():
    return TaxRate.objects.select_related("tax_class")


def tax_rate_get(rate_id: int, *, for_update: bool = False) -> TaxRate:
    queryset = tax_rate_queryset()
    if for_update:
        queryset = queryset.select_for_update(of=("self",))
    found = queryset.filter(pk=rate_id).first()
    if found is None:
        raise not_found("tax_rate", rate_id)
    return found


def tax_rate_page(query: dict) -> Page:
    """Rates filtered by `country` ("" or "*": the rates for every country), `tax_class`
    (slug), `enabled`, `source`, `search` (name, region, postcodes), in the model's order."""
    queryset = tax_rate_queryset()
    country = query.get("country")
    if country is not None:
        queryset = queryset.filter(country="" if country == "*" else country)
    if query.get("tax_class"):
        queryset = queryset.filter(tax_class__slug=query["tax_class"])
    if query.get("enabled") is not None:
        queryset = queryset.filter(enabled=query["enabled"])
    if query.get("source") is not None:
        queryset = queryset.filter(source=query["source"])
    if query.get("search"):
        text = query["search"]
        queryset = queryset.filter(
            Q(name__icontains=text) | Q(region__iexact=text) | Q(postcodes__icontains=text)
        )
    return paginate(queryset, page=query["page"], per_page=query["per_page"])


def tax_stats() -> dict:
    """Counts of the classes and rates, per class; the countries with rates; the settings."""
    rates = TaxRate.objects.aggregate(
        total=Count("id"),
        enabled=Count("id", filter=Q(enabled=True)),
        eu_vat=Count("id", filter=Q(source=EU_VAT_SOURCE)),
        worldwide=Count("id", filter=Q(country="")),
        countries=Count("country", filter=~Q(country=""), distinct=True),
    )
    classes = list(TaxClass.objects.all())
    usage = class_usage(c.pk for c in classes)
    config = store_settings.get_all()
    table = eu_vat_table()
    return {
        "classes": len(classes),
        "rates": {
            "total": rates["total"],
            "enabled": rates["enabled"],
            "disabled": rates["total"] - rates["enabled"],
            "eu_vat": rates["eu_vat"],
            "by_staff": rates["total"] - rates["eu_vat"],
            "worldwide": rates["worldwide"],
        },
        "countries_with_rates": rates["countries"],
        "by_class": [{"id": c.pk, "slug": c.slug, "name": c.name, **usage[c.pk]} for c in classes],
        "products_with_class": sum(u["products"] for u in usage.values()),
        "settings": {
            key: config["tax"][key]
            for key in ("enabled", "prices_include_tax", "tax_based_on", "eu_reverse_charge")
        },
        "store_country": config["general"]["store_country"],
        "eu_vat_data": {"as_of": table["as_of"], "source": table["source"]},
    }


def tax_countries() -> list[dict]:
    """The countries with rates configured, and every EU member state: code, name, EU or not,
    enabled and disabled rates (django-countries' names), by code."""
    eu = eu_countries()
    counts = {
        row["country"]: row
        for row in TaxRate.objects.exclude(country="")
        .values("country")
        .annotate(total=Count("id"), enabled=Count("id", filter=Q(enabled=True)))
        .order_by()
    }
    out = []
    for code in sorted(eu | set(counts)):
        row = counts.get(code, {"total": 0, "enabled": 0})
        out.append(
            {
                "code": code,
                "name": str(countries.name(code)) or code,
                "eu": code in eu,
                "rates": row["total"],
                "enabled_rates": row["enabled"],
            }
        )
    return out


# --- POST /tax/calculate: the cart's rule for lines without a cart -----------------------------


@dataclass
class QuoteLine:
    product_id: int | None
    variant_id: int | None
    tax_class: str
    quantity: int
    unit: int  # cents, as entered
    taxed: Taxed


@dataclass
class Quote:
    location: Location
    vat_number: VatNumber | None
    reverse_charge: bool
    prices_include_tax: bool
    currency: str
    lines: list[QuoteLine]
    shipping: Taxed | None
    tax_lines: list[tuple[Rate, int]]

    @property
    def subtotal(self) -> int:
        return sum(line.taxed.net for line in self.lines)

    @property
    def subtotal_tax(self) -> int:
        return sum(line.taxed.tax for line in self.lines)

    @property
    def tax(self) -> int:
        return self.subtotal_tax + (self.shipping.tax if self.shipping else 0)

    @property
    def total(self) -> int:
        return sum(line.taxed.gross for line in self.lines) + (
            self.shipping.gross if self.shipping else 0
        )


def _line_prices(lines: list[dict]) -> dict[int, int]:
    """Each product line's unit price (cents, as the cart takes it); 400 naming
    the line for a product that cannot be bought. Two queries."""
    product_ids = {line["product_id"] for line in lines if line.get("product_id")}
    variant_ids = {line["variant_id"] for line in lines if line.get("variant_id")}
    products = Product.objects.in_bulk(product_ids) if product_ids else {}
    variants = Variant.objects.in_bulk(variant_ids) if variant_ids else {}
    problems: dict[str, str] = {}
    out: dict[int, int] = {}
    for index, line in enumerate(lines):
        if not line.get("product_id"):
            continue
        product = products.get(line["product_id"])
        variant = variants.get(line["variant_id"]) if line.get("variant_id") else None
        if product is None or product.status != ProductStatus.ACTIVE:
            problems[f"lines.{index}.product_id"] = f"No product with id {line['product_id']}."
            continue
        if line.get("variant_id") and (variant is None or variant.product_id != product.pk):
            problems[f"lines.{index}.variant_id"] = (
                f"No variant with id {line['variant_id']} of product {product.pk}."
            )
            continue
        if product.type == ProductType.VARIABLE:
            if variant is None:
                problems[f"lines.{index}.variant_id"] = "A variable product needs its variant_id."
                continue
            if not variant.enabled or variant.price is None:
                problems[f"lines.{index}.variant_id"] = "This variant cannot be bought."
                continue
            price = variant.price
        else:
            if variant is not None:
                problems[f"lines.{index}.variant_id"] = "A simple product has no variants."
                continue
            if product.price is None:
                problems[f"lines.{index}.product_id"] = "This product has no price."
                continue
            price = product.price
        out[index] = to_cents(price)
    if problems:
        raise invalid_params(problems)
    return out


def tax_quote(
    *,
    country: str = "",
    region: str = "",
    postcode: str = "",
    lines: list[dict],
    shipping: int | None = None,
    vat_number: str = "",
    config: dict | None = None,
) -> Quote:
    """The tax on `lines` ({product_id, variant_id?, quantity} at the product's price, or
    {amount, tax_class?, quantity}) and on a shipping cost, for a customer at this address
    with this VAT number: the cart's rule (store.cart.services.pricing) without a cart, so the
    same lines give the same tax. 400 for an invalid VAT number, an unknown product or class."""
    config = config or store_settings.get_all()
    tax = config["tax"]
    inclusive = tax["prices_include_tax"]
    number = vat_number_checked(vat_number)
    location = tax_location(country=country, region=region, postcode=postcode, config=config)
    reverse = reverse_charge_applies(number, config)
    prices = _line_prices(lines)
    product_classes = product_tax_classes(
        line["product_id"] for line in lines if line.get("product_id")
    )
    slugs = {line["tax_class"] for line in lines if not line.get("product_id")}
    known = set(TaxClass.objects.filter(slug__in=slugs).values_list("slug", flat=True))
    unknown = {
        f"lines.{i}.tax_class": f"No tax class {line['tax_class']!r}."
        for i, line in enumerate(lines)
        if not line.get("product_id") and line["tax_class"] not in known
    }
    if unknown:
        raise invalid_params(unknown)
    classes = [
        product_classes[line["product_id"]] if line.get("product_id") else line["tax_class"]
        for line in lines
    ]
    rates = rates_for(location, set(classes), config=config, reverse_charge=reverse)
    quoted = []
    for index, (line, slug) in enumerate(zip(lines, classes, strict=True)):
        unit = prices[index] if index in prices else line["amount"]
        quoted.append(
            QuoteLine(
                product_id=line.get("product_id"),
                variant_id=line.get("variant_id"),
                tax_class=slug,
                quantity=line["quantity"],
                unit=unit,
                taxed=taxed(unit * line["quantity"], rates[slug], inclusive=inclusive),
            )
        )
    shipping_taxed = None
    if shipping:
        shipping_rates: tuple[Rate, ...] = ()
        if tax["shipping_taxable"]:
            shipping_class = tax["shipping_tax_class"]
            shipping_rates = rates_for(
                location, {shipping_class}, shipping=True, config=config, reverse_charge=reverse
            )[shipping_class]
        shipping_taxed = taxed(shipping, shipping_rates, inclusive=inclusive)
    by_rate: dict[int, list] = {}
    for part in [*(q.taxed for q in quoted), *([shipping_taxed] if shipping_taxed else [])]:
        for rate, amount in part.by_rate:
            by_rate.setdefault(rate.id, [rate, 0])[1] += amount
    return Quote(
        location=location,
        vat_number=number,
        reverse_charge=reverse,
        prices_include_tax=inclusive,
        currency=config["currency"]["currency"],
        lines=quoted,
        shipping=shipping_taxed,
        tax_lines=[(rate, amount) for rate, amount in by_rate.values() if amount],
    )


def vat_number_checked(value: str | None) -> VatNumber | None:
    """The customer's VAT number parsed (None when blank); 400 `invalid_vat_number`."""
    cleaned = vat_number_clean(value)
    return vat_numbers.parse(cleaned) if cleaned else None
