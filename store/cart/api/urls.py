from django.urls import path

from .views import cart, coupons

urlpatterns = [
    path("cart", cart.CartView.as_view(), name="store-cart"),
    path("cart/items", cart.CartItemsView.as_view(), name="store-cart-items"),
    path("cart/items/<str:item_id>", cart.CartItemView.as_view(), name="store-cart-item"),
    path("cart/clear", cart.CartClearView.as_view(), name="store-cart-clear"),
    path("cart/summary", cart.CartSummaryView.as_view(), name="store-cart-summary"),
    path(
        "cart/shipping-address",
        cart.CartShippingAddressView.as_view(),
        name="store-cart-shipping-address",
    ),
    path(
        "cart/shipping-methods",
        cart.CartShippingMethodsView.as_view(),
        name="store-cart-shipping-methods",
    ),
    path(
        "cart/shipping-method",
        cart.CartShippingMethodView.as_view(),
        name="store-cart-shipping-method",
    ),
    path("coupons/apply", coupons.CouponApplyView.as_view(), name="store-coupons-apply"),
    path("coupons/remove", coupons.CouponRemoveView.as_view(), name="store-coupons-remove"),
    path("coupons/applied", coupons.CouponsAppliedView.as_view(), name="store-coupons-applied"),
    path("coupons/validate", coupons.CouponValidateView.as_view(), name="store-coupons-validate"),
]
