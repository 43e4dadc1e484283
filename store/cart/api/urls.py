from django.urls import path

from . import views

urlpatterns = [
    path("cart", views.CartView.as_view(), name="store-cart"),
    path("cart/items", views.CartItemsView.as_view(), name="store-cart-items"),
    path("cart/items/<str:item_id>", views.CartItemView.as_view(), name="store-cart-item"),
    path("cart/clear", views.CartClearView.as_view(), name="store-cart-clear"),
    path("cart/summary", views.CartSummaryView.as_view(), name="store-cart-summary"),
    path(
        "cart/shipping-address",
        views.CartShippingAddressView.as_view(),
        name="store-cart-shipping-address",
    ),
    path(
        "cart/shipping-methods",
        views.CartShippingMethodsView.as_view(),
        name="store-cart-shipping-methods",
    ),
    path(
        "cart/shipping-method",
        views.CartShippingMethodView.as_view(),
        name="store-cart-shipping-method",
    ),
]
