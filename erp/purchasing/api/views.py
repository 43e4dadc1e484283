"""Purchasing routes (ec_manage_purchasing, behind the ERP's licence gate): thin views over
erp.purchasing.selectors and services."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from erp.core.views import ERPView
from erp.purchasing import documents, selectors, services
from store.common.capabilities import manage
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema

from . import serializers as s

TAG = "Purchasing"
ACCESS = {"*": manage("purchasing")}
SUPPLIER_ID = OpenApiParameter("supplier_id", int, OpenApiParameter.PATH)
ORDER_ID = OpenApiParameter("order_id", int, OpenApiParameter.PATH)
PDF = {(200, "application/pdf"): OpenApiTypes.BINARY}

NOT_DRAFT = "Only a draft can be changed or deleted (`purchase_order_not_draft`)."


class PurchasingView(ERPView):
    access = ACCESS
    openapi_tag = TAG


class PurchasingResourceView(ERPView, StoreResourceView):
    access = ACCESS
    openapi_tag = TAG


def order_body(order_id: int) -> dict:
    return s.order_data(selectors.order_get(order_id))


# --- Suppliers ----------------------------------------------------------------------------------


class SupplierListView(PurchasingView):
    @store_schema(
        summary="List suppliers",
        parameters=[s.SupplierListQuerySerializer],
        responses={200: s.SupplierPageSerializer},
        description="`{suppliers, total, page, per_page, total_pages}` by name. `search`: "
        "each word in the name, code, e-mail, VAT number or contact; `active` true or false "
        "(absent: all); `country`.",
    )
    def get(self, request):
        query = validate_query(s.SupplierListQuerySerializer, request.query_params)
        return Response(s.named_page("suppliers", selectors.supplier_page(query), s.supplier_data))

    @store_schema(
        summary="Create a supplier",
        request=s.SupplierWriteSerializer,
        responses={201: s.SupplierSerializer},
        description="`name` is required; `code` is made from it when empty (unique: 400). "
        "`vat_number` is checked with python-stdnum (400 naming it). `currency` defaults to "
        "the store's. Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.SupplierWriteSerializer, request.data)
        supplier = services.supplier_create(fields=dict(fields))
        return Response(
            s.supplier_data(selectors.supplier_get(supplier.pk)), status=status.HTTP_201_CREATED
        )


class SupplierDetailView(PurchasingResourceView):
    resource = "supplier"
    id_kwarg = "supplier_id"
    output_serializer = s.SupplierSerializer
    write_serializer = s.SupplierWriteSerializer
    descriptions = {
        "patch": "Only the fields sent change; `active: false` deactivates (no new orders).",
        "put": "Same as PATCH.",
        "delete": "Deletes a supplier without purchase orders, with its prices. One with "
        "orders: 409 `supplier_in_use` (deactivate it instead).",
    }
    errors = {"delete": {409: "The supplier has purchase orders (`supplier_in_use`)."}}

    def read(self, request, pk):
        return s.supplier_data(selectors.supplier_get(pk))

    def update(self, request, pk, fields):
        services.supplier_update(supplier_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.supplier_delete(supplier_id=pk)


# --- Prices -------------------------------------------------------------------------------------


class SupplierPricesView(PurchasingView):
    @store_schema(
        summary="A supplier's prices",
        parameters=[SUPPLIER_ID, s.SupplierPriceListQuerySerializer],
        responses={200: s.SupplierPricePageSerializer},
        description="`{prices, total, page, per_page, total_pages}` by product, then price.",
    )
    def get(self, request, supplier_id):
        query = dict(validate_query(s.SupplierPriceListQuerySerializer, request.query_params))
        selectors.supplier_get(supplier_id)
        query["supplier_id"] = supplier_id
        return Response(s.named_page("prices", selectors.price_page(query), s.price_data))

    @store_schema(
        summary="Add a supplier's price",
        parameters=[SUPPLIER_ID],
        request=s.SupplierPriceCreateSerializer,
        responses={201: s.SupplierPriceSerializer},
        description="What the supplier charges for a product (every variant) or one variant, "
        "from `min_quantity` units (price breaks: one row each). `currency` defaults to the "
        "supplier's. One price per item, currency and minimum quantity (400 "
        "`duplicate_supplier_price`). A variable product is priced by variant or as a whole.",
    )
    def post(self, request, supplier_id):
        fields = validate_body(s.SupplierPriceCreateSerializer, request.data)
        price = services.supplier_price_create(supplier_id=supplier_id, fields=dict(fields))
        return Response(s.price_data(selectors.price_get(price.pk)), status=status.HTTP_201_CREATED)


class SupplierPriceListView(PurchasingView):
    @store_schema(
        summary="List supplier prices",
        parameters=[s.SupplierPriceFilterSerializer],
        responses={200: s.SupplierPricePageSerializer},
        description="Prices across suppliers (compare them for an item): filters "
        "`product_id`, `variant_id`, `supplier_id`, `currency`.",
    )
    def get(self, request):
        query = validate_query(s.SupplierPriceFilterSerializer, request.query_params)
        return Response(s.named_page("prices", selectors.price_page(query), s.price_data))


class SupplierPriceDetailView(PurchasingResourceView):
    resource = "supplier price"
    id_kwarg = "price_id"
    output_serializer = s.SupplierPriceSerializer
    write_serializer = s.SupplierPriceUpdateSerializer
    descriptions = {
        "patch": "Price, currency, minimum quantity, lead time, supplier SKU (the item stays: "
        "add another price for another item).",
        "put": "Same as PATCH.",
    }

    def read(self, request, pk):
        return s.price_data(selectors.price_get(pk))

    def update(self, request, pk, fields):
        services.supplier_price_update(price_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.supplier_price_delete(price_id=pk)


# --- Purchase orders ----------------------------------------------------------------------------


class PurchaseOrderListView(PurchasingView):
    @store_schema(
        summary="List purchase orders",
        parameters=[s.PurchaseOrderListQuerySerializer],
        responses={200: s.PurchaseOrderPageSerializer},
        description="`{purchase_orders, total, page, per_page, total_pages}`, newest order "
        "date first. Filters: `status` (one or several, comma-separated), `supplier_id`, "
        "`warehouse_id`, `date_from`/`date_to` (order date), `search`, `origin`.",
    )
    def get(self, request):
        query = validate_query(s.PurchaseOrderListQuerySerializer, request.query_params)
        page = selectors.order_page(query)
        return Response(s.named_page("purchase_orders", page, s.order_summary))

    @store_schema(
        summary="Create a purchase order (draft)",
        request=s.PurchaseOrderCreateSerializer,
        responses={201: s.PurchaseOrderSerializer},
        errors={409: "The supplier is inactive (`supplier_inactive`)."},
        description="A draft for an active supplier, in its currency (or `currency`, with "
        "`exchange_rate` to the store's). Lines `[{product_id, variant_id?, quantity, "
        "unit_cost?}]`: a missing `unit_cost` is the supplier's cheapest price that the "
        "quantity reaches in the order's currency (400 `no_supplier_price` when none). "
        "Send an Idempotency-Key to retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.PurchaseOrderCreateSerializer, request.data)
        order = services.purchase_order_create(fields=dict(fields), user=request.user)
        return Response(order_body(order.pk), status=status.HTTP_201_CREATED)


class PurchaseOrderDetailView(PurchasingResourceView):
    resource = "purchase order"
    id_kwarg = "order_id"
    output_serializer = s.PurchaseOrderSerializer
    write_serializer = s.PurchaseOrderUpdateSerializer
    descriptions = {
        "get": "The order with its lines (ordered, received, outstanding), its goods-received "
        "notes and the e-mails that sent it.",
        "patch": "A draft only (409 `purchase_order_not_draft`). `lines`, when sent, replace "
        "all the lines.",
        "put": "Same as PATCH.",
        "delete": "A draft only (409 `purchase_order_not_draft`); cancel a sent order.",
    }
    errors = {"patch": {409: NOT_DRAFT}, "put": {409: NOT_DRAFT}, "delete": {409: NOT_DRAFT}}

    def read(self, request, pk):
        return order_body(pk)

    def update(self, request, pk, fields):
        services.purchase_order_update(order_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.purchase_order_delete(order_id=pk)


class PurchaseOrderSendView(PurchasingView):
    @store_schema(
        summary="Send a purchase order",
        parameters=[ORDER_ID],
        request=s.PurchaseOrderSendSerializer,
        responses={200: s.PurchaseOrderSerializer},
        errors={
            409: "The order is received or cancelled (`purchase_order_not_sendable`), has no "
            "lines (`purchase_order_empty`), or the supplier has no e-mail address "
            "(`supplier_has_no_email`)."
        },
        description="E-mails the order as a PDF (attached) to the supplier's address, after "
        "the commit through the outbox (the e-mail waits there while the broker is down; "
        "`emails` shows its state), and records `sent_at`. A draft becomes `sent`; a sent "
        "order can be sent again. `email: false` marks it sent without an e-mail.",
    )
    def post(self, request, order_id):
        fields = validate_body(s.PurchaseOrderSendSerializer, request.data)
        services.purchase_order_send(
            order_id=order_id,
            email=fields.get("email", True),
            message=fields.get("message", ""),
            user=request.user,
        )
        return Response(order_body(order_id))


class PurchaseOrderReceiveView(PurchasingView):
    @store_schema(
        summary="Receive goods of a purchase order",
        parameters=[ORDER_ID],
        request=s.PurchaseOrderReceiveSerializer,
        responses={201: s.GoodsReceivedNoteSerializer},
        errors={
            409: "The order is not sent or partially received "
            "(`purchase_order_not_receivable`), more than a line's outstanding quantity "
            "(`over_receipt`), a line's product was deleted (`product_deleted`), or the "
            "warehouse is inactive (`warehouse_inactive`)."
        },
        description="Writes a goods-received note for `lines` `[{line_id, quantity}]` "
        "(absent: everything outstanding) into `warehouse_id` (default: the order's, else the "
        "default warehouse) and posts each into stock (reason `purchase_received`) at the "
        "line's unit cost times the order's exchange rate; the stock level's average cost "
        "moves. The order becomes `partially_received` or `received`. All or nothing. Send "
        "an Idempotency-Key to retry safely.",
    )
    def post(self, request, order_id):
        fields = validate_body(s.PurchaseOrderReceiveSerializer, request.data)
        note = services.purchase_order_receive(
            order_id=order_id,
            lines=[dict(line) for line in fields["lines"]] if "lines" in fields else None,
            warehouse_id=fields.get("warehouse_id"),
            supplier_reference=fields.get("supplier_reference", ""),
            note=fields.get("note", ""),
            user=request.user,
        )
        return Response(s.note_data(selectors.note_get(note.pk)), status=status.HTTP_201_CREATED)


class PurchaseOrderCancelView(PurchasingView):
    @store_schema(
        summary="Cancel a purchase order",
        parameters=[ORDER_ID],
        request=None,
        responses={200: s.PurchaseOrderSerializer},
        errors={
            409: "Received in part or whole, or cancelled already "
            "(`purchase_order_not_cancellable`)."
        },
        description="A draft or a sent order with nothing received becomes `cancelled`.",
    )
    def post(self, request, order_id):
        services.purchase_order_cancel(order_id=order_id)
        return Response(order_body(order_id))


class PurchaseOrderPdfView(PurchasingView):
    @store_schema(
        summary="A purchase order as PDF",
        parameters=[ORDER_ID],
        responses=PDF,
        description="The A4 document the supplier receives: store and supplier, dates, "
        "terms, where to deliver, the lines and the total.",
    )
    def get(self, request, order_id):
        order = selectors.order_get(order_id)
        response = HttpResponse(documents.order_pdf(order), content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="{order.number}.pdf"'
        response["Cache-Control"] = "no-store"
        return response


class PurchaseOrderAutoReorderView(PurchasingView):
    @store_schema(
        summary="Draft purchase orders for low stock",
        request=None,
        responses={200: s.AutoReorderSerializer},
        description="For every stock level (active warehouse) at or below its reorder "
        "point: its reorder quantity, else up to twice the point, from the cheapest price in "
        "the store's currency of an active supplier (a price break the quantity reaches; "
        "else the smallest minimum, the quantity raised to it). One draft per supplier and "
        "warehouse (`origin` auto-reorder). `skipped` lists items already on an open order "
        "(`on_order`) and items without a price (`no_supplier_price`). Running it again "
        "creates nothing new.",
    )
    def post(self, request):
        result = services.purchase_orders_auto_reorder(user=request.user)
        return Response(
            {
                "created": [order_body(order.pk) for order in result["created"]],
                "skipped": result["skipped"],
            }
        )


# --- Goods received -----------------------------------------------------------------------------


class GoodsReceivedListView(PurchasingView):
    @store_schema(
        summary="List goods-received notes",
        parameters=[s.GoodsReceivedListQuerySerializer],
        responses={200: s.GoodsReceivedPageSerializer},
        description="`{goods_received, total, page, per_page, total_pages}`, newest first, "
        "each with its lines. Filters: `supplier_id`, `purchase_order_id`, `warehouse_id`, "
        "`date_from`/`date_to` (received, UTC days).",
    )
    def get(self, request):
        query = validate_query(s.GoodsReceivedListQuerySerializer, request.query_params)
        return Response(s.named_page("goods_received", selectors.note_page(query), s.note_data))


class GoodsReceivedDetailView(PurchasingResourceView):
    resource = "goods-received note"
    id_kwarg = "note_id"
    output_serializer = s.GoodsReceivedNoteSerializer
    descriptions = {"get": "The note with its lines and their stock movements."}

    def read(self, request, pk):
        return s.note_data(selectors.note_get(pk))
