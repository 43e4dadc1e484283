from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IntegerField


class RecoveredSerializer(serializers.Serializer):
    restored = IntegerField(help_text="How many lines were added to your cart.")
    cart = serializers.DictField(help_text="The cart's summary, as GET /cart/totals.")
