from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.cart_session import CartHintField
from theme.modules.api.serializers import ModuleProductCardSerializer


class RecentlyViewedAddSerializer(serializers.Serializer):
    product_id = IdField()
    cart_id = CartHintField()


class RecentlyViewedEntrySerializer(serializers.Serializer):
    product_id = IdField()
    viewed_at = serializers.DateTimeField()
    product = ModuleProductCardSerializer()


class RecentlyViewedSerializer(serializers.Serializer):
    items = RecentlyViewedEntrySerializer(many=True)
    total = IntegerField()
    max_items = IntegerField()
