"""Mounted under /{REST_ROOT}/ec/v1/ (store/urls.py)."""

from django.urls import path

from . import views

urlpatterns = [
    path(
        "marketplace/webhook/<str:marketplace>",
        views.WebhookView.as_view(),
        name="store-marketplace-webhook",
    ),
    path(
        "marketplace/orders",
        views.MarketplaceOrderListView.as_view(),
        name="store-marketplace-orders",
    ),
    path(
        "marketplace/orders/<id:order_id>",
        views.MarketplaceOrderDetailView.as_view(),
        name="store-marketplace-order",
    ),
    path(
        "marketplace/orders/<id:order_id>/acknowledge",
        views.AcknowledgeView.as_view(),
        name="store-marketplace-order-acknowledge",
    ),
    path(
        "marketplace/orders/<id:order_id>/reject",
        views.RejectView.as_view(),
        name="store-marketplace-order-reject",
    ),
    path(
        "marketplace/orders/<id:order_id>/ship",
        views.ShipView.as_view(),
        name="store-marketplace-order-ship",
    ),
    path(
        "marketplace/orders/<id:order_id>/import",
        views.ImportView.as_view(),
        name="store-marketplace-order-import",
    ),
    path(
        "marketplace/settings",
        views.SettingsView.as_view(),
        name="store-marketplace-settings",
    ),
]
