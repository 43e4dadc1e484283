"""Orders for staff: list, create, read, update, delete, the three status moves, bulk, stats,
statuses. Everything needs ec_manage_orders (or manage_options)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from store.common.capabilities import MANAGE_ORDERS
from store.common.errors import invalid_params
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.orders import selectors, services
from store.orders.choices import (
    EDITABLE,
    TERMINAL,
    TRANSITIONS,
    FulfillmentStatus,
    OrderSource,
    OrderStatus,
    PaymentStatus,
)

from .. import serializers as s

TAG = "Orders"
ORDER_ID = OpenApiParameter("order_id", int, OpenApiParameter.PATH)
MANAGERS = {"*": MANAGE_ORDERS}
STOCK_409 = "Not enough stock for an item (`insufficient_stock`, the item named)."
TRANSITION_409 = "The move is not allowed (`invalid_status_transition`)."


def order_body(order_id: int) -> dict:
    return s.order_detail(selectors.order_get(order_id))


def answered(order) -> dict:
    """The body of an order a service answered: the same as order_body, from its instance."""
    return s.order_detail(selectors.order_completed(order))


class OrderListView(StoreAPIView):
    access = MANAGERS
    openapi_tag = TAG

    @store_schema(
        summary="List orders",
        parameters=[s.OrderListQuerySerializer],
        responses={200: s.OrderPageSerializer},
        description="Every filter combines with the others; status, payment_status and "
        "fulfillment_status take one value or several, comma-separated. Newest first by "
        "default. Answers `{orders, total, page, per_page, total_pages}`.",
    )
    def get(self, request):
        query = validate_query(s.OrderListQuerySerializer, request.query_params)
        return s.page_response(selectors.order_page(query))

    @store_schema(
        summary="Create an order",
        request=s.OrderCreateSerializer,
        responses={201: s.OrderSerializer},
        errors={409: STOCK_409},
        description="Totals are computed by the server from the items (unit price: `price`, "
        "default the catalog's price now; `tax` per line) and the order's shipping_total, "
        "shipping_tax and discount_total; sent totals are ignored. The stock the order holds "
        "is taken at once: when an item has too few units and allows no backorders nothing "
        "is created (409 `insufficient_stock`). Status defaults to pending, currency to the "
        "store's. Without customer_id, a billing e-mail address finds or makes the customer.",
    )
    def post(self, request):
        fields = validate_body(s.OrderCreateSerializer, request.data)
        order = services.order_create(
            items=fields.pop("items", []),
            actor=request.user,
            source=OrderSource.API,
            **fields,
        )
        return Response(order_body(order.pk), status=status.HTTP_201_CREATED)


class OrderDetailView(StoreResourceView):
    access = MANAGERS
    openapi_tag = TAG
    resource = "order"
    id_kwarg = "order_id"
    output_serializer = s.OrderSerializer
    write_serializer = s.OrderUpdateSerializer
    descriptions = {
        "get": "The full order: items, addresses, payments, shipments, totals, statuses and "
        "their history.",
        "patch": "Only the fields sent change. Amounts recalculate the totals. status, "
        "payment_status and fulfillment_status move like their own endpoints (for "
        "status-only changes use those).",
        "put": "Same as PATCH.",
        "delete": "An order that holds stock (any status but cancelled, refunded, failed) gives "
        "it back first, then it is deleted.",
    }
    errors = {
        "patch": {409: f"{TRANSITION_409} {STOCK_409}"},
        "put": {409: f"{TRANSITION_409} {STOCK_409}"},
    }

    def read(self, request, pk):
        order = getattr(request, "updated_order", None)  # update() below, in this request
        return answered(order) if order is not None else order_body(pk)

    def update(self, request, pk, fields):
        request.updated_order = services.order_update(
            order_id=pk, fields=fields, actor=request.user
        )

    def remove(self, request, pk):
        services.order_delete(order_id=pk, actor=request.user)


def _required(request, name: str):
    """The body's `name`, or 400 missing_<name> (spec: missing_status)."""
    data = request.data
    if not isinstance(data, dict):
        raise invalid_params({"body": ["Send a JSON object."]})
    value = data.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise invalid_params({name: [f"Send {name}."]}, code=f"missing_{name}")


class _StatusMoveView(StoreAPIView):
    access = MANAGERS
    openapi_tag = TAG
    field: str = ""
    body_serializer = None

    def move(self, request, order_id, value, note): ...  # answers the moved order

    def put(self, request, order_id):
        _required(request, self.field)
        body = validate_body(self.body_serializer, request.data)
        order = self.move(request, order_id, body[self.field], body.get("note", ""))
        return Response(answered(order))

    def patch(self, request, order_id):
        return self.put(request, order_id)


def _schema(summary: str, body, description: str, errors=None):
    return store_schema(
        summary=summary,
        request=body,
        responses={200: s.OrderSerializer},
        parameters=[ORDER_ID],
        errors=errors,
        description=description,
    )


STATUS_TEXT = (
    "Body `{status, note?}` (omitted status: 400 `missing_status`). Into cancelled, refunded "
    "or failed the order gives its stock back; leaving one of them takes it again (409 "
    "`insufficient_stock` when it cannot, and the order stays). The allowed moves are listed "
    "by GET /orders/statuses (others: 409 `invalid_status_transition`); the same status again "
    "changes nothing."
)


class OrderStatusView(_StatusMoveView):
    field = "status"
    body_serializer = s.StatusBodySerializer

    def move(self, request, order_id, value, note):
        return services.order_status_set(
            order_id=order_id, status=value, note=note, actor=request.user
        )

    @_schema(
        "Change an order's status",
        s.StatusBodySerializer,
        STATUS_TEXT,
        {409: f"{TRANSITION_409} {STOCK_409}"},
    )
    def put(self, request, order_id):
        return super().put(request, order_id)

    @_schema(
        "Change an order's status",
        s.StatusBodySerializer,
        STATUS_TEXT,
        {409: f"{TRANSITION_409} {STOCK_409}"},
    )
    def patch(self, request, order_id):
        return super().put(request, order_id)


PAYMENT_TEXT = (
    "Body `{payment_status, note?}` (omitted: 400 `missing_payment_status`). Sets the payment "
    "status by hand, e.g. for a payment made outside the store; it follows the amounts paid "
    "again when payments or totals change."
)


class OrderPaymentStatusView(_StatusMoveView):
    field = "payment_status"
    body_serializer = s.PaymentStatusBodySerializer

    def move(self, request, order_id, value, note):
        return services.order_payment_status_set(
            order_id=order_id, payment_status=value, note=note, actor=request.user
        )

    @_schema("Set an order's payment status", s.PaymentStatusBodySerializer, PAYMENT_TEXT)
    def put(self, request, order_id):
        return super().put(request, order_id)

    @_schema("Set an order's payment status", s.PaymentStatusBodySerializer, PAYMENT_TEXT)
    def patch(self, request, order_id):
        return super().put(request, order_id)


FULFILLMENT_TEXT = (
    "Body `{fulfillment_status, note?}` (omitted: 400 `missing_fulfillment_status`). Sets the "
    "fulfilment status by hand; it follows the shipments again when shipments or items change."
)


class OrderFulfillmentStatusView(_StatusMoveView):
    field = "fulfillment_status"
    body_serializer = s.FulfillmentStatusBodySerializer

    def move(self, request, order_id, value, note):
        return services.order_fulfillment_status_set(
            order_id=order_id, fulfillment_status=value, note=note, actor=request.user
        )

    @_schema(
        "Set an order's fulfilment status", s.FulfillmentStatusBodySerializer, FULFILLMENT_TEXT
    )
    def put(self, request, order_id):
        return super().put(request, order_id)

    @_schema(
        "Set an order's fulfilment status", s.FulfillmentStatusBodySerializer, FULFILLMENT_TEXT
    )
    def patch(self, request, order_id):
        return super().put(request, order_id)


class OrderBulkView(StoreAPIView):
    access = MANAGERS
    openapi_tag = TAG

    @store_schema(
        summary="Delete orders or move them to a status, in bulk",
        request=s.BulkSerializer,
        responses={200: s.OrderBulkResultSerializer},
        description="Body `{ids: [...], action}` with at most 100 ids; action is `delete` or "
        "a status. Each order is handled on its own, with the same stock effects as the "
        "single endpoints: one refusal does not stop the others. Answers the counts, the ids "
        "that succeeded and, for each failure, the order id, code and message.",
    )
    def post(self, request):
        body = validate_body(s.BulkSerializer, request.data)
        action = body["action"].strip().lower()
        result = services.orders_bulk(
            ids=body["ids"], action=action, note=body.get("note", ""), actor=request.user
        )
        return Response(
            {
                "success": len(result.succeeded),
                "failed": len(result.failed),
                "succeeded": result.succeeded,
                "errors": result.failed,
            }
        )


class OrderStatsView(StoreAPIView):
    access = MANAGERS
    openapi_tag = TAG

    @store_schema(
        summary="Order statistics",
        parameters=[s.StatsQuerySerializer],
        responses={200: s.StatsSerializer},
        description="For the orders matching the list's filters: how many, per status, "
        "payment status and fulfilment status, and the sales (orders in processing, shipped "
        "or completed) per currency: count, total, average, net paid and units sold.",
    )
    def get(self, request):
        query = validate_query(s.StatsQuerySerializer, request.query_params)
        return Response(selectors.order_stats(query))


class OrderStatusesView(StoreAPIView):
    access = MANAGERS
    openapi_tag = TAG

    @store_schema(
        summary="The valid order, payment and fulfilment statuses",
        responses={200: s.StatusesSerializer},
        description="Each order status says whether it is terminal (holds no stock), whether "
        "its items may change and which statuses it may move to.",
    )
    def get(self, request):
        return Response(
            {
                "statuses": [
                    {
                        "value": value,
                        "label": label,
                        "terminal": value in TERMINAL,
                        "editable": value in EDITABLE,
                        "transitions": [v for v in OrderStatus.values if v in TRANSITIONS[value]],
                    }
                    for value, label in OrderStatus.choices
                ],
                "payment_statuses": [
                    {"value": value, "label": label} for value, label in PaymentStatus.choices
                ],
                "fulfillment_statuses": [
                    {"value": value, "label": label} for value, label in FulfillmentStatus.choices
                ],
            }
        )
