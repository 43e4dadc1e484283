"""The dashboard's query parameters and answer."""

from __future__ import annotations

import re

from rest_framework import serializers

from common.api.fields import IntegerField
from store.common.money import money_str
from store.reports import selectors

_CURRENCY = re.compile(r"^[A-Za-z]{3}\Z")


class DashboardQuerySerializer(serializers.Serializer):
    period = serializers.ChoiceField(
        choices=selectors.PERIODS,
        required=False,
        help_text="today, 7d (the last 7 days with today), 30d (default), month (this month "
        "so far), year (this year so far), custom (date_from to date_to). Days are UTC.",
    )
    date_from = serializers.DateField(
        required=False, help_text="ISO date, first day (period=custom; implies it)."
    )
    date_to = serializers.DateField(
        required=False, help_text="ISO date, last day included (period=custom; implies it)."
    )
    currency = serializers.CharField(
        required=False, max_length=3, help_text="ISO 4217; default the store's currency."
    )
    top = IntegerField(
        required=False, min_value=1, max_value=50, default=5, help_text="Top products, 1-50."
    )
    low_stock_limit = IntegerField(
        required=False,
        min_value=0,
        max_value=100,
        default=10,
        help_text="Low-stock items listed, 0-100 (the counts cover all of them).",
    )

    def validate_currency(self, value: str) -> str:
        if not _CURRENCY.match(value):
            raise serializers.ValidationError("Three letters, e.g. EUR.")
        return value.upper()

    def validate(self, attrs):
        low, high = attrs.get("date_from"), attrs.get("date_to")
        period = attrs.get("period") or ("custom" if low or high else "30d")
        errors = {}
        if period == "custom":
            if low is None:
                errors["date_from"] = ["Required with period=custom."]
            if high is None:
                errors["date_to"] = ["Required with period=custom."]
        elif low or high:
            errors["period"] = ["date_from and date_to go with period=custom only."]
        if low and high:
            if low > high:
                errors["date_to"] = ["date_to is before date_from."]
            elif (high - low).days + 1 > selectors.MAX_DAYS:
                errors["date_to"] = [f"A period spans at most {selectors.MAX_DAYS} days."]
            elif low < selectors.EARLIEST:
                errors["date_from"] = [f"From {selectors.EARLIEST.isoformat()} on."]
            elif high > selectors.LATEST:
                errors["date_to"] = [f"Up to {selectors.LATEST.isoformat()}."]
        if errors:
            raise serializers.ValidationError(errors)
        attrs["period"] = period
        return attrs


def _money_block(block: dict) -> dict:
    return {key: money_str(value) if key in MONEY_KEYS else value for key, value in block.items()}


MONEY_KEYS = {"revenue", "gross_sales", "refunds", "average_order_value"}


def stats_data(stats: dict) -> dict:
    return {
        **stats,
        "totals": _money_block(stats["totals"]),
        "previous": _money_block(stats["previous"]),
        "top_products": [
            {**row, "revenue": money_str(row["revenue"])} for row in stats["top_products"]
        ],
    }


# --- Answer shape (OpenAPI) ---------------------------------------------------------------------


class PeriodSerializer(serializers.Serializer):
    name = serializers.CharField()
    date_from = serializers.DateField()
    date_to = serializers.DateField(help_text="Included.")
    days = IntegerField()


class TotalsSerializer(serializers.Serializer):
    revenue = serializers.CharField(help_text="gross_sales + refunds (refunds are negative).")
    gross_sales = serializers.CharField(help_text="Totals of the period's sales orders.")
    refunds = serializers.CharField(
        help_text="Completed refunds recorded on those orders, negative (money going back)."
    )
    orders = IntegerField(help_text="Orders in processing, shipped or completed.")
    average_order_value = serializers.CharField(help_text="revenue / orders.")
    items_sold = IntegerField()
    new_customers = IntegerField(help_text="Customer records created in the period.")


class ChangeSerializer(serializers.Serializer):
    revenue = serializers.CharField(allow_null=True)
    gross_sales = serializers.CharField(allow_null=True)
    refunds = serializers.CharField(allow_null=True)
    orders = serializers.CharField(allow_null=True)
    average_order_value = serializers.CharField(allow_null=True)
    items_sold = serializers.CharField(allow_null=True)
    new_customers = serializers.CharField(allow_null=True)


class DashboardTopProductSerializer(serializers.Serializer):
    product_id = IntegerField()
    title = serializers.CharField(help_text="As sold (the order line's snapshot).")
    quantity = IntegerField()
    revenue = serializers.CharField(help_text="Sum of the line totals.")
    orders = IntegerField()


class LowStockItemSerializer(serializers.Serializer):
    product_id = IntegerField()
    variant_id = IntegerField(allow_null=True)
    title = serializers.CharField()
    sku = serializers.CharField()
    stock_quantity = IntegerField()
    stock_status = serializers.CharField()
    low_stock_threshold = IntegerField()


class LowStockSerializer(serializers.Serializer):
    count = IntegerField(help_text="Stock items at or below their threshold.")
    out_of_stock_count = IntegerField(help_text="Of those, at 0 or below.")
    default_threshold = IntegerField(help_text="The store's (inventory settings).")
    items = LowStockItemSerializer(many=True)


class DashboardSerializer(serializers.Serializer):
    period = PeriodSerializer()
    previous_period = PeriodSerializer()
    currency = serializers.CharField()
    totals = TotalsSerializer()
    previous = TotalsSerializer(help_text="The same figures for the previous period.")
    change = ChangeSerializer(
        help_text="Percent change from the previous period, one decimal; null when the "
        "previous figure is 0."
    )
    top_products = DashboardTopProductSerializer(many=True)
    low_stock = LowStockSerializer()
