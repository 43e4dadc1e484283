"""The ERP's inventory routes (capability ec_manage_inventory, behind the licence gate): thin
views over the store's inventory ledger — store.inventory.services writes (one ledger for the
store and the ERP), erp.inventory.selectors reads."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from erp.core.views import ERPView
from erp.inventory import selectors
from store.common.capabilities import manage
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.inventory import services

from . import serializers as s

TAG = "ERP inventory"
ACCESS = {"*": manage("inventory")}
WAREHOUSE_ID = OpenApiParameter("warehouse_id", int, OpenApiParameter.PATH)
ITEM_404 = (
    "A warehouse, product or variant of the body does not exist (`warehouse_not_found`, "
    "`product_not_found`, `variant_not_found`)."
)


class InventoryView(ERPView):
    access = ACCESS
    openapi_tag = TAG


def warehouse_body(warehouse_id: int) -> dict:
    return s.warehouse_data(selectors.warehouse_get(warehouse_id))


# --- Warehouses ----------------------------------------------------------------------------------


class WarehouseListView(InventoryView):
    @store_schema(
        summary="List warehouses",
        parameters=[s.WarehouseListQuerySerializer],
        responses={200: s.WarehousePageSerializer},
        description="`{warehouses, total, page, per_page, total_pages}`, the default first, "
        "then by priority. Each with its stock: items (levels not at zero), units and value "
        "at cost. Filters: `active`, `search` (name, code, city).",
    )
    def get(self, request):
        query = validate_query(s.WarehouseListQuerySerializer, request.query_params)
        page = selectors.warehouse_page(query)
        return Response(s.named_page("warehouses", page, s.warehouse_data))

    @store_schema(
        summary="Create a warehouse",
        request=s.WarehouseWriteSerializer,
        responses={201: s.WarehouseSerializer},
        description="Active, not the default. `code` is unique (400 when taken) and made from "
        "the name when left out. Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.WarehouseWriteSerializer, request.data)
        warehouse = services.warehouse_create(fields=dict(fields))
        return Response(warehouse_body(warehouse.pk), status=status.HTTP_201_CREATED)


class WarehouseDetailView(InventoryView, StoreResourceView):
    resource = "warehouse"
    id_kwarg = "warehouse_id"
    output_serializer = s.WarehouseSerializer
    write_serializer = s.WarehouseWriteSerializer
    descriptions = {
        "patch": "Only the fields sent change (`code` unique). Activation is "
        "POST /warehouses/{id}/activate and /deactivate; the default, /set-default.",
        "put": "Same as PATCH.",
        "delete": "Only a warehouse that never held stock: one with levels or movements is "
        "refused (409 `warehouse_in_use`; deactivate it instead), the default one too (400 "
        "`default_warehouse`).",
    }
    errors = {
        "delete": {409: "It holds stock or movements name it (`warehouse_in_use`)."},
    }

    def read(self, request, pk):
        return warehouse_body(pk)

    def update(self, request, pk, fields):
        services.warehouse_update(warehouse_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.warehouse_delete(warehouse_id=pk)


class WarehouseSetDefaultView(InventoryView):
    @store_schema(
        summary="Make a warehouse the default",
        request=None,
        parameters=[WAREHOUSE_ID],
        responses={200: s.WarehouseSerializer},
        description="Orders take stock from the default warehouse first; the old default "
        "stays as an ordinary warehouse. An inactive warehouse: 400 `warehouse_inactive`.",
    )
    def post(self, request, warehouse_id):
        services.warehouse_set_default(warehouse_id=warehouse_id)
        return Response(warehouse_body(warehouse_id))


class WarehouseActivateView(InventoryView):
    @store_schema(
        summary="Activate a warehouse",
        request=None,
        parameters=[WAREHOUSE_ID],
        responses={200: s.WarehouseSerializer},
        description="Its stock counts as for sale again. Activating an active one changes nothing.",
    )
    def post(self, request, warehouse_id):
        services.warehouse_set_active(warehouse_id=warehouse_id, active=True)
        return Response(warehouse_body(warehouse_id))


class WarehouseDeactivateView(InventoryView):
    @store_schema(
        summary="Deactivate a warehouse",
        request=None,
        parameters=[WAREHOUSE_ID],
        responses={200: s.WarehouseSerializer},
        description="Refused while any of its levels is not zero (409 `warehouse_has_stock`: "
        "transfer or adjust it out first) and for the default warehouse (400 "
        "`default_warehouse`). Deactivating an inactive one changes nothing.",
        errors={409: "The warehouse holds stock (`warehouse_has_stock`)."},
    )
    def post(self, request, warehouse_id):
        services.warehouse_deactivate(warehouse_id=warehouse_id)
        return Response(warehouse_body(warehouse_id))


# --- Levels --------------------------------------------------------------------------------------


class StockLevelListView(InventoryView):
    @store_schema(
        summary="List stock levels",
        parameters=[s.StockLevelListQuerySerializer],
        responses={200: s.StockLevelPageSerializer},
        description="`{levels, total, page, per_page, total_pages}`: one per item and "
        "warehouse, with its quantity, average unit cost, value at cost (units on hand) and "
        "reorder settings. Filters combine: `warehouse_id`, `product_id`, `variant_id`, `sku`, "
        "`low_stock` (at or below the reorder point), `search`.",
    )
    def get(self, request):
        query = validate_query(s.StockLevelListQuerySerializer, request.query_params)
        return Response(s.named_page("levels", selectors.level_page(query), s.level_data))


class StockLevelDetailView(InventoryView, StoreResourceView):
    resource = "stock level"
    id_kwarg = "level_id"
    output_serializer = s.StockLevelSerializer
    write_serializer = s.StockLevelWriteSerializer
    summaries = {"patch": "Set a level's reorder point", "put": "Set a level's reorder point"}
    descriptions = {
        "patch": "`reorder_point` (low stock at or below it; purchasing reorders then) and "
        "`reorder_quantity` (how many to order); null clears either. The quantity changes "
        "only through POST /stock/adjust, /stock/transfer, /stock/stocktake and orders.",
        "put": "Same as PATCH.",
    }

    def read(self, request, pk):
        return s.level_data(selectors.level_get(pk))

    def update(self, request, pk, fields):
        services.stock_reorder_set(level_id=pk, fields=dict(fields))


# --- Adjust, transfer, stocktake -----------------------------------------------------------------


class StockAdjustView(InventoryView):
    @store_schema(
        summary="Adjust stock",
        request=s.StockAdjustSerializer,
        responses={200: s.StockAdjustResultSerializer},
        description="Changes one item's level in one warehouse by `quantity` (signed) or to "
        "`new_quantity`, for a `reason` (required: damaged, lost, found, theft, expired, "
        "returned, correction, other), with a `note`. A manual_adjustment movement "
        "(reference_type adjustment, reference_id the reason) records it. Taking below "
        "zero is refused (409 `insufficient_stock`) unless the item allows backorders. "
        "`unit_cost`, only when adding, moves the level's average cost. `movement` is null "
        "when the level already held `new_quantity`. Send an Idempotency-Key to retry safely.",
        errors={
            404: ITEM_404,
            409: "Not enough stock (`insufficient_stock`).",
        },
    )
    def post(self, request):
        fields = validate_body(s.StockAdjustSerializer, request.data)
        movement = services.stock_adjust(
            product_id=fields["product_id"],
            variant_id=fields.get("variant_id"),
            warehouse_id=fields["warehouse_id"],
            reason=fields["reason"],
            quantity=fields.get("quantity"),
            new_quantity=fields.get("new_quantity"),
            unit_cost=fields.get("unit_cost"),
            note=fields["note"],
            actor=request.user,
        )
        level = selectors.level_find(
            warehouse_id=movement.warehouse_id if movement else fields["warehouse_id"],
            product_id=fields["product_id"],
            variant_id=fields.get("variant_id"),
        )
        moved = selectors.movements_of([movement.pk])[0] if movement else None
        return Response(
            {
                "movement": s.movement_data(moved) if moved else None,
                "level": s.level_data(level) if level else None,
            }
        )


class StockTransferView(InventoryView):
    @store_schema(
        summary="Transfer stock between warehouses",
        request=s.StockTransferSerializer,
        responses={201: s.StockTransferResultSerializer},
        description="Moves every line from `from_warehouse_id` to `to_warehouse_id` or none: "
        "a line the source cannot cover refuses the whole transfer (409 `insufficient_stock`, "
        "naming `lines.<n>.quantity`; a transfer never takes a level below zero). Each line "
        "is a transfer_out and a transfer_in movement carrying the source's average unit "
        "cost, which moves the destination's average. The destination must be active (409 "
        "`warehouse_inactive`). Send an Idempotency-Key to retry safely.",
        errors={
            404: ITEM_404,
            409: "Not enough stock (`insufficient_stock`) or the destination is inactive "
            "(`warehouse_inactive`).",
        },
    )
    def post(self, request):
        fields = validate_body(s.StockTransferSerializer, request.data)
        transfer = services.stock_transfer(
            from_warehouse_id=fields["from_warehouse_id"],
            to_warehouse_id=fields["to_warehouse_id"],
            lines=s.stock_lines(fields["lines"]),
            note=fields["note"],
            actor=request.user,
        )
        moved = selectors.movements_of([m.pk for m in (*transfer.out, *transfer.into)])
        order = {m.pk: i for i, m in enumerate((*transfer.out, *transfer.into))}
        moved.sort(key=lambda m: order[m.pk])
        body = {
            "reference": transfer.reference,
            "from_warehouse_id": transfer.source.pk,
            "to_warehouse_id": transfer.destination.pk,
            "movements": [s.movement_data(m) for m in moved],
        }
        return Response(body, status=status.HTTP_201_CREATED)


class StockStocktakeView(InventoryView):
    @store_schema(
        summary="Post a stocktake",
        request=s.StockStocktakeSerializer,
        responses={201: s.StockStocktakeResultSerializer},
        description="The counted quantity of each item in one warehouse: every difference "
        "from the ledger becomes a stocktake movement (at the level's average cost), all in "
        "one transaction; items not counted are untouched. Answers each line's expected, "
        "counted and difference (and its value at cost). An item counted twice: 400. Send "
        "an Idempotency-Key to retry safely.",
        errors={404: ITEM_404},
    )
    def post(self, request):
        fields = validate_body(s.StockStocktakeSerializer, request.data)
        stocktake = services.stock_stocktake(
            warehouse_id=fields["warehouse_id"],
            counts=s.stock_lines(fields["counts"]),
            note=fields["note"],
            actor=request.user,
        )
        return Response(s.stocktake_data(stocktake), status=status.HTTP_201_CREATED)


# --- The ledger and its figures ------------------------------------------------------------------


class StockMovementListView(InventoryView):
    @store_schema(
        summary="List stock movements",
        parameters=[s.StockMovementListQuerySerializer],
        responses={200: s.StockMovementPageSerializer},
        description="The ledger, newest first: `{movements, total, page, per_page, "
        "total_pages}`. Filters combine: `warehouse_id`, `product_id`, `variant_id`, `sku`, "
        "`reason` (one or several, comma-separated), `reference_type`, `reference_id`, "
        "`date_from`/`date_to` (UTC days, inclusive).",
    )
    def get(self, request):
        query = validate_query(s.StockMovementListQuerySerializer, request.query_params)
        page = selectors.movement_page(query)
        return Response(s.named_page("movements", page, s.movement_data))


class StockStatsView(InventoryView):
    @store_schema(
        summary="Stock figures",
        parameters=[s.StockStatsQuerySerializer],
        responses={200: s.StockStatsSerializer},
        description="Value at cost per warehouse and in all (units on hand at their level's "
        "average cost; units of unknown cost left out); low stock (levels of active "
        "warehouses at or below their reorder point: the count and the lowest 50), out of "
        "stock (at or below zero); turnover over `date_from`..`date_to` (default the last 30 "
        "days): units sold (the net of the orders' movements) / average stock (the mean of "
        "the opening and closing stock). `warehouse_id` narrows all of it to one warehouse.",
    )
    def get(self, request):
        query = validate_query(s.StockStatsQuerySerializer, request.query_params)
        return Response(s.stats_data(selectors.stock_stats(query)))
