"""The customer's side: their own orders, and the order-received (confirmation) page."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from common.api.throttling import ScopedRateThrottle
from common.errors import Forbidden
from store.common.capabilities import MANAGE_ORDERS
from store.common.errors import not_found
from store.common.pagination import page_of
from store.common.params import validate_query
from store.common.permissions import LOGGED_IN, PUBLIC, can
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.orders import selectors

from .. import serializers as s

ORDER_ID = OpenApiParameter("order_id", int, OpenApiParameter.PATH)


def customer_view(order) -> dict:
    return s.order_detail(order, staff=False)


class AccountOrdersView(StoreAPIView):
    access = {"GET": LOGGED_IN}
    openapi_tag = "My account"

    @store_schema(
        summary="My orders",
        parameters=[s.AccountOrdersQuerySerializer],
        responses={200: s.OrderPageSerializer},
        description="The logged-in account's own orders (those of the store customer linked "
        "to it), newest first, as `{orders, total, page, per_page, total_pages}`.",
    )
    def get(self, request):
        query = validate_query(s.AccountOrdersQuerySerializer, request.query_params)
        return s.page_response(page_of(selectors.orders_of_user(request.user, query), query))


class AccountOrderDetailView(StoreResourceView):
    access = {"*": LOGGED_IN}  # GET only (a resource without write_serializer or remove)
    openapi_tag = "My account"
    resource = "order"
    id_kwarg = "order_id"
    output_serializer = s.CustomerOrderSerializer
    summaries = {"get": "One of my orders"}
    descriptions = {
        "get": "The full order as its customer sees it (no staff note, payment records, "
        "history or key). Someone else's order answers 404 order_not_found, like a missing one."
    }

    def read(self, request, pk):
        return customer_view(selectors.order_of_user(request.user, pk))


class OrderReceivedView(StoreAPIView):
    access = {"GET": PUBLIC}
    openapi_tag = "Orders"
    # Keys are long, but the lookup is public: a stricter limit stops probing and scraping.
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "order_received"

    @store_schema(
        summary="The order-received (confirmation) page's order",
        parameters=[ORDER_ID, s.OrderReceivedQuerySerializer],
        responses={200: s.CustomerOrderSerializer},
        errors={429: "Too many order-received lookups (`throttled`); see Retry-After."},
        description="Allowed with the order's key (`?key=`), to staff holding "
        "ec_manage_orders or manage_options, and to the logged-in account the order belongs "
        "to; anyone else gets 403 `invalid_order_key` (also for an order that does not exist, "
        "so order ids cannot be probed; staff get 404 order_not_found). Rate limited "
        "(THROTTLE_RATE_ORDER_RECEIVED, per client address or account).",
    )
    def get(self, request, order_id):
        query = validate_query(s.OrderReceivedQuerySerializer, request.query_params)
        order = selectors.order_received(order_id)
        staff = can(request, MANAGE_ORDERS)
        user = request.user
        owner = (
            order is not None
            and user is not None
            and user.is_authenticated
            and order.customer is not None
            and order.customer.user_id == user.pk
        )
        if order is None and staff:
            raise not_found("order", order_id)
        if order is None or not (staff or owner or selectors.key_matches(order, query.get("key"))):
            raise Forbidden(
                "This order can be read with its key, by its customer or by staff.",
                code="invalid_order_key",
            )
        return Response(customer_view(order))
