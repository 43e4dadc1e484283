from django.urls import path

from . import views

urlpatterns = [
    path("suppliers", views.SupplierListView.as_view(), name="erp-suppliers"),
    path("suppliers/<id:supplier_id>", views.SupplierDetailView.as_view(), name="erp-supplier"),
    path(
        "suppliers/<id:supplier_id>/prices",
        views.SupplierPricesView.as_view(),
        name="erp-supplier-prices",
    ),
    path("supplier-prices", views.SupplierPriceListView.as_view(), name="erp-prices"),
    path(
        "supplier-prices/<id:price_id>", views.SupplierPriceDetailView.as_view(), name="erp-price"
    ),
    path("purchase-orders", views.PurchaseOrderListView.as_view(), name="erp-purchase-orders"),
    path(
        "purchase-orders/auto-reorder",
        views.PurchaseOrderAutoReorderView.as_view(),
        name="erp-purchase-orders-auto-reorder",
    ),
    path(
        "purchase-orders/<id:order_id>",
        views.PurchaseOrderDetailView.as_view(),
        name="erp-purchase-order",
    ),
    path(
        "purchase-orders/<id:order_id>/send",
        views.PurchaseOrderSendView.as_view(),
        name="erp-purchase-order-send",
    ),
    path(
        "purchase-orders/<id:order_id>/receive",
        views.PurchaseOrderReceiveView.as_view(),
        name="erp-purchase-order-receive",
    ),
    path(
        "purchase-orders/<id:order_id>/cancel",
        views.PurchaseOrderCancelView.as_view(),
        name="erp-purchase-order-cancel",
    ),
    path(
        "purchase-orders/<id:order_id>/pdf",
        views.PurchaseOrderPdfView.as_view(),
        name="erp-purchase-order-pdf",
    ),
    path("goods-received", views.GoodsReceivedListView.as_view(), name="erp-goods-received"),
    path(
        "goods-received/<id:note_id>",
        views.GoodsReceivedDetailView.as_view(),
        name="erp-goods-received-note",
    ),
]
