"""The built-in sections of store settings (spec: Settings, Developer, ...)."""

from __future__ import annotations

import pycountry
from django_countries import countries
from rest_framework import serializers

from store.common.params import StrictBooleanField, StrictCharField, StrictIntegerField
from store.settings.registry import Section, register

CURRENCY_CODES = sorted(currency.alpha_3 for currency in pycountry.currencies)


class StrictChoiceField(serializers.ChoiceField):
    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class GeneralSettings(serializers.Serializer):
    store_name = StrictCharField(max_length=200, default="Emporion Store")
    store_email = serializers.EmailField(default="", allow_blank=True)
    store_country = StrictChoiceField(
        choices=[code for code, _name in countries], default="GR", help_text="ISO 3166-1 alpha-2"
    )
    weight_unit = StrictChoiceField(choices=["kg", "g", "lb", "oz"], default="kg")
    dimension_unit = StrictChoiceField(choices=["m", "cm", "mm", "in", "yd"], default="cm")


class CurrencySettings(serializers.Serializer):
    currency = StrictChoiceField(choices=CURRENCY_CODES, default="EUR", help_text="ISO 4217")
    currency_position = StrictChoiceField(
        choices=["left", "right", "left_space", "right_space"], default="right_space"
    )
    thousand_separator = StrictCharField(
        max_length=3, default=".", allow_blank=True, trim_whitespace=False
    )
    decimal_separator = StrictCharField(max_length=3, default=",", trim_whitespace=False)
    price_decimals = StrictIntegerField(min_value=0, max_value=4, default=2)


class ProductSettings(serializers.Serializer):
    products_per_page = StrictIntegerField(
        min_value=1,
        max_value=100,
        default=20,
        help_text="Default page size of GET /products (the products_per_page hook may change it).",
    )


class InventorySettings(serializers.Serializer):
    out_of_stock_visibility = StrictBooleanField(
        default=True,
        help_text="Off: product lists without stock_status and without a search term leave "
        "out-of-stock products out.",
    )
    stock_display_format = StrictChoiceField(
        choices=["always", "low_amount", "never"],
        default="always",
        help_text="always: show the stock amount; low_amount: only when low; never.",
    )
    low_stock_threshold = StrictIntegerField(min_value=0, max_value=1_000_000, default=2)


class ReviewSettings(serializers.Serializer):
    enabled = StrictBooleanField(default=True, help_text="Shoppers may submit reviews.")
    moderation_required = StrictBooleanField(
        default=True, help_text="New reviews wait for approval before they are published."
    )


class MediaSettings(serializers.Serializer):
    max_upload_size_mb = StrictIntegerField(min_value=1, max_value=64, default=10)
    webp_enabled = StrictBooleanField(default=True)
    avif_enabled = StrictBooleanField(
        default=True, help_text="Used only where the imaging library can write AVIF."
    )
    jpeg_quality = StrictIntegerField(min_value=30, max_value=100, default=85)
    webp_quality = StrictIntegerField(min_value=30, max_value=100, default=80)
    avif_quality = StrictIntegerField(min_value=20, max_value=100, default=60)


class DeveloperSettings(serializers.Serializer):
    api_docs_enabled = StrictBooleanField(
        default=False, help_text="Serve the OpenAPI description at /docs/openapi.json."
    )
    api_playground_enabled = StrictBooleanField(
        default=False, help_text="Serve an interactive API tester at /docs/playground."
    )


GENERAL = register(Section("general", "General", GeneralSettings))
CURRENCY = register(Section("currency", "Currency", CurrencySettings))
PRODUCTS = register(Section("products", "Products", ProductSettings))
INVENTORY = register(Section("inventory", "Inventory", InventorySettings))
REVIEWS = register(Section("reviews", "Reviews", ReviewSettings))
MEDIA = register(Section("media", "Media", MediaSettings))
DEVELOPER = register(Section("developer", "Developer", DeveloperSettings))
