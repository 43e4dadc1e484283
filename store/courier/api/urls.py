from django.urls import path

from . import views

urlpatterns = [
    path("courier/pickup-list", views.CourierPickupListView.as_view(), name="store-courier-pickup"),
    path("courier/settings", views.CourierSettingsView.as_view(), name="store-courier-settings"),
    path(
        "courier/<str:provider>/test-connection",
        views.CourierTestConnectionView.as_view(),
        name="store-courier-test-connection",
    ),
    path(
        "courier/<str:provider>/create-voucher",
        views.CourierVoucherCreateView.as_view(),
        name="store-courier-create-voucher",
    ),
    path(
        "courier/<str:provider>/label/<str:voucher>",
        views.CourierLabelView.as_view(),
        name="store-courier-label",
    ),
    path(
        "courier/<str:provider>/cancel/<str:voucher>",
        views.CourierCancelView.as_view(),
        name="store-courier-cancel",
    ),
    path(
        "courier/<str:provider>/track/<str:voucher>",
        views.CourierTrackView.as_view(),
        name="store-courier-track",
    ),
    # An order's courier routes (capability ec_manage_orders)
    path(
        "orders/<id:order_id>/courier/create-voucher",
        views.OrderCourierVoucherCreateView.as_view(),
        name="store-order-courier-create-voucher",
    ),
    path(
        "orders/<id:order_id>/courier/label/<id:shipment_id>",
        views.OrderCourierLabelView.as_view(),
        name="store-order-courier-label",
    ),
    path(
        "orders/<id:order_id>/courier/track/<id:shipment_id>",
        views.OrderCourierTrackView.as_view(),
        name="store-order-courier-track",
    ),
    path(
        "orders/<id:order_id>/courier/cancel/<id:shipment_id>",
        views.OrderCourierCancelView.as_view(),
        name="store-order-courier-cancel",
    ),
]
