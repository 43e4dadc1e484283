"""Tax: classes and rates for staff (capability ec_manage_tax); the calculation, the EU VAT
rates and the countries for everyone. Thin views over store.tax.selectors and services."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from store.common.capabilities import manage
from store.common.money import to_cents
from store.common.pagination import named_page
from store.common.params import validate_body, validate_query
from store.common.permissions import PUBLIC
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.tax import selectors, services

from . import serializers as s

TAG = "Tax"
MANAGE_TAX = manage("tax")
STAFF = {"*": MANAGE_TAX}
PUBLIC_READ = {"GET": PUBLIC, "*": MANAGE_TAX}
CLASS_REF = OpenApiParameter(
    "class_ref", str, OpenApiParameter.PATH, description="The class's id or slug."
)
RATE_ID = OpenApiParameter("rate_id", int, OpenApiParameter.PATH)
CLASS_EXISTS_409 = "Another class has this slug (`tax_class_exists`)."
CLASS_PROTECTED_409 = (
    "The standard class or the shipping tax class: its slug cannot change, it cannot be "
    "deleted (`tax_class_protected`); a class with rates or products (`tax_class_in_use`)."
)
RATE_EXISTS_409 = (
    "A rate of the same class, country, region, postcodes and priority exists (`tax_rate_exists`)."
)


def class_body(tax_class) -> dict:
    usage = selectors.class_usage([tax_class.pk])[tax_class.pk]
    return s.tax_class_data(tax_class, usage)


class TaxClassListView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="List tax classes",
        parameters=[s.TaxClassListQuerySerializer],
        responses={200: s.TaxClassPageSerializer},
        description="`{classes, total, page, per_page, total_pages}` in the classes' order, "
        "each with its rates (all, enabled) and products counted (three queries whatever the "
        "page).",
    )
    def get(self, request):
        query = validate_query(s.TaxClassListQuerySerializer, request.query_params)
        page = selectors.tax_class_page(query)
        usage = selectors.class_usage(c.pk for c in page.items)
        return Response(named_page("classes", page, lambda c: s.tax_class_data(c, usage[c.pk])))

    @store_schema(
        summary="Create a tax class",
        request=s.TaxClassWriteSerializer,
        responses={201: s.TaxClassSerializer},
        errors={409: CLASS_EXISTS_409},
        description="`name` required; `slug` made from it when absent. A product takes a "
        "class in the admin; rates belong to a class. Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.TaxClassWriteSerializer, request.data)
        tax_class = services.tax_class_create(fields=dict(fields))
        return Response(class_body(tax_class), status=status.HTTP_201_CREATED)


class TaxClassDetailView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Read a tax class",
        parameters=[CLASS_REF],
        responses={200: s.TaxClassSerializer},
        errors={404: "No such class (`tax_class_not_found`)."},
    )
    def get(self, request, class_ref):
        return Response(class_body(selectors.tax_class_get(class_ref)))

    @store_schema(
        summary="Update a tax class (partial)",
        parameters=[CLASS_REF],
        request=s.TaxClassWriteSerializer,
        responses={200: s.TaxClassSerializer},
        errors={
            404: "No such class (`tax_class_not_found`).",
            409: f"{CLASS_EXISTS_409} {CLASS_PROTECTED_409}",
        },
        description="Only the fields sent change. The slugs of standard and of the shipping "
        "tax class (setting tax.shipping_tax_class) cannot change.",
    )
    def patch(self, request, class_ref):
        fields = validate_body(s.TaxClassWriteSerializer, request.data, partial=True)
        tax_class = services.tax_class_update(ref=class_ref, fields=dict(fields))
        return Response(class_body(tax_class))

    @store_schema(
        summary="Update a tax class (partial)",
        parameters=[CLASS_REF],
        request=s.TaxClassWriteSerializer,
        responses={200: s.TaxClassSerializer},
        errors={
            404: "No such class (`tax_class_not_found`).",
            409: f"{CLASS_EXISTS_409} {CLASS_PROTECTED_409}",
        },
        description="Same as PATCH.",
    )
    def put(self, request, class_ref):
        return self.patch(request, class_ref)

    @store_schema(
        summary="Delete a tax class",
        parameters=[CLASS_REF],
        responses={204: None},
        errors={404: "No such class (`tax_class_not_found`).", 409: CLASS_PROTECTED_409},
        description="Only a class nothing uses: no rates, no products; never standard or "
        "the shipping tax class (409).",
    )
    def delete(self, request, class_ref):
        services.tax_class_delete(ref=class_ref)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TaxRateListView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="List tax rates",
        parameters=[s.TaxRateListQuerySerializer],
        responses={200: s.TaxRatePageSerializer},
        description="`{rates, total, page, per_page, total_pages}` by class, country, region, "
        "priority. Filters combine: `country` (`*`: the rates of every country), "
        "`tax_class` (slug), `enabled`, `source`, `search`.",
    )
    def get(self, request):
        query = validate_query(s.TaxRateListQuerySerializer, request.query_params)
        return Response(named_page("rates", selectors.tax_rate_page(query), s.tax_rate_data))

    @store_schema(
        summary="Create a tax rate",
        request=s.TaxRateWriteSerializer,
        responses={201: s.TaxRateSerializer},
        errors={409: RATE_EXISTS_409},
        description="`rate` required (percent, 0 to 100). Where it applies: `country` "
        "(blank: everywhere), `region` (an ISO 3166-2 subdivision of that country), "
        "`postcodes` (patterns); 400 naming each unknown one. Applies at once to carts and "
        "/tax/calculate. Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.TaxRateWriteSerializer, request.data)
        rate = services.tax_rate_create(fields=dict(fields))
        return Response(s.tax_rate_data(rate), status=status.HTTP_201_CREATED)


class TaxRateDetailView(StoreResourceView):
    access = STAFF
    openapi_tag = TAG
    resource = "tax rate"
    id_kwarg = "rate_id"
    output_serializer = s.TaxRateSerializer
    write_serializer = s.TaxRateWriteSerializer
    descriptions = {
        "patch": "Only the fields sent change, checked as on create. A rate loaded from the "
        "EU VAT data that is changed (beyond enabling) becomes staff's: the loader leaves it "
        "alone from then on.",
        "put": "Same as PATCH.",
        "delete": "The rate is deleted; carts stop applying it at once.",
    }
    errors = {
        "get": {404: "No such rate (`tax_rate_not_found`)."},
        "patch": {404: "No such rate (`tax_rate_not_found`).", 409: RATE_EXISTS_409},
        "put": {404: "No such rate (`tax_rate_not_found`).", 409: RATE_EXISTS_409},
        "delete": {404: "No such rate (`tax_rate_not_found`)."},
    }

    def read(self, request, pk):
        return s.tax_rate_data(selectors.tax_rate_get(pk))

    def update(self, request, pk, fields):
        services.tax_rate_update(rate_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.tax_rate_delete(rate_id=pk)


class TaxRateToggleView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Enable or disable a tax rate",
        parameters=[RATE_ID],
        request=s.TaxRateToggleSerializer,
        responses={200: s.TaxRateSerializer},
        errors={404: "No such rate (`tax_rate_not_found`)."},
        description="`{enabled: true|false}` sets it; an empty body turns it the other way. "
        "Answers the rate.",
    )
    def post(self, request, rate_id):
        fields = validate_body(s.TaxRateToggleSerializer, request.data or {})
        rate = services.tax_rate_toggle(rate_id=rate_id, enabled=fields.get("enabled"))
        return Response(s.tax_rate_data(rate))


class TaxCalculateView(StoreAPIView):
    access = {"*": PUBLIC}
    openapi_tag = TAG

    @store_schema(
        summary="Calculate tax for an address and lines",
        request=s.CalculateSerializer,
        responses={200: s.TaxQuoteSerializer},
        description="The tax a cart would charge for these lines (and an optional shipping "
        "cost) at this address: the cart's own rule (rates by class and place, prices with "
        "or without tax per tax.prices_include_tax, rounded per line), without a cart. A "
        "`vat_number` valid per python-stdnum, of an EU member state other than the store's, "
        "with tax.eu_reverse_charge on: no tax and `reverse_charge: true`. `address` is the "
        "cart's shipping address (country, region or `state`, postcode; 400 naming a bad or "
        "unknown key). 400 `invalid_vat_number`; 400 naming a line whose product cannot be "
        "bought or whose class is unknown.",
    )
    def post(self, request):
        body = validate_body(s.CalculateSerializer, request.data)
        address = body.get("address") or {}
        quote = selectors.tax_quote(
            country=address.get("country", ""),
            region=address.get("state", ""),
            postcode=address.get("postcode", ""),
            lines=[dict(line) for line in body["lines"]],
            shipping=to_cents(body["shipping"]) if body.get("shipping") is not None else None,
            vat_number=body.get("vat_number", ""),
        )
        return Response(s.quote_data(quote))


class TaxStatsView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Tax counts",
        responses={200: s.TaxStatsSerializer},
        description="Classes and rates counted (enabled, disabled, loaded from the EU VAT "
        "data, entered by staff, worldwide), per class with its products; the countries with "
        "rates; the tax settings; the EU VAT data's date.",
    )
    def get(self, request):
        return Response(selectors.tax_stats())


class EuVatRatesView(StoreAPIView):
    access = PUBLIC_READ
    openapi_tag = TAG

    @store_schema(
        summary="EU VAT rates",
        responses={200: s.EuVatRatesSerializer},
        description="Each EU member state's country-wide standard, reduced (highest first) "
        "and super-reduced rates, from the pinned eu-vat-rates-data library (European "
        "Commission TEDB), with its date and source. `manage.py load_eu_vat_rates` loads them "
        "as the standard and reduced-rate classes' rates.",
    )
    def get(self, request):
        return Response(s.eu_vat_data(selectors.eu_vat_table()))


class TaxCountriesView(StoreAPIView):
    access = PUBLIC_READ
    openapi_tag = TAG

    @store_schema(
        summary="Countries with tax rates, and the EU",
        responses={200: s.TaxCountriesSerializer},
        description="The countries with rates configured and every EU member state, by code: "
        "the name (django-countries), `eu`, the rates there (all, enabled).",
    )
    def get(self, request):
        return Response({"countries": selectors.tax_countries()})
