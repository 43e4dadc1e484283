from django.urls import path

from . import views

# The shopper's /coupons/... routes are the cart's (store.cart.api.urls).
urlpatterns = [
    path("admin/coupons", views.AdminCouponListView.as_view(), name="store-admin-coupons"),
    path(
        "admin/coupons/<id:coupon_id>",
        views.AdminCouponDetailView.as_view(),
        name="store-admin-coupon",
    ),
]
