"""A generic signed JSON marketplace: any channel that can POST this documented shape.

    {"id": "evt_1001", "type": "order.created", "created_at": "2026-11-24T09:00:00Z",
     "order": {"code": "G-1001", "state": "open", "currency": "EUR",
               "billing_address": {first_name, last_name, company, address_1, address_2,
                                   city, state, postcode, country, email, phone},
               "shipping_address": {... the same keys ...},
               "shipping_total": "3.50", "note": "",
               "items": [{"sku": "TSHIRT-RED-M", "quantity": 2, "unit_price": "12.90",
                          "title": "T-shirt"}]}}

`id` is the event id (unique per event, the same on a retry). `type`: `order.created` (a new
order), `order.updated` (a new state; `cancelled` cancels), `order.cancelled` (the same as an
update to `cancelled`); other types are recorded and ignored. Its API is the marketplace's
`api_url` (https) with `Authorization: Bearer <api_token>`: POST `/orders/{code}/acknowledge`,
`/orders/{code}/reject` ({reason}), `/orders/{code}/ship` ({tracking_number, carrier}).
"""

from __future__ import annotations

from decimal import Decimal

from rest_framework import serializers

from common.api.fields import StrictIntegerField
from store.common.params import StrictDecimalField
from store.marketplace.providers.base import (
    NEW_ORDER,
    ORDER_UPDATED,
    OTHER,
    Code,
    MarketplaceProvider,
    ParsedEvent,
    ParsedLine,
    ParsedOrder,
    Text,
    validated,
)


class _Address(serializers.Serializer):
    first_name = Text(100)
    last_name = Text(100)
    company = Text(200)
    address_1 = Text(255)
    address_2 = Text(255)
    city = Text(100)
    state = Text(100)
    postcode = Text(20)
    country = Text(2)
    email = Text(254)
    phone = Text(40)


class _Item(serializers.Serializer):
    sku = Text(64, required=True, allow_blank=False, allow_null=False)
    quantity = StrictIntegerField(min_value=1, max_value=10_000)
    unit_price = StrictDecimalField(max_digits=12, decimal_places=2)
    title = Text(255)


class _Order(serializers.Serializer):
    code = Code()
    state = Text(32, required=True, allow_blank=False, allow_null=False)
    currency = serializers.RegexField(r"^[A-Za-z]{3}$", required=False, default="EUR")
    billing_address = _Address(required=False, allow_null=True)
    shipping_address = _Address(required=False, allow_null=True)
    shipping_total = StrictDecimalField(
        max_digits=12, decimal_places=2, required=False, default=Decimal(0)
    )
    note = Text(1000)
    items = serializers.ListField(child=_Item(), min_length=1, max_length=200)


class _Envelope(serializers.Serializer):
    id = Text(200, required=True, allow_blank=False, allow_null=False)
    type = Text(40, required=True, allow_blank=False, allow_null=False)


class _Event(_Envelope):
    order = _Order()


KINDS = {
    "order.created": NEW_ORDER,
    "order.updated": ORDER_UPDATED,
    "order.cancelled": ORDER_UPDATED,
}


def _clean(address) -> dict:
    return {key: value for key, value in (address or {}).items() if value}


class GenericProvider(MarketplaceProvider):
    name = "generic"
    title = "Generic JSON marketplace"
    credential_fields = ("api_url", "api_token")
    cancelled_states = frozenset({"cancelled", "canceled", "rejected"})

    def parse(self, payload: dict, headers) -> ParsedEvent:
        envelope = validated(_Envelope, payload)
        kind = KINDS.get(envelope["type"], OTHER)
        if kind == OTHER:
            return ParsedEvent(
                event_id=envelope["id"], type=envelope["type"], kind=OTHER, order=None
            )
        body = validated(_Event, payload)
        order = body["order"]
        state = "cancelled" if body["type"] == "order.cancelled" else order["state"]
        billing = _clean(order.get("billing_address"))
        parsed = ParsedOrder(
            code=order["code"],
            state=state,
            cancelled=state in self.cancelled_states,
            currency=order["currency"].upper(),
            lines=[
                ParsedLine(
                    sku=item["sku"],
                    quantity=item["quantity"],
                    unit_price=Decimal(item["unit_price"]),
                    title=item.get("title", ""),
                )
                for item in order["items"]
            ],
            billing_address=billing,
            shipping_address=_clean(order.get("shipping_address")) or dict(billing),
            shipping_total=Decimal(order["shipping_total"]),
            note=order.get("note", ""),
        )
        return ParsedEvent(event_id=body["id"], type=body["type"], kind=kind, order=parsed)

    def api_base(self) -> str:
        return str(self.credentials.get("api_url", "")).rstrip("/")

    def acknowledge_request(self, order, data):
        return f"/orders/{order.code}/acknowledge", {}

    def reject_request(self, order, reason):
        return f"/orders/{order.code}/reject", {"reason": reason}

    def ship_request(self, order, tracking_number, carrier):
        return f"/orders/{order.code}/ship", {
            "tracking_number": tracking_number,
            "carrier": carrier,
        }
