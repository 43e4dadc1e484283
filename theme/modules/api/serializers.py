"""The serializers every module answers with: the list query (page, per_page), the product
card and a count of rows deleted. Each module's own bodies live in its app's api/serializers."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.params import PageField, PerPageField


class PageQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20)


class ModuleProductCardSerializer(serializers.Serializer):
    id = IdField()
    title = serializers.CharField()
    slug = serializers.CharField()
    price = serializers.CharField(allow_null=True)
    on_sale = serializers.BooleanField()
    stock_status = serializers.CharField()


class ModuleDeletedSerializer(serializers.Serializer):
    deleted = IntegerField()
