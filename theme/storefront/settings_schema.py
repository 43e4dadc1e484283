"""The storefront theme settings: keys, types and defaults, declared in code (as the store's
settings sections, store.settings.registry). Every field has a default; stored values are
checked against this declaration when written and again when read."""

from __future__ import annotations

import re

from rest_framework import serializers

from store.common.params import StrictBooleanField, StrictCharField, StrictIntegerField
from store.settings import registry

HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


class StrictChoiceField(serializers.ChoiceField):
    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class ColourField(StrictCharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 7)
        kwargs.setdefault("help_text", "A colour, #rrggbb.")
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not HEX_COLOUR.match(value):
            raise serializers.ValidationError("Use a colour written #rrggbb.")
        return value.lower()


class LinkField(StrictCharField):
    """https://... or a site path starting with a single /; blank allowed."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 500)
        kwargs.setdefault("allow_blank", True)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if value and not is_safe_link(value):
            raise serializers.ValidationError("Use an https:// or http:// address, or a /path.")
        return value


def is_safe_link(value: str) -> bool:
    """An http(s) address or a site path: never javascript:, data: or a scheme-relative //."""
    if any(ord(c) < 32 or c.isspace() for c in value):
        return False
    if value.startswith("/"):
        return not value.startswith("//") and "\\" not in value
    return bool(re.match(r"^https?://[^/\s]+", value, re.IGNORECASE))


class StorefrontSettingsSerializer(serializers.Serializer):
    site_title = StrictCharField(max_length=120, default="Emporion")
    tagline = StrictCharField(max_length=200, default="", allow_blank=True)
    logo_url = LinkField(default="")
    favicon_url = LinkField(default="")
    primary_color = ColourField(default="#1f2937")
    accent_color = ColourField(default="#2563eb")
    font_family = StrictChoiceField(
        choices=["system", "inter", "roboto", "open-sans", "lato", "merriweather"],
        default="system",
    )
    header_layout = StrictChoiceField(choices=["classic", "centered", "minimal"], default="classic")
    products_per_row = StrictIntegerField(min_value=2, max_value=6, default=4)
    show_search = StrictBooleanField(default=True)
    show_wishlist = StrictBooleanField(default=True)
    show_newsletter = StrictBooleanField(default=True)
    announcement_enabled = StrictBooleanField(default=False)
    announcement_text = StrictCharField(max_length=300, default="", allow_blank=True)
    footer_text = StrictCharField(max_length=500, default="", allow_blank=True)
    facebook_url = LinkField(default="")
    instagram_url = LinkField(default="")


def fields() -> dict[str, serializers.Field]:
    return registry.bound_fields(StorefrontSettingsSerializer)


def defaults() -> dict:
    return registry.defaults_of(fields())


def signature() -> str:
    """The declared keys, short: cached values of a release with other keys are not read."""
    import hashlib

    return hashlib.sha256(",".join(sorted(fields())).encode()).hexdigest()[:12]
