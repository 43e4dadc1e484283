"""Shipping: zones and their methods for staff (capability ec_manage_shipping), the public
calculation for an address and lines, and the country list: thin views over
store.shipping.selectors and services."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from store.common.capabilities import manage
from store.common.pagination import named_page
from store.common.params import validate_body, validate_query
from store.common.permissions import PUBLIC
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.shipping import selectors, services, types

from . import serializers as s

TAG = "Shipping"
MANAGE_SHIPPING = manage("shipping")
STAFF = {"*": MANAGE_SHIPPING}
ZONE_ID = OpenApiParameter("zone_id", int, OpenApiParameter.PATH)
FALLBACK_409 = "There is already a fallback zone (`fallback_zone_exists`)."
ZONE_404 = "No such zone (`shipping_zone_not_found`)."


def zone_body(zone_id: int) -> dict:
    return s.zone_data(selectors.zone_get(zone_id))


class ZonesView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="List shipping zones",
        parameters=[s.ShippingPageQuerySerializer],
        responses={200: s.ShippingZonePageSerializer},
        description="`{zones, total, page, per_page, total_pages}` in matching order (the "
        "fallback zone last), each with its regions and every method.",
    )
    def get(self, request):
        query = validate_query(s.ShippingPageQuerySerializer, request.query_params)
        page = selectors.zone_page(page=query["page"], per_page=query["per_page"])
        return Response(named_page("zones", page, s.zone_data))

    @store_schema(
        summary="Create a shipping zone",
        request=s.ShippingZoneWriteSerializer,
        responses={201: s.ShippingZoneSerializer},
        errors={409: FALLBACK_409},
        description="`name` required; `regions` [{type, code}]: countries (GR), regions "
        "(GR:I, US-CA), postcode patterns (10431, 104*, 10000...19999), each checked (400 "
        "naming `regions.<i>.code`). Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.ShippingZoneWriteSerializer, request.data)
        zone = services.zone_create(fields=dict(fields))
        return Response(zone_body(zone.pk), status=status.HTTP_201_CREATED)


class ZoneDetailView(StoreResourceView):
    access = STAFF
    openapi_tag = TAG
    resource = "shipping zone"
    id_kwarg = "zone_id"
    output_serializer = s.ShippingZoneSerializer
    write_serializer = s.ShippingZoneWriteSerializer
    descriptions = {
        "get": "The zone with its regions and every method.",
        "patch": "Only the fields sent change; `regions` replaces the zone's regions.",
        "put": "Same as PATCH.",
        "delete": "The zone goes with its regions and methods; carts that chose one of its "
        "methods fall back to the first available one.",
    }
    errors = {"patch": {409: FALLBACK_409}, "put": {409: FALLBACK_409}}

    def read(self, request, pk):
        return zone_body(pk)

    def update(self, request, pk, fields):
        services.zone_update(zone_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.zone_delete(zone_id=pk)


class ZonesReorderView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Reorder shipping zones",
        request=s.ShippingReorderSerializer,
        responses={200: s.ShippingZoneListSerializer},
        description="`ids`: zones in the order they are tried; the zones not named follow in "
        "their order (the fallback zone is always tried last). One transaction: an unknown or "
        "repeated id (400 `invalid_param` naming `ids`) changes nothing. Answers every zone "
        "in the new order.",
    )
    def post(self, request):
        body = validate_body(s.ShippingReorderSerializer, request.data)
        services.zones_reorder(ids=body["ids"])
        return Response({"zones": [s.zone_data(zone) for zone in selectors.all_zones_ordered()]})


class ZoneMethodsView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="List a zone's shipping methods",
        parameters=[ZONE_ID, s.ShippingPageQuerySerializer],
        responses={200: s.ShippingMethodPageSerializer},
        description="`{methods, total, page, per_page, total_pages}` in order, enabled or not.",
    )
    def get(self, request, zone_id):
        query = validate_query(s.ShippingPageQuerySerializer, request.query_params)
        page = selectors.method_page(zone_id, page=query["page"], per_page=query["per_page"])
        return Response(named_page("methods", page, s.method_data))

    @store_schema(
        summary="Add a shipping method to a zone",
        parameters=[ZONE_ID],
        request=s.ShippingMethodWriteSerializer,
        responses={201: s.ShippingMethodSerializer},
        description="`type` (GET /shipping/method-types) and `title` required; `settings` are "
        "checked against the type's settings_schema (400 naming `settings.<key>`). Send an "
        "Idempotency-Key to retry safely.",
    )
    def post(self, request, zone_id):
        fields = validate_body(s.ShippingMethodWriteSerializer, request.data)
        method = services.method_create(zone_id=zone_id, fields=dict(fields))
        return Response(s.method_data(method), status=status.HTTP_201_CREATED)


class MethodDetailView(StoreResourceView):
    access = STAFF
    openapi_tag = TAG
    resource = "shipping method"
    id_kwarg = "method_id"
    output_serializer = s.ShippingMethodSerializer
    write_serializer = s.ShippingMethodUpdateSerializer
    descriptions = {
        "patch": "Only the fields sent change. `settings` keys sent replace the current ones "
        "while the type stays; a new `type` starts from its defaults. `zone_id` moves it.",
        "put": "Same as PATCH.",
        "delete": "Carts that chose it fall back to the first available method.",
    }
    errors = {
        "patch": {404: "No such method or zone (`shipping_zone_not_found`)."},
        "put": {404: "No such method or zone (`shipping_zone_not_found`)."},
    }

    def read(self, request, pk):
        return s.method_data(selectors.method_get(pk))

    def update(self, request, pk, fields):
        services.method_update(method_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.method_delete(method_id=pk)


class CalculateView(StoreAPIView):
    access = {"POST": PUBLIC}
    openapi_tag = TAG

    @store_schema(
        summary="Calculate shipping for an address and lines",
        request=s.ShippingCalculateSerializer,
        responses={200: s.ShippingCalculationSerializer},
        errors={
            404: "A product or variant does not exist (`product_not_found`, `variant_not_found`)."
        },
        description="Without a cart: the first zone matching `address` and each of its "
        "methods available for `lines` ({product_id, variant_id, quantity}), with its cost and "
        "tax: the very calculation of GET /cart/shipping-methods (the items' prices as "
        "entered; a `coupon` counts for its free shipping only). `address` is the cart's "
        "shipping address (country, region or `state`, postcode; 400 naming a bad or unknown "
        "key). Refusals as the cart's: "
        "`variant_required`, `not_variable_product`, `product_not_purchasable`, "
        "`coupon_not_found`, `coupon_disabled`, `coupon_expired`.",
    )
    def post(self, request):
        body = validate_body(s.ShippingCalculateSerializer, request.data)
        result = selectors.calculate(
            address=body["address"], lines=body["lines"], coupon=body.get("coupon")
        )
        return Response(s.calculation_data(result))


class CountriesView(StoreAPIView):
    access = {"GET": PUBLIC}
    openapi_tag = TAG

    @store_schema(
        summary="Countries and their subdivisions",
        parameters=[s.ShippingCountriesQuerySerializer],
        responses={200: s.ShippingCountriesSerializer},
        description="ISO 3166-1 countries (django-countries) with their subdivision count; "
        "with `subdivisions=true` each country's ISO 3166-2 subdivisions (pycountry), written "
        "as a zone's region code (GR:I). `country` narrows the list (comma-separated).",
    )
    def get(self, request):
        query = validate_query(s.ShippingCountriesQuerySerializer, request.query_params)
        return Response(
            {
                "countries": selectors.country_list(
                    codes=query.get("country"), subdivisions=query["subdivisions"]
                )
            }
        )


class StatsView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Shipping counts",
        responses={200: s.ShippingStatsSerializer},
        description="Zones (total, whether a fallback exists, zones matching nothing), methods "
        "(total, enabled, disabled; by type with the orders that used the type) and the "
        "orders that used each method (most used first, at most 100; a deleted method's "
        "orders with `exists: false`).",
    )
    def get(self, request):
        return Response(selectors.shipping_stats())


class MethodTypesView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Shipping method types and their settings",
        responses={200: s.ShippingMethodTypesSerializer},
        description="Flat rate, free shipping, weight-based, local pickup: each with a "
        "JSON-schema-like `settings_schema`, the one methods' settings are checked against.",
    )
    def get(self, request):
        return Response({"method_types": types.method_types()})
