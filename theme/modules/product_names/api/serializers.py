from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField


class ProductNamesQuerySerializer(serializers.Serializer):
    ids = serializers.CharField(
        max_length=2000, help_text="Comma-separated product ids (at most THEME_PRODUCT_NAMES_MAX)."
    )


class ProductNamesSerializer(serializers.Serializer):
    names = serializers.DictField(
        child=serializers.CharField(), help_text="Product id (as a string) -> title."
    )
    missing = serializers.ListField(child=IdField(), help_text="Ids with no active product.")
