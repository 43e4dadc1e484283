from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from theme.modules.api.serializers import ModuleProductCardSerializer


class BundleItemSerializer(serializers.Serializer):
    product_id = IdField()
    quantity = IntegerField()
    product = ModuleProductCardSerializer()


class BundleSerializer(serializers.Serializer):
    id = IdField()
    title = serializers.CharField()
    slug = serializers.CharField()
    description = serializers.CharField()
    discount_percent = serializers.CharField()
    regular_price = serializers.CharField()
    price = serializers.CharField()
    saving = serializers.CharField()
    items = BundleItemSerializer(many=True)


class BundlePageSerializer(serializers.Serializer):
    bundles = BundleSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()
