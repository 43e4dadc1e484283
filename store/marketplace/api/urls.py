"""Mounted under /{REST_ROOT}/ec/v1/ (store/urls.py)."""

from django.urls import path

from . import views

urlpatterns = [
    path(
        "marketplace/webhook/<str:marketplace>",
        views.MarketplaceWebhookView.as_view(),
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
        views.MarketplaceAcknowledgeView.as_view(),
        name="store-marketplace-order-acknowledge",
    ),
    path(
        "marketplace/orders/<id:order_id>/reject",
        views.MarketplaceRejectView.as_view(),
        name="store-marketplace-order-reject",
    ),
    path(
        "marketplace/orders/<id:order_id>/ship",
        views.MarketplaceShipView.as_view(),
        name="store-marketplace-order-ship",
    ),
    path(
        "marketplace/orders/<id:order_id>/import",
        views.MarketplaceImportView.as_view(),
        name="store-marketplace-order-import",
    ),
    path(
        "marketplace/settings",
        views.MarketplaceSettingsView.as_view(),
        name="store-marketplace-settings",
    ),
]
