"""A shipping method quoted for a package, as the store answers it: the one shape of the entries
of GET /cart/shipping-methods (with `selected`) and of POST /shipping/calculate, and the
serializer declaring it for the OpenAPI description. A public module (the cart uses it)."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField
from store.common.money import from_cents, money_str
from store.shipping.models import MethodType
from store.shipping.selectors import Quote


def quote_data(quote: Quote) -> dict:
    method = quote.method
    return {
        "id": method.pk,
        "type": method.type,
        "title": method.title,
        "description": method.description,
        "cost": money_str(from_cents(quote.cost)),
        "tax": money_str(from_cents(quote.tax)),
    }


class QuoteSerializer(serializers.Serializer):
    id = IdField()
    type = serializers.ChoiceField(choices=MethodType.choices)
    title = serializers.CharField()
    description = serializers.CharField()
    cost = serializers.CharField(help_text="For these items, as prices are entered.")
    tax = serializers.CharField(help_text="Tax on that cost.")
