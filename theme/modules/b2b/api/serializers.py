from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.params import StrictCharField, StrictDecimalField


class GroupWriteSerializer(serializers.Serializer):
    name = StrictCharField(max_length=100)
    description = StrictCharField(max_length=500, required=False, allow_blank=True)
    discount_percent = StrictDecimalField(
        max_digits=5, decimal_places=2, min_value=0, max_value=100, required=False
    )
    member_ids = serializers.ListField(
        child=IdField(), required=False, max_length=1000, help_text="Replaces the members."
    )


class GroupSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    description = serializers.CharField()
    discount_percent = serializers.CharField()
    member_ids = serializers.ListField(child=IdField())


class GroupListEntrySerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    description = serializers.CharField()
    discount_percent = serializers.CharField()
    member_count = IntegerField()


class GroupPageSerializer(serializers.Serializer):
    groups = GroupListEntrySerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


class GroupBodySerializer(serializers.Serializer):
    group = GroupSerializer()


class MyGroupSerializer(serializers.Serializer):
    group = GroupListEntrySerializer(allow_null=True, help_text="null when in no group.")
