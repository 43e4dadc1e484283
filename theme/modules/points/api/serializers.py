from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from theme.modules.points.models import PointsKind


class PointsBalanceSerializer(serializers.Serializer):
    balance = IntegerField()
    points_per_unit = IntegerField()


class PointsEntrySerializer(serializers.Serializer):
    id = IdField()
    kind = serializers.ChoiceField(choices=PointsKind.choices)
    points = IntegerField()
    order_id = IdField(allow_null=True)
    order_number = serializers.CharField(allow_null=True)
    note = serializers.CharField()
    created_at = serializers.DateTimeField()


class PointsPageSerializer(serializers.Serializer):
    transactions = PointsEntrySerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()
