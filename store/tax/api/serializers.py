"""Tax bodies: input serializers (validate only) and the answers' shapes (plain functions, the
serializer classes beside them declaring the same shapes for the OpenAPI description)."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.addresses import DestinationSerializer
from store.common.formats import iso
from store.common.money import MoneyField, from_cents, money_str, to_cents
from store.common.params import (
    PageField,
    PerPageField,
    StrictBooleanField,
    StrictCharField,
    StrictDecimalField,
)
from store.tax.calculation import Taxed
from store.tax.models import STANDARD, TaxClass, TaxRate
from store.tax.selectors import Quote
from store.tax.vat_numbers import MAX_LENGTH as VAT_MAX_LENGTH

MAX_LINES = 100


def percent_str(value) -> str:
    return format(value.normalize(), "f")


# --- Classes -------------------------------------------------------------------------------------


class TaxClassWriteSerializer(serializers.Serializer):
    name = StrictCharField(max_length=100, help_text="Required on create.")
    slug = serializers.SlugField(
        max_length=100,
        required=False,
        help_text="Unique; made from the name when absent. Not all digits (ids are).",
    )
    sort_order = IntegerField(required=False, help_text="Lower first; default 0.")


class TaxClassListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=50, help_text="Default 50, at most 100.")
    search = StrictCharField(required=False, max_length=100, help_text="In the name or slug.")


class TaxClassSerializer(serializers.Serializer):
    id = IdField()
    slug = serializers.CharField()
    name = serializers.CharField()
    sort_order = IntegerField()
    is_default = serializers.BooleanField(help_text="standard: products without a class.")
    rates = IntegerField(help_text="Its rates, enabled or not.")
    enabled_rates = IntegerField()
    products = IntegerField(help_text="Products of this class.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class TaxClassPageSerializer(serializers.Serializer):
    classes = TaxClassSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


def tax_class_data(tax_class: TaxClass, usage: dict) -> dict:
    return {
        "id": tax_class.pk,
        "slug": tax_class.slug,
        "name": tax_class.name,
        "sort_order": tax_class.sort_order,
        "is_default": tax_class.slug == STANDARD,
        **usage,
        "created_at": iso(tax_class.created_at),
        "updated_at": iso(tax_class.updated_at),
    }


# --- Rates ---------------------------------------------------------------------------------------


class TaxRateWriteSerializer(serializers.Serializer):
    tax_class = StrictCharField(
        max_length=100, required=False, help_text="The class's slug; default standard."
    )
    country = StrictCharField(
        max_length=2,
        required=False,
        allow_blank=True,
        help_text="ISO 3166-1 alpha-2 (any case); blank: every country.",
    )
    region = StrictCharField(
        max_length=20,
        required=False,
        allow_blank=True,
        help_text="ISO 3166-2 subdivision code, with or without the country (I or GR-I); "
        "blank: the whole country.",
    )
    postcodes = StrictCharField(
        max_length=2000,
        required=False,
        allow_blank=True,
        help_text="Patterns, comma-separated or one per line: 10431, 104*, 10000...19999; "
        "blank: any postcode.",
    )
    rate = StrictDecimalField(
        max_digits=7,
        decimal_places=4,
        min_value=0,
        max_value=100,
        help_text='Percent, 0 to 100, up to 4 places (24, "25.5"). Required on create.',
    )
    name = StrictCharField(
        max_length=100, required=False, allow_blank=True, help_text="Label on receipts: VAT."
    )
    priority = IntegerField(
        min_value=1,
        max_value=100,
        required=False,
        help_text="Per priority the closest rate applies; rates of different priorities add "
        "up (GST + PST). Default 1.",
    )
    applies_to_shipping = StrictBooleanField(required=False, help_text="Default true.")
    enabled = StrictBooleanField(required=False, help_text="Default true.")


class TaxRateListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")
    country = StrictCharField(
        required=False, max_length=2, help_text="ISO code; `*` for the rates of every country."
    )
    tax_class = StrictCharField(required=False, max_length=100, help_text="A class's slug.")
    enabled = serializers.BooleanField(required=False, allow_null=True, default=None)
    source = serializers.ChoiceField(
        choices=["", "eu_vat"],
        required=False,
        help_text="eu_vat: loaded from the EU VAT data; empty: entered by staff.",
    )
    search = StrictCharField(
        required=False, max_length=100, help_text="In the name or postcodes, or the region."
    )

    def validate_country(self, value: str) -> str:
        return value.strip().upper()


class TaxRateToggleSerializer(serializers.Serializer):
    enabled = StrictBooleanField(
        required=False, help_text="The state wanted; absent: the opposite of the current one."
    )


class TaxRateSerializer(serializers.Serializer):
    id = IdField()
    tax_class = serializers.CharField(help_text="The class's slug.")
    tax_class_id = IdField()
    country = serializers.CharField(help_text="Blank: every country.")
    region = serializers.CharField()
    postcodes = serializers.ListField(child=serializers.CharField())
    rate = serializers.CharField(help_text='Percent, a decimal string: "24", "25.5".')
    name = serializers.CharField()
    priority = IntegerField()
    applies_to_shipping = serializers.BooleanField()
    enabled = serializers.BooleanField()
    source = serializers.CharField(help_text="eu_vat: loaded from the EU VAT data; blank: staff.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class TaxRatePageSerializer(serializers.Serializer):
    rates = TaxRateSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


def tax_rate_data(rate: TaxRate) -> dict:
    return {
        "id": rate.pk,
        "tax_class": rate.tax_class.slug,
        "tax_class_id": rate.tax_class_id,
        "country": rate.country,
        "region": rate.region,
        "postcodes": [p for p in rate.postcodes.splitlines() if p],
        "rate": percent_str(rate.rate),
        "name": rate.name,
        "priority": rate.priority,
        "applies_to_shipping": rate.applies_to_shipping,
        "enabled": rate.enabled,
        "source": rate.source,
        "created_at": iso(rate.created_at),
        "updated_at": iso(rate.updated_at),
    }


# --- Calculate -----------------------------------------------------------------------------------


class CalculateLineSerializer(serializers.Serializer):
    product_id = IdField(
        required=False, help_text="A product (its price and tax class, as the cart takes them)."
    )
    variant_id = IdField(
        required=False, allow_null=True, help_text="Required for a variable product."
    )
    amount = MoneyField(
        required=False,
        max_digits=12,
        help_text="Instead of a product: a unit price, with or without tax as the store's "
        "prices are entered (tax.prices_include_tax).",
    )
    tax_class = StrictCharField(
        required=False, max_length=100, help_text="With `amount`: the class's slug (standard)."
    )
    quantity = IntegerField(min_value=1, max_value=1_000_000, required=False, default=1)

    def validate(self, attrs):
        if ("product_id" in attrs) == ("amount" in attrs):
            raise serializers.ValidationError("Give either product_id or amount.")
        if "product_id" in attrs and "tax_class" in attrs:
            raise serializers.ValidationError("A product line takes its product's tax class.")
        if "amount" in attrs:
            attrs["amount"] = to_cents(attrs["amount"])
            attrs.setdefault("tax_class", STANDARD)
        return attrs


class CalculateSerializer(serializers.Serializer):
    address = DestinationSerializer(
        required=False,
        help_text="Where the customer is: country (required), region (or `state`), postcode, "
        "as the cart's shipping address takes them. Absent: the store's country. With "
        "tax.tax_based_on=base the store's country always.",
    )
    lines = CalculateLineSerializer(many=True, allow_empty=False, max_length=MAX_LINES)
    shipping = MoneyField(
        required=False,
        max_digits=12,
        help_text="A shipping cost (as entered), taxed at the shipping tax class when "
        "shipping is taxable.",
    )
    vat_number = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=VAT_MAX_LENGTH,
        help_text="The customer's EU VAT number with its country prefix (checked with "
        "python-stdnum: 400 `invalid_vat_number`). With tax.eu_reverse_charge on and a "
        "member state other than the store's: no tax (`reverse_charge: true`).",
    )


class RateAmountSerializer(serializers.Serializer):
    rate_id = IdField()
    label = serializers.CharField()
    rate = serializers.CharField()
    amount = serializers.CharField()


class TaxedSerializer(serializers.Serializer):
    amount = serializers.CharField(help_text="As entered (unit x quantity).")
    net = serializers.CharField(help_text="Without tax.")
    tax = serializers.CharField()
    gross = serializers.CharField(help_text="With tax.")
    rates = RateAmountSerializer(many=True)


class QuoteLineSerializer(TaxedSerializer):
    index = IntegerField()
    product_id = IdField(allow_null=True)
    variant_id = IdField(allow_null=True)
    tax_class = serializers.CharField()
    quantity = IntegerField()
    unit = serializers.CharField()


class LocationSerializer(serializers.Serializer):
    country = serializers.CharField()
    region = serializers.CharField()
    postcode = serializers.CharField()


class TaxQuoteSerializer(serializers.Serializer):
    location = LocationSerializer(help_text="Where tax was reckoned.")
    vat_number = serializers.CharField(allow_null=True)
    reverse_charge = serializers.BooleanField()
    prices_include_tax = serializers.BooleanField()
    currency = serializers.CharField()
    lines = QuoteLineSerializer(many=True)
    shipping = TaxedSerializer(allow_null=True)
    subtotal = serializers.CharField(help_text="The lines without tax.")
    subtotal_tax = serializers.CharField()
    shipping_tax = serializers.CharField()
    tax = serializers.CharField(help_text="subtotal_tax + shipping_tax.")
    total = serializers.CharField(help_text="Lines and shipping with tax.")
    tax_lines = RateAmountSerializer(many=True, help_text="Per rate, as the cart's.")


def _money(cents: int) -> str:
    return money_str(from_cents(cents))


def rate_amounts(pairs) -> list[dict]:
    return [
        {
            "rate_id": rate.id,
            "label": rate.label,
            "rate": percent_str(rate.percent),
            "amount": _money(amount),
        }
        for rate, amount in pairs
    ]


def _taxed(part: Taxed) -> dict:
    return {
        "amount": _money(part.amount),
        "net": _money(part.net),
        "tax": _money(part.tax),
        "gross": _money(part.gross),
        "rates": rate_amounts(part.by_rate),
    }


def quote_data(quote: Quote) -> dict:
    location = quote.location
    return {
        "location": {
            "country": location.country,
            "region": location.region,
            "postcode": location.postcode,
        },
        "vat_number": quote.vat_number.number if quote.vat_number else None,
        "reverse_charge": quote.reverse_charge,
        "prices_include_tax": quote.prices_include_tax,
        "currency": quote.currency,
        "lines": [
            {
                "index": index,
                "product_id": line.product_id,
                "variant_id": line.variant_id,
                "tax_class": line.tax_class,
                "quantity": line.quantity,
                "unit": _money(line.unit),
                **_taxed(line.taxed),
            }
            for index, line in enumerate(quote.lines)
        ],
        "shipping": _taxed(quote.shipping) if quote.shipping else None,
        "subtotal": _money(quote.subtotal),
        "subtotal_tax": _money(quote.subtotal_tax),
        "shipping_tax": _money(quote.shipping.tax if quote.shipping else 0),
        "tax": _money(quote.tax),
        "total": _money(quote.total),
        "tax_lines": rate_amounts(quote.tax_lines),
    }


# --- Stats, EU VAT rates, countries ---------------------------------------------------------------


class RateCountsSerializer(serializers.Serializer):
    total = IntegerField()
    enabled = IntegerField()
    disabled = IntegerField()
    eu_vat = IntegerField(help_text="Loaded from the EU VAT data.")
    by_staff = IntegerField()
    worldwide = IntegerField(help_text="Rates for every country (blank country).")


class ClassCountsSerializer(serializers.Serializer):
    id = IdField()
    slug = serializers.CharField()
    name = serializers.CharField()
    rates = IntegerField()
    enabled_rates = IntegerField()
    products = IntegerField()


class TaxSettingsShapeSerializer(serializers.Serializer):
    enabled = serializers.BooleanField()
    prices_include_tax = serializers.BooleanField()
    tax_based_on = serializers.CharField()
    eu_reverse_charge = serializers.BooleanField()


class DataVersionSerializer(serializers.Serializer):
    as_of = serializers.CharField()
    source = serializers.CharField()


class TaxStatsSerializer(serializers.Serializer):
    classes = IntegerField()
    rates = RateCountsSerializer()
    countries_with_rates = IntegerField()
    by_class = ClassCountsSerializer(many=True)
    products_with_class = IntegerField()
    settings = TaxSettingsShapeSerializer()
    store_country = serializers.CharField()
    eu_vat_data = DataVersionSerializer()


class EuCountryRatesSerializer(serializers.Serializer):
    country = serializers.CharField()
    name = serializers.CharField()
    standard = serializers.CharField()
    reduced = serializers.ListField(child=serializers.CharField(), help_text="Highest first.")
    super_reduced = serializers.ListField(child=serializers.CharField())


class EuVatRatesSerializer(serializers.Serializer):
    as_of = serializers.CharField(help_text="The data's date (ISO).")
    source = serializers.CharField()
    description = serializers.CharField()
    countries = EuCountryRatesSerializer(many=True)


def eu_vat_data(table: dict) -> dict:
    return {
        "as_of": table["as_of"],
        "source": table["source"],
        "description": table["description"],
        "countries": [
            {
                "country": entry["country"],
                "name": entry["name"],
                "standard": percent_str(entry["standard"]),
                "reduced": [percent_str(p) for p in entry["reduced"]],
                "super_reduced": [percent_str(p) for p in entry["super_reduced"]],
            }
            for entry in table["countries"]
        ],
    }


class TaxCountrySerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    eu = serializers.BooleanField(help_text="An EU member state.")
    rates = IntegerField()
    enabled_rates = IntegerField()


class TaxCountriesSerializer(serializers.Serializer):
    countries = TaxCountrySerializer(many=True)
