from functools import cache

import pycountry
from django_countries import countries
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from store.common.capabilities import MANAGE_SETTINGS
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.settings import registry, selectors, services

from . import serializers as s

SECTION_NAMES = ", ".join(f"`{name}`" for name in registry.SECTIONS) or "(none)"


def _section_docs() -> str:
    lines = []
    for section in registry.SECTIONS.values():
        keys = ", ".join(
            f"`{key}` ({type(field).__name__.replace('Strict', '').replace('Field', '').lower()}, "
            f"default `{section.defaults()[key]!r}`)"
            for key, field in section.fields().items()
        )
        lines.append(f"- `{section.name}`: {keys}")
    return "\n".join(lines)


SECTION_VALUES = {
    "type": "object",
    "description": "The section's keys and their values.",
    "additionalProperties": True,
}
ALL_SECTIONS = {
    "type": "object",
    "description": "Every section by name, each an object of its keys and values.",
    "additionalProperties": SECTION_VALUES,
}

SECTION_PARAMETER = OpenApiParameter(
    "section", str, OpenApiParameter.PATH, description="One of the sections listed above."
)


class SettingsBase(StoreAPIView):
    access = {"*": MANAGE_SETTINGS}
    openapi_tag = "Settings"


class SettingsView(SettingsBase):
    @store_schema(
        summary="All store settings, by section",
        responses={200: ALL_SECTIONS},
        description="Sections and keys:\n\n" + _section_docs(),
    )
    def get(self, request):
        return Response(selectors.get_all())


class SettingsSectionView(SettingsBase):
    @store_schema(
        summary="One section of the store settings",
        responses={200: SECTION_VALUES},
        parameters=[SECTION_PARAMETER],
        description="Sections and keys:\n\n" + _section_docs(),
    )
    def get(self, request, section):
        return Response(selectors.get_section(section))

    @store_schema(
        summary="Change some settings of a section",
        request=OpenApiTypes.OBJECT,
        responses={200: SECTION_VALUES},
        parameters=[SECTION_PARAMETER],
        description="Only the keys sent change (PUT and PATCH alike). An unknown key answers "
        "400 `unknown_setting`, a value of the wrong type 400 `invalid_param`; either way "
        "nothing is stored.",
    )
    def patch(self, request, section):
        values = services.settings_update(section=section, values=request.data, user=request.user)
        return Response(values)

    @store_schema(
        summary="Change some settings of a section",
        request=OpenApiTypes.OBJECT,
        responses={200: SECTION_VALUES},
        parameters=[SECTION_PARAMETER],
        description="Same as PATCH.",
    )
    def put(self, request, section):
        return self.patch(request, section)


class SettingsResetView(SettingsBase):
    @store_schema(
        summary="Reset a section to its defaults",
        request=None,
        responses={200: s.ResetAnswerSerializer},
        parameters=[SECTION_PARAMETER],
    )
    def post(self, request, section):
        values = services.settings_reset(section=section, user=request.user)
        return Response(
            {"success": True, "message": f"Settings section {section!r} reset.", "data": values}
        )


@cache
def _currencies() -> list[dict]:
    return sorted(
        ({"code": c.alpha_3, "name": c.name, "numeric": c.numeric} for c in pycountry.currencies),
        key=lambda item: item["code"],
    )


class CurrencyOptionsView(SettingsBase):
    @store_schema(
        summary="ISO 4217 currencies (from pycountry)",
        responses={200: s.CurrencyOptionSerializer(many=True)},
    )
    def get(self, request):
        return Response(_currencies())


class CountryOptionsView(SettingsBase):
    @store_schema(
        summary="ISO 3166-1 countries (from django-countries)",
        responses={200: s.OptionSerializer(many=True)},
    )
    def get(self, request):
        return Response([{"code": code, "name": str(name)} for code, name in countries])
