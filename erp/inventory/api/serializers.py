"""Bodies, queries and answers of the ERP's inventory routes."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField, RowListSerializer
from erp.core.api.base import ListQuery, page_serializer
from store.common.formats import decimal_str, iso
from store.common.money import money_str
from store.common.pagination import named_page as named_page  # the views' s.named_page
from store.common.params import (
    ChoiceListField,
    PerPageField,
    StrictCharField,
    StrictDecimalField,
)
from store.inventory.choices import AdjustmentReason, MovementReason
from store.inventory.services import StockLine

MAX_LINES = 500
WAREHOUSE_ID_HELP = "A warehouse id; 0 is the default warehouse."


def warehouse_id_field(**kwargs) -> IdField:
    return IdField(min_value=0, help_text=kwargs.pop("help_text", WAREHOUSE_ID_HELP), **kwargs)


class UnitCostField(StrictDecimalField):
    def __init__(self, **kwargs):
        kwargs.setdefault("max_digits", 14)
        kwargs.setdefault("decimal_places", 4)
        kwargs.setdefault("coerce_to_string", True)
        super().__init__(**kwargs)


# --- Warehouses ----------------------------------------------------------------------------------


class WarehouseWriteSerializer(serializers.Serializer):
    name = StrictCharField(max_length=200)
    code = serializers.SlugField(
        max_length=64, required=False, allow_blank=True, help_text="Unique; made from the name."
    )
    priority = IntegerField(
        required=False, help_text="Orders take from the default first, then lower priority first."
    )
    address = StrictCharField(max_length=255, required=False, allow_blank=True)
    city = StrictCharField(max_length=100, required=False, allow_blank=True)
    postcode = StrictCharField(max_length=20, required=False, allow_blank=True)
    country = serializers.RegexField(
        r"^[A-Za-z]{2}$",
        required=False,
        allow_blank=True,
        max_length=2,
        help_text="ISO 3166-1 alpha-2.",
    )

    def validate_country(self, value: str) -> str:
        return value.upper()


class WarehouseListQuerySerializer(ListQuery):
    per_page = PerPageField(cap=100, default=50, help_text="Default 50, at most 100.")
    active = serializers.BooleanField(required=False, allow_null=True, default=None)
    search = serializers.CharField(required=False, max_length=200)


def warehouse_data(warehouse) -> dict:
    return {
        "id": warehouse.pk,
        "name": warehouse.name,
        "code": warehouse.code,
        "is_default": warehouse.is_default,
        "is_active": warehouse.is_active,
        "priority": warehouse.priority,
        "address": warehouse.address,
        "city": warehouse.city,
        "postcode": warehouse.postcode,
        "country": warehouse.country,
        "stock": {
            "items": getattr(warehouse, "stock_items", 0),
            "units": getattr(warehouse, "stock_units", 0),
            "value": money_str(getattr(warehouse, "stock_value", 0)),
        },
        "created_at": iso(warehouse.created_at),
        "updated_at": iso(warehouse.updated_at),
    }


class WarehouseStockSerializer(serializers.Serializer):
    items = IntegerField(help_text="Items whose level is not zero.")
    units = IntegerField()
    value = serializers.CharField(help_text="At cost (units of unknown cost left out).")


class WarehouseSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    code = serializers.CharField()
    is_default = serializers.BooleanField()
    is_active = serializers.BooleanField()
    priority = IntegerField()
    address = serializers.CharField()
    city = serializers.CharField()
    postcode = serializers.CharField()
    country = serializers.CharField()
    stock = WarehouseStockSerializer()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


WarehousePageSerializer = page_serializer(
    "WarehousePageSerializer", "warehouses", WarehouseSerializer
)


# --- Levels --------------------------------------------------------------------------------------


class StockLevelListQuerySerializer(ListQuery):
    per_page = PerPageField(cap=100, default=50, help_text="Default 50, at most 100.")
    warehouse_id = IdField(required=False)
    product_id = IdField(required=False)
    variant_id = IdField(required=False)
    sku = serializers.CharField(required=False, max_length=64, help_text="The item's SKU, exactly.")
    low_stock = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="true: only levels at or below their reorder point; false: the others.",
    )
    search = serializers.CharField(
        required=False, max_length=200, help_text="Words, each in the title or SKU."
    )
    after = IdField(
        required=False,
        help_text="Keyset paging: the id of the last level of the previous page; answers the "
        "levels after it in the same order (as fast deep in the list as on its first page). "
        "`page` then only numbers the answer; `total` and `total_pages` count as always. A "
        "level that no longer exists: 400.",
    )


class StockLevelWriteSerializer(serializers.Serializer):
    reorder_point = IntegerField(
        min_value=0, required=False, allow_null=True, help_text="null: no reorder point."
    )
    reorder_quantity = IntegerField(
        min_value=0, required=False, allow_null=True, help_text="null: the default."
    )

    def validate(self, attrs):
        # A quantity sent here would be silently dropped: say where it goes instead.
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            message = (
                "Not a field of a level's settings; quantities change through "
                "POST /stock/adjust, /stock/transfer and /stock/stocktake."
            )
            raise serializers.ValidationError(dict.fromkeys(unknown[:10], message))
        return attrs


def _title(level) -> str:
    title = level.product.title if level.product_id else ""
    if level.variant_id and level.variant.title:
        return f"{title} - {level.variant.title}"
    return title


def level_data(level) -> dict:
    sku = level.variant.sku if level.variant_id else level.product.sku
    low = level.reorder_point is not None and level.quantity <= level.reorder_point
    return {
        "id": level.pk,
        "warehouse_id": level.warehouse_id,
        "warehouse_code": level.warehouse.code,
        "product_id": level.product_id,
        "variant_id": level.variant_id,
        "sku": sku,
        "title": _title(level),
        "quantity": level.quantity,
        "unit_cost": decimal_str(level.unit_cost),
        "value": money_str(level.value) if level.unit_cost is not None else None,
        "reorder_point": level.reorder_point,
        "reorder_quantity": level.reorder_quantity,
        "low_stock": low,
        "updated_at": iso(level.updated_at),
    }


class StockLevelSerializer(serializers.Serializer):
    id = IdField()
    warehouse_id = IdField()
    warehouse_code = serializers.CharField()
    product_id = IdField()
    variant_id = IdField(allow_null=True)
    sku = serializers.CharField()
    title = serializers.CharField()
    quantity = IntegerField()
    unit_cost = serializers.CharField(
        allow_null=True, help_text="Average cost of one unit (4 places); null: unknown."
    )
    value = serializers.CharField(
        allow_null=True, help_text="Units on hand at the average cost; null: cost unknown."
    )
    reorder_point = IntegerField(allow_null=True)
    reorder_quantity = IntegerField(allow_null=True)
    low_stock = serializers.BooleanField(help_text="At or below the reorder point.")
    updated_at = serializers.DateTimeField()


StockLevelPageSerializer = page_serializer(
    "StockLevelPageSerializer", "levels", StockLevelSerializer
)


# --- Movements -----------------------------------------------------------------------------------


class StockMovementListQuerySerializer(ListQuery):
    per_page = PerPageField(cap=100, default=50, help_text="Default 50, at most 100.")
    warehouse_id = IdField(required=False)
    product_id = IdField(required=False)
    variant_id = IdField(required=False)
    sku = serializers.CharField(required=False, max_length=64)
    reason = ChoiceListField(choices=MovementReason.values)
    reference_type = serializers.CharField(
        required=False,
        max_length=32,
        help_text="order, checkout, product, adjustment, transfer, stocktake, ...",
    )
    reference_id = serializers.CharField(required=False, max_length=64)
    date_from = serializers.DateField(required=False, help_text="ISO date, on or after (UTC).")
    date_to = serializers.DateField(required=False, help_text="ISO date, on or before (UTC).")

    def validate(self, attrs):
        if (
            attrs.get("date_from")
            and attrs.get("date_to")
            and attrs["date_from"] > attrs["date_to"]
        ):
            raise serializers.ValidationError({"date_to": "Must not be before date_from."})
        return attrs


def movement_data(movement) -> dict:
    actor = movement.actor
    return {
        "id": movement.pk,
        "warehouse_id": movement.warehouse_id,
        "warehouse_code": movement.warehouse.code,
        "level_id": movement.level_id,
        "product_id": movement.product_id,
        "variant_id": movement.variant_id,
        "sku": movement.sku,
        "quantity": movement.quantity,
        "quantity_after": movement.quantity_after,
        "unit_cost": decimal_str(movement.unit_cost),
        "reason": movement.reason,
        "reference_type": movement.reference_type,
        "reference_id": movement.reference_id,
        "reference_line": movement.reference_line,
        "note": movement.note,
        "actor": actor.email if actor is not None else None,
        "created_at": iso(movement.created_at),
    }


class StockMovementSerializer(serializers.Serializer):
    id = IdField()
    warehouse_id = IdField()
    warehouse_code = serializers.CharField()
    level_id = IdField(allow_null=True)
    product_id = IdField(allow_null=True)
    variant_id = IdField(allow_null=True)
    sku = serializers.CharField()
    quantity = IntegerField(help_text="Signed: negative took stock out.")
    quantity_after = IntegerField()
    unit_cost = serializers.CharField(allow_null=True)
    reason = serializers.ChoiceField(choices=MovementReason.choices)
    reference_type = serializers.CharField()
    reference_id = serializers.CharField()
    reference_line = IntegerField(column="BigIntegerField", allow_null=True)
    note = serializers.CharField()
    actor = serializers.CharField(allow_null=True, help_text="Who made it (e-mail address).")
    created_at = serializers.DateTimeField()


StockMovementPageSerializer = page_serializer(
    "StockMovementPageSerializer", "movements", StockMovementSerializer
)


# --- Adjust, transfer, stocktake -----------------------------------------------------------------


class StockAdjustSerializer(serializers.Serializer):
    product_id = IdField()
    variant_id = IdField(required=False, allow_null=True)
    warehouse_id = warehouse_id_field()
    quantity = IntegerField(
        required=False, help_text="The change, signed (not zero); or send new_quantity."
    )
    new_quantity = IntegerField(
        min_value=0, required=False, help_text="The level's quantity after; or send quantity."
    )
    reason = serializers.ChoiceField(choices=AdjustmentReason.choices)
    note = StrictCharField(max_length=255, required=False, allow_blank=True, default="")
    unit_cost = UnitCostField(
        required=False,
        allow_null=True,
        help_text="Cost of one unit added (moves the average cost); only when adding.",
    )

    def validate(self, attrs):
        if ("quantity" in attrs) == ("new_quantity" in attrs):
            raise serializers.ValidationError(
                {"quantity": "Send either quantity (a change) or new_quantity."}
            )
        return attrs


class TransferLineSerializer(serializers.Serializer):
    product_id = IdField()
    variant_id = IdField(required=False, allow_null=True)
    quantity = IntegerField(min_value=1)

    class Meta:
        list_serializer_class = RowListSerializer


class StocktakeCountSerializer(serializers.Serializer):
    product_id = IdField()
    variant_id = IdField(required=False, allow_null=True)
    quantity = IntegerField(min_value=0, help_text="Units counted.")

    class Meta:
        list_serializer_class = RowListSerializer


def stock_lines(rows) -> list[StockLine]:
    return [StockLine(row["product_id"], row.get("variant_id"), row["quantity"]) for row in rows]


class StockTransferSerializer(serializers.Serializer):
    from_warehouse_id = warehouse_id_field()
    to_warehouse_id = warehouse_id_field()
    lines = TransferLineSerializer(many=True, min_length=1, max_length=MAX_LINES)
    note = StrictCharField(max_length=255, required=False, allow_blank=True, default="")


class StockStocktakeSerializer(serializers.Serializer):
    warehouse_id = warehouse_id_field()
    counts = StocktakeCountSerializer(many=True, min_length=1, max_length=MAX_LINES)
    note = StrictCharField(max_length=255, required=False, allow_blank=True, default="")


class StockAdjustResultSerializer(serializers.Serializer):
    movement = StockMovementSerializer(allow_null=True, help_text="null: nothing changed.")
    level = StockLevelSerializer(allow_null=True, help_text="null: the item has no level there.")


class StockTransferResultSerializer(serializers.Serializer):
    reference = serializers.CharField(
        help_text="The transfer's id: its movements' reference_id (reference_type transfer)."
    )
    from_warehouse_id = IdField()
    to_warehouse_id = IdField()
    movements = StockMovementSerializer(many=True, help_text="transfer_out then transfer_in.")


class StocktakeCountResultSerializer(serializers.Serializer):
    product_id = IdField()
    variant_id = IdField(allow_null=True)
    sku = serializers.CharField()
    expected = IntegerField(help_text="What the ledger held.")
    counted = IntegerField()
    difference = IntegerField()
    unit_cost = serializers.CharField(allow_null=True)
    value_difference = serializers.CharField(allow_null=True)
    movement_id = IdField(allow_null=True)


class StockStocktakeResultSerializer(serializers.Serializer):
    reference = serializers.CharField()
    warehouse_id = IdField()
    counted = IntegerField()
    changed = IntegerField()
    lines = StocktakeCountResultSerializer(many=True)


def stocktake_data(stocktake) -> dict:
    lines = []
    for count in stocktake.counts:
        value = count.unit_cost * count.difference if count.unit_cost is not None else None
        lines.append(
            {
                "product_id": count.product_id,
                "variant_id": count.variant_id,
                "sku": count.sku,
                "expected": count.expected,
                "counted": count.counted,
                "difference": count.difference,
                "unit_cost": decimal_str(count.unit_cost),
                "value_difference": money_str(value) if value is not None else None,
                "movement_id": count.movement.pk if count.movement else None,
            }
        )
    return {
        "reference": stocktake.reference,
        "warehouse_id": stocktake.warehouse.pk,
        "counted": len(lines),
        "changed": sum(1 for line in lines if line["difference"]),
        "lines": lines,
    }


# --- Figures -------------------------------------------------------------------------------------


class StockStatsQuerySerializer(serializers.Serializer):
    warehouse_id = IdField(required=False)
    date_from = serializers.DateField(required=False, help_text="Default: 29 days before date_to.")
    date_to = serializers.DateField(required=False, help_text="Default: today (UTC).")

    def validate(self, attrs):
        if (
            attrs.get("date_from")
            and attrs.get("date_to")
            and attrs["date_from"] > attrs["date_to"]
        ):
            raise serializers.ValidationError({"date_to": "Must not be before date_from."})
        return attrs


def stats_data(stats: dict) -> dict:
    turnover = stats["turnover"]
    return {
        "total_value": money_str(stats["total_value"]),
        "warehouses": [
            {
                "warehouse_id": row["warehouse_id"],
                "name": row["warehouse__name"],
                "code": row["warehouse__code"],
                "is_active": row["warehouse__is_active"],
                "value": money_str(row["value"]),
                "units": row["units"],
                "items": row["items"],
            }
            for row in stats["per_warehouse"]
        ],
        "items": stats["counts"]["items"],
        "low_stock_count": stats["counts"]["low_stock"],
        "out_of_stock_count": stats["counts"]["out_of_stock"],
        "low_stock_items": [level_data(level) for level in stats["low_stock_items"]],
        "turnover": {
            "date_from": turnover["date_from"].isoformat(),
            "date_to": turnover["date_to"].isoformat(),
            "units_sold": turnover["units_sold"],
            "opening_stock": turnover["opening_stock"],
            "closing_stock": turnover["closing_stock"],
            "average_stock": decimal_str(turnover["average_stock"]),
            "turnover": decimal_str(turnover["turnover"]),
        },
    }


class StockWarehouseValueSerializer(serializers.Serializer):
    warehouse_id = IdField()
    name = serializers.CharField()
    code = serializers.CharField()
    is_active = serializers.BooleanField()
    value = serializers.CharField()
    units = IntegerField()
    items = IntegerField()


class StockTurnoverSerializer(serializers.Serializer):
    date_from = serializers.DateField()
    date_to = serializers.DateField()
    units_sold = IntegerField(help_text="Net units of the orders' movements in the period.")
    opening_stock = IntegerField()
    closing_stock = IntegerField()
    average_stock = serializers.CharField()
    turnover = serializers.CharField(
        allow_null=True, help_text="units_sold / average_stock; null without average stock."
    )


class StockStatsSerializer(serializers.Serializer):
    total_value = serializers.CharField(help_text="All levels at cost.")
    warehouses = StockWarehouseValueSerializer(many=True)
    items = IntegerField(help_text="Levels in active warehouses.")
    low_stock_count = IntegerField()
    out_of_stock_count = IntegerField(help_text="Levels in active warehouses at or below zero.")
    low_stock_items = StockLevelSerializer(many=True, help_text="The lowest 50, lowest first.")
    turnover = StockTurnoverSerializer()
