from django.urls import path

from .views import account, lines, orders

urlpatterns = [
    # Orders (staff)
    path("orders", orders.OrderListView.as_view(), name="store-orders"),
    path("orders/stats", orders.OrderStatsView.as_view(), name="store-orders-stats"),
    path("orders/statuses", orders.OrderStatusesView.as_view(), name="store-orders-statuses"),
    path("orders/bulk", orders.OrderBulkView.as_view(), name="store-orders-bulk"),
    path("orders/<id:order_id>", orders.OrderDetailView.as_view(), name="store-order"),
    path(
        "orders/<id:order_id>/status",
        orders.OrderStatusView.as_view(),
        name="store-order-status",
    ),
    path(
        "orders/<id:order_id>/payment-status",
        orders.OrderPaymentStatusView.as_view(),
        name="store-order-payment-status",
    ),
    path(
        "orders/<id:order_id>/fulfillment-status",
        orders.OrderFulfillmentStatusView.as_view(),
        name="store-order-fulfillment-status",
    ),
    # Items, payments, shipments
    path("orders/<id:order_id>/items", lines.OrderItemsView.as_view(), name="store-order-items"),
    path(
        "orders/<id:order_id>/items/<id:item_id>",
        lines.OrderItemDetailView.as_view(),
        name="store-order-item",
    ),
    path(
        "orders/<id:order_id>/payments",
        lines.OrderPaymentsView.as_view(),
        name="store-order-payments",
    ),
    path("payments/<id:payment_id>", lines.PaymentDetailView.as_view(), name="store-payment"),
    path(
        "orders/<id:order_id>/shipments",
        lines.OrderShipmentsView.as_view(),
        name="store-order-shipments",
    ),
    path("shipments/<id:shipment_id>", lines.ShipmentDetailView.as_view(), name="store-shipment"),
    # The customer's side
    path("account/orders", account.AccountOrdersView.as_view(), name="store-account-orders"),
    path(
        "account/orders/<id:order_id>",
        account.AccountOrderDetailView.as_view(),
        name="store-account-order",
    ),
    path(
        "order-received/<id:order_id>",
        account.OrderReceivedView.as_view(),
        name="store-order-received",
    ),
]
