from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.params import StrictCharField
from theme.modules.api.serializers import PageQuerySerializer
from theme.modules.quotes.models import QuoteStatus


class QuoteLineSerializer(serializers.Serializer):
    product_id = IdField()
    quantity = IntegerField(min_value=1, max_value=100_000)


class QuoteRequestSerializer(serializers.Serializer):
    name = StrictCharField(max_length=200)
    email = serializers.EmailField(max_length=254)
    company = StrictCharField(max_length=200, required=False, default="", allow_blank=True)
    phone = StrictCharField(max_length=40, required=False, default="", allow_blank=True)
    message = StrictCharField(max_length=5000, required=False, default="", allow_blank=True)
    # (many=True makes a ListSerializer, which takes max_length; the stubs type the child's call)
    items = QuoteLineSerializer(many=True, allow_empty=False, max_length=100)  # type: ignore[call-arg]


class QuoteItemOutSerializer(serializers.Serializer):
    product_id = IdField()
    title = serializers.CharField()
    quantity = IntegerField()


class QuoteSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    email = serializers.CharField()
    company = serializers.CharField()
    phone = serializers.CharField()
    message = serializers.CharField()
    status = serializers.ChoiceField(choices=QuoteStatus.choices)
    created_at = serializers.DateTimeField()
    items = QuoteItemOutSerializer(many=True)


class QuoteReceivedSerializer(serializers.Serializer):
    id = IdField()
    status = serializers.CharField()
    message = serializers.CharField()


class QuoteQuerySerializer(PageQuerySerializer):
    status = serializers.ChoiceField(choices=QuoteStatus.choices, required=False)


class QuotePageSerializer(serializers.Serializer):
    quotes = QuoteSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()
