"""The `orders` section of the store settings."""

from __future__ import annotations

from rest_framework import serializers

from store.settings.registry import Section, register
from store.settings.sections import StrictChoiceField


class OrderSettings(serializers.Serializer):
    fully_refunded_status = StrictChoiceField(
        choices=["refunded", "keep"],
        default="refunded",
        help_text="What a refund that leaves nothing paid does to the order: `refunded` moves it "
        "to refunded (its stock is given back, as for any move to refunded; WooCommerce's "
        "default), `keep` leaves its status as it is (a person moves it).",
    )


ORDERS = register(Section("orders", "Orders", OrderSettings))
