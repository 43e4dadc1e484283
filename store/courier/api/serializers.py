"""Bodies and answers of the courier routes."""

from __future__ import annotations

from decimal import Decimal

from django.urls import reverse
from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.addresses import REQUIRED_ADDRESS, Address, AddressSerializer, address_data
from store.common.formats import decimal_str, iso
from store.common.money import MoneyField, money_str
from store.common.pagination import MetaSerializer
from store.common.params import (
    CaseInsensitiveChoiceField,
    NumberField,
    PageField,
    PerPageField,
    StrictBooleanField,
)
from store.courier import secrets
from store.courier.models import VoucherStatus
from store.courier.providers import PROVIDERS

# --- Input ---------------------------------------------------------------------------------------


def _weight(**kwargs):
    return NumberField(
        min_value=Decimal("0.001"),
        max_value=1000,
        help_text="Kilograms (0.001-1000). Default: the order's items, else the courier's "
        "default weight.",
        **kwargs,
    )


class _VoucherOptions(serializers.Serializer):
    weight = _weight()
    parcels = IntegerField(
        min_value=1, max_value=99, required=False, help_text="Parcels (1-99), default 1."
    )
    cod_amount = MoneyField(
        required=False,
        max_value=100_000,
        help_text="Cash to collect on delivery. Default for an order paid cash on delivery: "
        "what is left to pay; else 0.",
    )
    reference = serializers.CharField(
        max_length=64, required=False, allow_blank=True, help_text="Default: the order number."
    )
    note = serializers.CharField(
        max_length=255, required=False, allow_blank=True, help_text="Delivery notes."
    )
    pickup_date = serializers.DateField(
        required=False, help_text="ISO date, today (default) up to 14 days ahead."
    )


class RecipientSerializer(AddressSerializer):
    required_keys = REQUIRED_ADDRESS


class VoucherCreateSerializer(_VoucherOptions):
    order_id = IdField(
        required=False, help_text="The order to ship (its shipping address is the recipient)."
    )
    shipment_id = IdField(
        required=False, help_text="With order_id: the order's shipment the voucher goes on."
    )
    recipient = RecipientSerializer(
        required=False,
        allow_null=True,
        help_text="Without order_id: the complete address to ship to.",
    )

    def validate(self, attrs):
        if not attrs.get("order_id") and not attrs.get("recipient"):
            raise serializers.ValidationError({"recipient": "Give order_id or a recipient."})
        if attrs.get("shipment_id") and not attrs.get("order_id"):
            raise serializers.ValidationError({"shipment_id": "Only with order_id."})
        return attrs


class OrderVoucherCreateSerializer(_VoucherOptions):
    provider = CaseInsensitiveChoiceField(
        choices=list(PROVIDERS), required=False, default="sandbox", help_text="Default sandbox."
    )
    shipment_id = IdField(
        required=False,
        help_text="The order's shipment the voucher goes on. Default: its latest open shipment "
        "without a tracking number, else a new shipment of every unit not yet in one.",
    )


def _credentials_serializer(cls):
    fields = {
        name: serializers.CharField(
            max_length=500, required=False, allow_blank=True, trim_whitespace=True
        )
        for name in cls.credential_fields
    }
    return type(f"{cls.__name__}CredentialsSerializer", (serializers.Serializer,), fields)


def _provider_settings_serializer(cls):
    fields = {
        "enabled": StrictBooleanField(required=False),
        "sender": AddressSerializer(
            required=False, help_text="The sender's address (printed on labels)."
        ),
        "default_weight": _weight(required=False),
    }
    if cls.credential_fields:
        fields["credentials"] = _credentials_serializer(cls)(
            required=False,
            help_text='Only the names sent change; "" removes one; a masked value sent back '
            "unchanged is ignored.",
        )
    return type(f"{cls.__name__}SettingsWriteSerializer", (serializers.Serializer,), fields)


CourierSettingsWriteSerializer = type(
    "CourierSettingsWriteSerializer",
    (serializers.Serializer,),
    {name: _provider_settings_serializer(cls)(required=False) for name, cls in PROVIDERS.items()},
)


class PickupListQuerySerializer(serializers.Serializer):
    provider = CaseInsensitiveChoiceField(choices=list(PROVIDERS), help_text="The courier.")
    date = serializers.DateField(required=False, help_text="ISO date; default today.")
    output = CaseInsensitiveChoiceField(
        choices=["json", "pdf"],
        required=False,
        default="json",
        help_text="json (default, paged) or pdf (every voucher of the day, to print).",
    )
    page = PageField()
    per_page = PerPageField(cap=200, default=50, help_text="Default 50, at most 200.")


# --- Output --------------------------------------------------------------------------------------


def shipment_data(shipment) -> dict | None:
    if shipment is None:
        return None
    return {
        "id": shipment.pk,
        "status": shipment.status,
        "carrier": shipment.carrier,
        "tracking_number": shipment.tracking_number,
    }


def voucher_data(voucher) -> dict:
    order = voucher.order
    return {
        "id": voucher.pk,
        "provider": voucher.provider,
        "number": voucher.number,
        "status": voucher.status,
        "order": None
        if order is None
        else {
            "id": order.pk,
            "order_number": order.order_number,
            "fulfillment_status": order.fulfillment_status,
        },
        "shipment": shipment_data(voucher.shipment),
        "recipient": address_data(voucher.recipient),
        "sender": address_data(voucher.sender),
        "weight": decimal_str(voucher.weight),
        "parcels": voucher.parcels,
        "cod_amount": money_str(voucher.cod_amount),
        "currency": voucher.currency,
        "reference": voucher.reference,
        "note": voucher.note,
        "pickup_date": voucher.pickup_date.isoformat(),
        "label_url": reverse(
            "store-courier-label", kwargs={"provider": voucher.provider, "voucher": voucher.number}
        ),
        "events": voucher.events,
        "tracked_at": iso(voucher.tracked_at),
        "delivered_at": iso(voucher.delivered_at),
        "cancelled_at": iso(voucher.cancelled_at),
        "created_at": iso(voucher.created_at),
    }


def settings_data(account) -> dict:
    cls = PROVIDERS[account.provider]
    stored = secrets.unseal(account.credentials)
    return {
        "provider": account.provider,
        "title": cls.title,
        "sandbox": cls.sandbox,
        "enabled": account.enabled,
        "configured": all(stored.get(name) for name in cls.credential_fields),
        "sender": address_data(account.sender),
        "default_weight": decimal_str(account.default_weight),
        "credentials": {name: secrets.mask(stored.get(name, "")) for name in cls.credential_fields},
    }


def pickup_row(voucher) -> dict:
    to = Address.of(voucher.recipient)
    return {
        "number": voucher.number,
        "recipient_name": " ".join(filter(None, (to.first_name, to.last_name))) or to.company,
        "destination": " ".join(filter(None, (to.postcode, to.city))),
        "parcels": voucher.parcels,
        "weight": decimal_str(voucher.weight),
        "cod_amount": money_str(voucher.cod_amount),
    }


def totals_data(totals: dict) -> dict:
    return {
        "vouchers": totals["vouchers"],
        "parcels": totals["parcels"],
        "weight": decimal_str(Decimal(totals["weight"]).quantize(Decimal("0.001"))),
        "cod_amount": money_str(totals["cod_amount"]),
    }


class EventSerializer(serializers.Serializer):
    at = serializers.CharField(allow_null=True)
    status = serializers.CharField(allow_blank=True)
    description = serializers.CharField()
    location = serializers.CharField(allow_blank=True)


class OrderRefSerializer(serializers.Serializer):
    id = IntegerField()
    order_number = serializers.CharField(allow_null=True)
    fulfillment_status = serializers.CharField()


class ShipmentRefSerializer(serializers.Serializer):
    id = IntegerField()
    status = serializers.CharField()
    carrier = serializers.CharField(allow_blank=True)
    tracking_number = serializers.CharField(allow_blank=True)


class VoucherSerializer(serializers.Serializer):
    id = IntegerField()
    provider = serializers.CharField()
    number = serializers.CharField()
    status = serializers.ChoiceField(choices=VoucherStatus.choices)
    order = OrderRefSerializer(allow_null=True)
    shipment = ShipmentRefSerializer(allow_null=True)
    recipient = AddressSerializer()
    sender = AddressSerializer()
    weight = serializers.CharField(help_text="Kilograms.")
    parcels = IntegerField()
    cod_amount = serializers.CharField()
    currency = serializers.CharField(allow_blank=True)
    reference = serializers.CharField(allow_blank=True)
    note = serializers.CharField(allow_blank=True)
    pickup_date = serializers.DateField()
    label_url = serializers.CharField(help_text="GET: the PDF label.")
    events = EventSerializer(many=True, help_text="Tracking events, oldest first.")
    tracked_at = serializers.DateTimeField(allow_null=True)
    delivered_at = serializers.DateTimeField(allow_null=True)
    cancelled_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()


class ConnectionSerializer(serializers.Serializer):
    provider = serializers.CharField()
    ok = serializers.BooleanField()
    message = serializers.CharField()


class ProviderSettingsSerializer(serializers.Serializer):
    provider = serializers.CharField()
    title = serializers.CharField()
    sandbox = serializers.BooleanField()
    enabled = serializers.BooleanField()
    configured = serializers.BooleanField(help_text="Every credential is set.")
    sender = AddressSerializer()
    default_weight = serializers.CharField(help_text="Kilograms.")
    credentials = serializers.DictField(
        child=serializers.CharField(allow_blank=True), help_text="Masked: ****1234 at most."
    )


class CourierSettingsSerializer(serializers.Serializer):
    providers = ProviderSettingsSerializer(many=True)


class PickupRowSerializer(serializers.Serializer):
    number = serializers.CharField()
    recipient_name = serializers.CharField(allow_blank=True)
    destination = serializers.CharField(allow_blank=True)
    parcels = IntegerField()
    weight = serializers.CharField()
    cod_amount = serializers.CharField()


class PickupTotalsSerializer(serializers.Serializer):
    vouchers = IntegerField()
    parcels = IntegerField()
    weight = serializers.CharField()
    cod_amount = serializers.CharField()


class PickupListSerializer(MetaSerializer):
    provider = serializers.CharField()
    date = serializers.DateField()
    vouchers = PickupRowSerializer(many=True)
    totals = PickupTotalsSerializer()
