"""Bodies of the Shipping routes: what they take and what they answer (the builders beside the
declarations)."""

from __future__ import annotations

from django_countries import countries
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.api.fields import IdField, IntegerField, RowListSerializer
from store.common.addresses import DestinationSerializer
from store.common.formats import iso
from store.common.money import from_cents, money_str
from store.common.params import (
    CaseInsensitiveChoiceField,
    PageField,
    PerPageField,
    StrictBooleanField,
    StrictCharField,
)
from store.shipping import selectors, types
from store.shipping.models import LocationType, MethodType, ShippingMethod, ShippingZone
from store.shipping.shapes import QuoteSerializer, quote_data

# --- Input ---------------------------------------------------------------------------------------


class ShippingPageQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=50, help_text="Default 50, at most 100.")


# A pattern, not an enum: drf-spectacular names enums by field and `type` names other choice
# sets elsewhere in the store's description.
REGION_TYPE_SCHEMA = {
    "type": "string",
    "pattern": "^(" + "|".join(LocationType.values) + ")$",
    "description": "country, region (a state or other subdivision) or postcode.",
}


@extend_schema_field(REGION_TYPE_SCHEMA)
class RegionTypeField(CaseInsensitiveChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=LocationType.choices, **kwargs)


class ShippingRegionInSerializer(serializers.Serializer):
    type = RegionTypeField(
        help_text="country (ISO 3166-1 alpha-2: GR), region (a state or other ISO 3166-2 "
        "subdivision, COUNTRY:CODE: GR:I, US:CA) or postcode (a pattern: 10431, 104* or the "
        "range 10000...19999).",
    )
    code = StrictCharField(max_length=100)

    class Meta:
        list_serializer_class = RowListSerializer


class ShippingZoneWriteSerializer(serializers.Serializer):
    name = StrictCharField(max_length=200)
    sort_order = IntegerField(required=False, help_text="Default: after the last zone.")
    is_fallback = StrictBooleanField(
        required=False,
        help_text="Everywhere else: takes every address no other zone matches, tried last; "
        "it has no regions. One at most.",
    )
    regions = ShippingRegionInSerializer(
        many=True,
        required=False,
        max_length=1000,
        help_text="Replaces the zone's regions. A zone matches an address when one of its "
        "countries or regions does (or it has none) and one of its postcode patterns does (or "
        "it has none); a zone without regions matches nothing.",
    )


class ShippingReorderSerializer(serializers.Serializer):
    ids = serializers.ListField(
        child=IdField(),
        min_length=1,
        max_length=1000,
        help_text="Zone ids in the order wanted; zones not named follow in their order.",
    )


class ShippingMethodWriteSerializer(serializers.Serializer):
    type = CaseInsensitiveChoiceField(
        choices=MethodType.choices, help_text="One of GET /shipping/method-types."
    )
    title = StrictCharField(max_length=200)
    description = StrictCharField(max_length=500, required=False, allow_blank=True)
    enabled = StrictBooleanField(required=False)
    sort_order = IntegerField(required=False, help_text="Default: after the zone's last method.")
    taxable = StrictBooleanField(required=False, help_text="Shipping tax applies (default).")
    settings = serializers.DictField(
        required=False,
        help_text="The type's settings (GET /shipping/method-types: settings_schema); missing "
        "keys take their defaults (on update: their current values, when the type stays).",
    )


class ShippingMethodUpdateSerializer(ShippingMethodWriteSerializer):
    zone_id = IdField(required=False, help_text="Move the method to another zone.")


class ShippingCalculateLineSerializer(serializers.Serializer):
    product_id = IdField()
    variant_id = IdField(required=False, allow_null=True)
    quantity = IntegerField(min_value=1, max_value=100_000, required=False, default=1)

    class Meta:
        list_serializer_class = RowListSerializer


class ShippingCalculateSerializer(serializers.Serializer):
    address = DestinationSerializer(
        help_text="Where to: country (required), region (or `state`), postcode, as the cart's "
        "shipping address takes them."
    )
    lines = ShippingCalculateLineSerializer(many=True, min_length=1, max_length=100)
    coupon = StrictCharField(
        max_length=100,
        required=False,
        allow_blank=True,
        help_text="A coupon code: counts for its free shipping only.",
    )


class ShippingCountriesQuerySerializer(serializers.Serializer):
    country = serializers.CharField(
        required=False,
        max_length=1000,
        help_text="Only these countries (ISO 3166-1 alpha-2, comma-separated).",
    )
    subdivisions = serializers.BooleanField(
        required=False, default=False, help_text="With each country's subdivisions."
    )

    def validate_country(self, value):
        codes = [code.strip().upper() for code in value.split(",") if code.strip()]
        wrong = [code for code in codes if code not in countries]
        if wrong:
            raise serializers.ValidationError(
                f"Unknown country code(s) {', '.join(c[:10] for c in wrong[:10])}."
            )
        return list(dict.fromkeys(codes))


# --- Output --------------------------------------------------------------------------------------


def region_data(location) -> dict:
    if location.type == LocationType.COUNTRY:
        name = selectors.country_name(location.code)
    elif location.type == LocationType.REGION:
        country, _, code = location.code.partition(":")
        sub = selectors.subdivision_name(country, code)
        name = f"{sub}, {selectors.country_name(country)}" if sub else location.code
    else:
        name = None
    return {"type": location.type, "code": location.code, "name": name}


def method_data(method: ShippingMethod) -> dict:
    return {
        "id": method.pk,
        "zone_id": method.zone_id,
        "type": method.type,
        "title": method.title,
        "description": method.description,
        "enabled": method.enabled,
        "sort_order": method.sort_order,
        "taxable": method.taxable,
        "settings": types.settings_of(method),
        "created_at": iso(method.created_at),
        "updated_at": iso(method.updated_at),
    }


def zone_data(zone: ShippingZone) -> dict:
    return {
        "id": zone.pk,
        "name": zone.name,
        "sort_order": zone.sort_order,
        "is_fallback": zone.is_fallback,
        "regions": [region_data(location) for location in zone.locations.all()],
        "methods": [method_data(method) for method in zone.methods.all()],
        "created_at": iso(zone.created_at),
        "updated_at": iso(zone.updated_at),
    }


def calculation_data(result: selectors.Calculation) -> dict:
    zone = result.shipping.zone
    location = result.location
    return {
        "zone": {"id": zone.pk, "name": zone.name} if zone is not None else None,
        "location": {
            "country": location.country,
            "region": location.region,
            "postcode": location.postcode,
        },
        "package": {
            "items_total": money_str(from_cents(result.package.items_total)),
            "item_count": result.package.item_count,
            "weight": format(result.package.weight.normalize(), "f"),
            "free_shipping_coupon": result.package.free_shipping_coupon,
        },
        "methods": [quote_data(quote) for quote in result.shipping.quotes],
        "prices_include_tax": result.config["tax"]["prices_include_tax"],
        "currency": result.config["currency"]["currency"],
    }


# --- Declarations for the OpenAPI description ----------------------------------------------------


class ShippingRegionSerializer(serializers.Serializer):
    type = RegionTypeField()
    code = serializers.CharField()
    name = serializers.CharField(allow_null=True, help_text="Country (and subdivision) name.")


class ShippingMethodSerializer(serializers.Serializer):
    id = IdField()
    zone_id = IdField()
    type = serializers.ChoiceField(choices=MethodType.choices)
    title = serializers.CharField()
    description = serializers.CharField()
    enabled = serializers.BooleanField()
    sort_order = IntegerField()
    taxable = serializers.BooleanField()
    settings = serializers.DictField(help_text="As the type's settings_schema describes.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class ShippingZoneSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    sort_order = IntegerField()
    is_fallback = serializers.BooleanField()
    regions = ShippingRegionSerializer(many=True)
    methods = ShippingMethodSerializer(many=True, help_text="Every method, in order.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class ShippingPageFields(serializers.Serializer):
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


class ShippingZonePageSerializer(ShippingPageFields):
    zones = ShippingZoneSerializer(many=True)


class ShippingMethodPageSerializer(ShippingPageFields):
    methods = ShippingMethodSerializer(many=True)


class ShippingZoneListSerializer(serializers.Serializer):
    zones = ShippingZoneSerializer(many=True, help_text="Every zone, in matching order.")


class ShippingMethodTypeSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=MethodType.choices)
    title = serializers.CharField()
    description = serializers.CharField()
    settings_schema = serializers.DictField(help_text="JSON-schema-like: the settings it takes.")


class ShippingMethodTypesSerializer(serializers.Serializer):
    method_types = ShippingMethodTypeSerializer(many=True)


class ShippingSubdivisionSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="ISO 3166-2 without the country (I).")
    region = serializers.CharField(help_text="As a zone's region code (GR:I).")
    name = serializers.CharField()
    type = serializers.CharField()
    parent = serializers.CharField(allow_null=True)


class ShippingCountrySerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    subdivision_count = IntegerField()
    subdivisions = ShippingSubdivisionSerializer(
        many=True, allow_null=True, help_text="With subdivisions=true; else null."
    )


class ShippingCountriesSerializer(serializers.Serializer):
    countries = ShippingCountrySerializer(many=True)


class ShippingZoneRef(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()


class ShippingCalculatedDestination(serializers.Serializer):
    country = serializers.CharField()
    region = serializers.CharField()
    postcode = serializers.CharField()


class ShippingPackage(serializers.Serializer):
    items_total = serializers.CharField()
    item_count = IntegerField()
    weight = serializers.CharField(help_text="In the store's weight unit.")
    free_shipping_coupon = serializers.BooleanField()


class ShippingCalculationSerializer(serializers.Serializer):
    zone = ShippingZoneRef(allow_null=True, help_text="The first zone matching the address.")
    location = ShippingCalculatedDestination()
    package = ShippingPackage()
    methods = QuoteSerializer(many=True)
    prices_include_tax = serializers.BooleanField()
    currency = serializers.CharField()


class ShippingTypeCounts(serializers.Serializer):
    total = IntegerField()
    enabled = IntegerField()
    orders = IntegerField()


class ShippingMethodUsage(serializers.Serializer):
    method_id = IntegerField()
    type = serializers.CharField()
    orders = IntegerField()
    title = serializers.CharField(allow_null=True)
    zone_id = IntegerField(allow_null=True)
    exists = serializers.BooleanField(help_text="False for a method since deleted.")


class ShippingZoneCounts(serializers.Serializer):
    total = IntegerField()
    fallback = serializers.BooleanField()
    without_regions = IntegerField(help_text="Zones (not the fallback) that match nothing.")


class ShippingMethodCounts(serializers.Serializer):
    total = IntegerField()
    enabled = IntegerField()
    disabled = IntegerField()
    by_type = serializers.DictField(child=ShippingTypeCounts())


class ShippingOrderCounts(serializers.Serializer):
    with_shipping = IntegerField()
    by_method = ShippingMethodUsage(many=True)


class ShippingStatsSerializer(serializers.Serializer):
    zones = ShippingZoneCounts()
    methods = ShippingMethodCounts()
    orders = ShippingOrderCounts()
