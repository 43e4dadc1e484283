"""An order's items, payments and shipments (staff: ec_manage_orders or manage_options)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from store.common.capabilities import MANAGE_ORDERS
from store.common.errors import not_found
from store.common.params import validate_body
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.orders import services
from store.orders.models import Order, OrderItem, Payment, Shipment

from .. import serializers as s

ORDER_ID = OpenApiParameter("order_id", int, OpenApiParameter.PATH)
MANAGERS = {"*": MANAGE_ORDERS}
NOT_EDITABLE = "The order's items cannot change in its status (`order_not_editable`)."
FEWER_409 = (
    "Not enough stock, or fewer units than shipped (`item_shipped`) or restocked "
    "(`item_restocked`)."
)


def _order(order_id: int) -> Order:
    order = Order.objects.filter(pk=order_id).first()
    if order is None:
        raise not_found("order", order_id)
    return order


# --- Items --------------------------------------------------------------------------------------


class OrderItemsView(StoreAPIView):
    access = MANAGERS
    openapi_tag = "Order items"

    @store_schema(
        summary="An order's items",
        parameters=[ORDER_ID],
        responses={200: s.OrderItemsSerializer},
    )
    def get(self, request, order_id):
        order = _order(order_id)
        return Response({"items": [s.item_data(item) for item in order.items.all()]})

    @store_schema(
        summary="Add an item to an order",
        parameters=[ORDER_ID],
        request=s.OrderItemInSerializer,
        responses={201: s.OrderItemWithTotalsSerializer},
        errors={409: f"{NOT_EDITABLE} Not enough stock (`insufficient_stock`)."},
        description="Body `{product_id, variant_id?, quantity?, price?, tax?, title?, sku?, "
        "options?}`; price defaults to the catalog's price now. Only pending, on-hold and "
        "processing orders take items. The totals are recalculated (answered in `order`) and "
        "the stock is taken at once.",
    )
    def post(self, request, order_id):
        fields = validate_body(s.OrderItemInSerializer, request.data)
        item = services.order_item_add(order_id=order_id, fields=fields, actor=request.user)
        return Response(s.item_data(item, order=_order(order_id)), status=status.HTTP_201_CREATED)


class OrderItemDetailView(StoreResourceView):
    access = MANAGERS
    openapi_tag = "Order items"
    resource = "order_item"
    id_kwarg = "item_id"
    output_serializer = s.OrderItemWithTotalsSerializer
    write_serializer = s.OrderItemUpdateSerializer
    summaries = {
        "get": "Read an order item",
        "patch": "Update an order item",
        "put": "Update an order item",
        "delete": "Remove an order item",
    }
    descriptions = {
        "patch": "quantity, price (unit), tax, title, sku, options; the product stays (remove "
        "the item and add another). More units are taken from stock at once, fewer given "
        "back; the totals are recalculated (answered in `order`).",
        "put": "Same as PATCH.",
        "delete": "Removes an item that is in no shipment; its stock is given back and the "
        "totals recalculated.",
    }
    errors = {
        "patch": {409: f"{NOT_EDITABLE} {FEWER_409}"},
        "put": {409: f"{NOT_EDITABLE} {FEWER_409}"},
        "delete": {409: f"{NOT_EDITABLE} The item is in a shipment (`item_shipped`)."},
    }

    def _check(self, pk) -> None:
        if not OrderItem.objects.filter(pk=pk, order_id=self.kwargs["order_id"]).exists():
            raise not_found("order_item", pk)

    def read(self, request, pk):
        item = (
            OrderItem.objects.select_related("order")
            .filter(pk=pk, order_id=self.kwargs["order_id"])
            .first()
        )
        if item is None:
            raise not_found("order_item", pk)
        return s.item_data(item, order=item.order)

    def update(self, request, pk, fields):
        self._check(pk)
        services.order_item_update(item_id=pk, fields=fields, actor=request.user)

    def remove(self, request, pk):
        self._check(pk)
        services.order_item_delete(item_id=pk, actor=request.user)


# --- Payments -----------------------------------------------------------------------------------


class OrderPaymentsView(StoreAPIView):
    access = MANAGERS
    openapi_tag = "Payments"

    @store_schema(
        summary="An order's payments and refunds",
        parameters=[ORDER_ID],
        responses={200: s.PaymentsSerializer},
    )
    def get(self, request, order_id):
        order = _order(order_id)
        return Response({"payments": [s.payment_data(p) for p in order.payments.all()]})

    @store_schema(
        summary="Record a payment or a refund",
        parameters=[ORDER_ID],
        request=s.PaymentCreateSerializer,
        responses={201: s.PaymentWithOrderSerializer},
        description="Body `{amount, kind?: payment|refund, status?: pending|completed|failed, "
        "method?, transaction_id?, note?, paid_at?}`. Completed payments and refunds set the "
        "order's amounts paid and its payment status (unpaid, partially_paid, paid, "
        "partially_refunded, refunded); refunds cannot exceed what was paid (400 "
        "`refund_exceeds_paid`).",
    )
    def post(self, request, order_id):
        fields = validate_body(s.PaymentCreateSerializer, request.data)
        payment = services.payment_create(order_id=order_id, fields=fields, actor=request.user)
        return Response(
            s.payment_data(payment, order=_order(order_id)), status=status.HTTP_201_CREATED
        )


class PaymentDetailView(StoreResourceView):
    access = MANAGERS
    openapi_tag = "Payments"
    resource = "payment"
    id_kwarg = "payment_id"
    output_serializer = s.PaymentWithOrderSerializer
    write_serializer = s.PaymentUpdateSerializer
    descriptions = {
        "patch": "The order's amounts paid and payment status follow (answered in `order`).",
        "put": "Same as PATCH.",
        "delete": "The order's amounts paid and payment status follow.",
    }

    def read(self, request, pk):
        payment = Payment.objects.select_related("order").filter(pk=pk).first()
        if payment is None:
            raise not_found("payment", pk)
        return s.payment_data(payment, order=payment.order)

    def update(self, request, pk, fields):
        services.payment_update(payment_id=pk, fields=fields, actor=request.user)

    def remove(self, request, pk):
        services.payment_delete(payment_id=pk, actor=request.user)


# --- Shipments ----------------------------------------------------------------------------------


class OrderShipmentsView(StoreAPIView):
    access = MANAGERS
    openapi_tag = "Shipments"

    @store_schema(
        summary="An order's shipments",
        parameters=[ORDER_ID],
        responses={200: s.ShipmentsSerializer},
    )
    def get(self, request, order_id):
        order = _order(order_id)
        shipments = order.shipments.prefetch_related("items")
        return Response({"shipments": [s.shipment_data(x) for x in shipments]})

    @store_schema(
        summary="Create a shipment",
        parameters=[ORDER_ID],
        request=s.ShipmentCreateSerializer,
        responses={201: s.ShipmentWithOrderSerializer},
        errors={409: "The order is cancelled, refunded or failed (`order_closed`)."},
        description="Body `{items?: [{order_item_id, quantity}], status?, carrier?, service?, "
        "tracking_number?, tracking_url?, note?, shipped_at?, delivered_at?}`; without items "
        "every unit not yet in a shipment. Status defaults to shipped. Shipments cannot claim "
        "more units than ordered (400 `shipment_exceeds_order`). The order's fulfilment "
        "status follows: fulfilled when every unit is shipped or delivered, "
        "partially_fulfilled when some are, returned when shipments came back and none is "
        "out, else unfulfilled.",
    )
    def post(self, request, order_id):
        fields = validate_body(s.ShipmentCreateSerializer, request.data)
        shipment = services.shipment_create(order_id=order_id, fields=fields, actor=request.user)
        return Response(
            s.shipment_data(shipment, order=_order(order_id)), status=status.HTTP_201_CREATED
        )


class ShipmentDetailView(StoreResourceView):
    access = MANAGERS
    openapi_tag = "Shipments"
    resource = "shipment"
    id_kwarg = "shipment_id"
    output_serializer = s.ShipmentWithOrderSerializer
    write_serializer = s.ShipmentUpdateSerializer
    descriptions = {
        "patch": "Status and tracking; the order's fulfilment status follows (in `order`).",
        "put": "Same as PATCH.",
        "delete": "The order's fulfilment status follows.",
    }

    def read(self, request, pk):
        shipment = (
            Shipment.objects.select_related("order").prefetch_related("items").filter(pk=pk).first()
        )
        if shipment is None:
            raise not_found("shipment", pk)
        return s.shipment_data(shipment, order=shipment.order)

    def update(self, request, pk, fields):
        services.shipment_update(shipment_id=pk, fields=fields, actor=request.user)

    def remove(self, request, pk):
        services.shipment_delete(shipment_id=pk, actor=request.user)
