from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from theme.modules.promotions.models import PromotionKind


class PromotionSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    description = serializers.CharField()
    kind = serializers.ChoiceField(choices=PromotionKind.choices)
    value = serializers.CharField()
    min_subtotal = serializers.CharField()
    starts_at = serializers.DateTimeField(allow_null=True)
    ends_at = serializers.DateTimeField(allow_null=True)


class PromotionListSerializer(serializers.Serializer):
    promotions = PromotionSerializer(many=True)
    total = IntegerField()


class AppliedPromotionSerializer(PromotionSerializer):
    discount = serializers.CharField()


class CartTotalsSerializer(serializers.Serializer):
    subtotal = serializers.CharField()
    discount = serializers.CharField()
    shipping = serializers.CharField()
    tax = serializers.CharField()
    total = serializers.CharField()


class CartPromotionsSerializer(serializers.Serializer):
    promotions = AppliedPromotionSerializer(many=True)
    discount = serializers.CharField(help_text="The promotions' cut together.")
    totals = CartTotalsSerializer()
