from django.urls import path

from . import views

urlpatterns = [
    path("coupons/apply", views.CouponApplyView.as_view(), name="store-coupons-apply"),
    path("coupons/remove", views.CouponRemoveView.as_view(), name="store-coupons-remove"),
    path("coupons/applied", views.CouponsAppliedView.as_view(), name="store-coupons-applied"),
    path("coupons/validate", views.CouponValidateView.as_view(), name="store-coupons-validate"),
    path("admin/coupons", views.AdminCouponListView.as_view(), name="store-admin-coupons"),
    path(
        "admin/coupons/<id:coupon_id>",
        views.AdminCouponDetailView.as_view(),
        name="store-admin-coupon",
    ),
]
