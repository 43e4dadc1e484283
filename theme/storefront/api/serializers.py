"""Storefront bodies, queries and answers (the answers' serializers document the OpenAPI
description; the views build plain dicts)."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.cart_session import CartHintField
from store.common.params import PerPageField, StrictCharField
from theme.storefront.settings_schema import StorefrontSettingsSerializer

# --- Settings -----------------------------------------------------------------------------------


class SettingsBodySerializer(serializers.Serializer):
    settings = StorefrontSettingsSerializer()


# --- Menus --------------------------------------------------------------------------------------


class MenuItemSerializer(serializers.Serializer):
    id = IdField()
    label = serializers.CharField()
    url = serializers.CharField()
    open_in_new_tab = serializers.BooleanField()
    css_class = serializers.CharField()
    children = serializers.ListField(
        child=serializers.DictField(), help_text="Nested items of the same shape (3 levels)."
    )


class MenuSerializer(serializers.Serializer):
    location = serializers.CharField()
    name = serializers.CharField()
    items = MenuItemSerializer(many=True)
    updated_at = serializers.DateTimeField()


# --- Search -------------------------------------------------------------------------------------


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=200, help_text="The search term.")
    per_page = PerPageField(
        cap=20, default=8, help_text="Default 8, at most 20 (larger values are capped)."
    )


class ImageSerializer(serializers.Serializer):
    id = IdField()
    url = serializers.CharField()
    alt = serializers.CharField()


class ProductCardSerializer(serializers.Serializer):
    id = IdField()
    title = serializers.CharField()
    slug = serializers.CharField()
    price = serializers.CharField(allow_null=True)
    regular_price = serializers.CharField(allow_null=True)
    sale_price = serializers.CharField(allow_null=True)
    on_sale = serializers.BooleanField()
    stock_status = serializers.CharField()
    image = serializers.DictField(allow_null=True)


class SearchCategorySerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    parent_id = IdField(allow_null=True)


class SearchProductsSerializer(serializers.Serializer):
    items = ProductCardSerializer(many=True)
    total = IntegerField()


class SearchCategoriesSerializer(serializers.Serializer):
    items = SearchCategorySerializer(many=True)


class SearchResultSerializer(serializers.Serializer):
    query = serializers.CharField()
    per_page = IntegerField()
    products = SearchProductsSerializer()
    categories = SearchCategoriesSerializer()


# --- Wishlist -----------------------------------------------------------------------------------


class WishlistAddSerializer(serializers.Serializer):
    product_id = IdField(help_text="An active product.")
    cart_id = CartHintField()


class WishlistEntrySerializer(serializers.Serializer):
    product_id = IdField()
    added_at = serializers.DateTimeField()
    product = ProductCardSerializer()


class WishlistSerializer(serializers.Serializer):
    items = WishlistEntrySerializer(many=True)
    total = IntegerField()
    max_items = IntegerField()


class WishlistAddedSerializer(serializers.Serializer):
    item = WishlistEntrySerializer()
    created = serializers.BooleanField(help_text="False when it was on the wishlist already.")


class WishlistMembershipSerializer(serializers.Serializer):
    product_id = IdField()
    in_wishlist = serializers.BooleanField()


class WishlistDeletedSerializer(serializers.Serializer):
    deleted = IntegerField(help_text="How many products were removed.")


# --- VAT ----------------------------------------------------------------------------------------


class VatQuerySerializer(serializers.Serializer):
    vat_number = StrictCharField(
        max_length=32, help_text="With its country prefix (EL/GR, DE, ...) or with `country`."
    )
    country = StrictCharField(
        max_length=2, min_length=2, required=False, help_text="ISO 3166-1 alpha-2 (EL: GR)."
    )

    def validate_vat_number(self, value):
        if not value.isascii() or not all(c.isalnum() or c in " .-/" for c in value):
            raise serializers.ValidationError("Letters, digits, spaces, dots and dashes only.")
        return value

    def validate_country(self, value):
        if not value.isascii() or not value.isalpha():
            raise serializers.ValidationError("Two letters.")
        return value.upper()


class VatResultSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    country_code = serializers.CharField(help_text="ISO 3166-1 alpha-2 (Greece: GR).")
    vat_number = serializers.CharField(help_text="Compact, with the VIES prefix (Greece: EL).")
    name = serializers.CharField(help_text="The registered name, when the registry gives it.")
    address = serializers.CharField()
    checked_at = serializers.DateTimeField()
    source = serializers.ChoiceField(
        choices=["format", "sandbox", "aade", "vies"],
        help_text="format: refused by the format check, no registry asked.",
    )


# --- Newsletter ---------------------------------------------------------------------------------


class NewsletterSubscribeSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)


class NewsletterAnswerSerializer(serializers.Serializer):
    status = serializers.CharField()
    message = serializers.CharField()


# --- Icons --------------------------------------------------------------------------------------


class IconSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    category = serializers.CharField()
    keywords = serializers.ListField(child=serializers.CharField())


class IconSetSerializer(serializers.Serializer):
    version = serializers.CharField()
    set = serializers.CharField()
    categories = serializers.ListField(child=serializers.CharField())
    icons = IconSerializer(many=True)
