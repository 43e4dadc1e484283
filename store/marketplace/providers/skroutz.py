"""Skroutz Smart Cart (Greece): its order webhook and its Orders API.

Skroutz POSTs `{event_type, event_time, order, changes?}`: `new_order` when an order is placed,
`order_updated` when it is cancelled, extended or given a courier voucher. `order` carries the
order's `code`, `state` (open, accepted, rejected, cancelled, dispatched, delivered...), the
`customer` (name and, in newer payloads, `address`), `invoice_details` when an invoice is asked
for, `comments` and `line_items` ({id, shop_uid, product_name, quantity, unit_price,
total_price, size?}); `shop_uid` is the shop's own product id, here our SKU (or product id).
Fields not read here are kept in the event's payload. Skroutz sends no event id: the event is
`<event_type>:<order code>:<event_time>`, the same on each of its retries.

Accepting and rejecting go to its Orders API (`POST /merchants/ecommerce/orders/{code}/accept`
with the first pickup location, pickup window and number of parcels it offered, `.../reject`
with a reason). Smart Cart orders travel with Skroutz's own courier voucher, so shipping calls
nothing there (the tracking is kept on the store's shipment).
"""

from __future__ import annotations

from decimal import Decimal

from rest_framework import serializers

from common.api.fields import StrictIntegerField
from store.common.params import StrictBooleanField, StrictDecimalField
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
    event_id_of,
    validated,
)


class _Address(serializers.Serializer):
    street_name = Text(200)
    street_number = Text(20)
    zip = Text(20)
    city = Text(100)
    region = Text(100)


class _Customer(serializers.Serializer):
    id = Text(64)
    first_name = Text(100)
    last_name = Text(100)
    address = _Address(required=False, allow_null=True)


class _Invoice(serializers.Serializer):
    company = Text(200)
    profession = Text(200)
    vat_number = Text(32)
    doy = Text(100)
    address = _Address(required=False, allow_null=True)


class _Line(serializers.Serializer):
    id = Text(64)
    shop_uid = Text(64, required=True, allow_blank=False, allow_null=False)
    product_name = Text(255)
    quantity = StrictIntegerField(min_value=1, max_value=10_000)
    unit_price = StrictDecimalField(max_digits=12, decimal_places=2)


class _Order(serializers.Serializer):
    code = Code()
    state = Text(32, required=True, allow_blank=False, allow_null=False)
    customer = _Customer(required=False, allow_null=True)
    invoice = StrictBooleanField(required=False, allow_null=True)
    invoice_details = _Invoice(required=False, allow_null=True)
    comments = Text(1000)
    line_items = serializers.ListField(child=_Line(), min_length=1, max_length=200)
    accept_options = serializers.DictField(required=False, allow_null=True)


class _Envelope(serializers.Serializer):
    event_type = Text(40, required=True, allow_blank=False, allow_null=False)
    event_time = Text(40, required=True, allow_blank=False, allow_null=False)


class _Event(_Envelope):
    order = _Order()
    changes = serializers.DictField(required=False, allow_null=True)


KINDS = {"new_order": NEW_ORDER, "order_updated": ORDER_UPDATED}


def _address(customer: dict, address: dict | None, company: str = "") -> dict:
    address = address or {}
    street = " ".join(filter(None, (address.get("street_name"), address.get("street_number"))))
    values = {
        "first_name": customer.get("first_name", ""),
        "last_name": customer.get("last_name", ""),
        "company": company,
        "address_1": street,
        "city": address.get("city", ""),
        "postcode": address.get("zip", ""),
        "country": "GR" if address else "",
    }
    return {key: value for key, value in values.items() if value}


def _first_id(options, name: str):
    values = options.get(name) if isinstance(options, dict) else None
    if not isinstance(values, list) or not values:
        return None
    first = values[0]
    return first.get("id") if isinstance(first, dict) else first


class SkroutzProvider(MarketplaceProvider):
    name = "skroutz"
    title = "Skroutz Smart Cart"
    credential_fields = ("api_token",)
    cancelled_states = frozenset({"cancelled", "rejected", "expired"})

    def parse(self, payload: dict, headers) -> ParsedEvent:
        envelope = validated(_Envelope, payload)
        kind = KINDS.get(envelope["event_type"], OTHER)
        if kind == OTHER:
            code = (
                payload.get("order", {}).get("code")
                if isinstance(payload.get("order"), dict)
                else ""
            )
            event_id = f"{envelope['event_type']}:{str(code or '')[:64]}:{envelope['event_time']}"
            return ParsedEvent(
                event_id=event_id_of(headers, event_id),
                type=envelope["event_type"],
                kind=OTHER,
                order=None,
            )
        body = validated(_Event, payload)
        order = body["order"]
        customer = order.get("customer") or {}
        invoice = order.get("invoice_details") or {}
        shipping = _address(customer, customer.get("address"))
        billing = (
            _address(
                customer,
                invoice.get("address") or customer.get("address"),
                invoice.get("company", ""),
            )
            if order.get("invoice")
            else dict(shipping)
        )
        options = order.get("accept_options") or {}
        parsed = ParsedOrder(
            code=order["code"],
            state=order["state"],
            cancelled=order["state"] in self.cancelled_states,
            currency="EUR",
            lines=[
                ParsedLine(
                    sku=line["shop_uid"],
                    quantity=line["quantity"],
                    unit_price=Decimal(line["unit_price"]),
                    title=line.get("product_name", ""),
                )
                for line in order["line_items"]
            ],
            billing_address=billing,
            shipping_address=shipping,
            note=order.get("comments", ""),
            extra={
                "pickup_location": _first_id(options, "pickup_location"),
                "pickup_window": _first_id(options, "pickup_window"),
                "number_of_parcels": _first_id(options, "number_of_parcels") or 1,
            },
        )
        event_id = f"{body['event_type']}:{parsed.code}:{body['event_time']}"
        return ParsedEvent(
            event_id=event_id_of(headers, event_id),
            type=body["event_type"],
            kind=kind,
            order=parsed,
        )

    def api_base(self) -> str:
        return "https://api.skroutz.gr"

    def api_headers(self) -> dict:
        return {
            **super().api_headers(),
            "Accept": "application/vnd.skroutz+json; version=3.1",
        }

    def acknowledge_request(self, order: ParsedOrder, data: dict) -> tuple[str, dict]:
        extra = order.extra
        body = {
            "number_of_parcels": data.get("number_of_parcels")
            or extra.get("number_of_parcels")
            or 1,
            "pickup_location": data.get("pickup_location") or extra.get("pickup_location"),
            "pickup_window": data.get("pickup_window") or extra.get("pickup_window"),
        }
        return f"/merchants/ecommerce/orders/{order.code}/accept", body

    def reject_request(self, order: ParsedOrder, reason: str) -> tuple[str, dict]:
        return f"/merchants/ecommerce/orders/{order.code}/reject", {
            "rejection_reason_other": reason
        }

    def ship_request(self, order, tracking_number, carrier):
        return None  # Skroutz's own courier voucher carries the parcel
