"""VAT-number registries (theme.storefront.services.vat_validate picks one per country):
Greek numbers go to AADE's registry when its lookup credentials are set, else to VIES (which
also answers for Greece); other EU numbers to VIES. settings.THEME_VAT_PROVIDER "sandbox"
(the default in development and tests) answers every country from the sandbox instead."""

from __future__ import annotations

from django.conf import settings

from theme.storefront.vat.aade import AadeProvider
from theme.storefront.vat.base import BadAnswer, Result, Unavailable, VatProvider
from theme.storefront.vat.sandbox import SandboxProvider
from theme.storefront.vat.vies import ViesProvider

__all__ = ["BadAnswer", "Result", "Unavailable", "VatProvider", "provider_for"]


def provider_for(country_code: str) -> VatProvider:
    if settings.THEME_VAT_PROVIDER == "sandbox":
        return SandboxProvider()
    if country_code == "GR" and settings.THEME_VAT_AADE_USERNAME:
        return AadeProvider()
    return ViesProvider()
