from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField


class LabelSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=["new", "sale", "low_stock", "out_of_stock"])
    label = serializers.CharField()  # type: ignore[assignment]  # (Field.label: a field's title)


class ProductLabelsSerializer(serializers.Serializer):
    product_id = IdField()
    labels = LabelSerializer(many=True)
