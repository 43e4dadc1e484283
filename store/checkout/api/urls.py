from django.urls import path

from . import views

urlpatterns = [
    path("checkout", views.CheckoutView.as_view(), name="store-checkout"),
    path("checkout/settings", views.CheckoutSettingsView.as_view(), name="store-checkout-settings"),
    path(
        "checkout/payment-methods",
        views.PaymentMethodsView.as_view(),
        name="store-checkout-payment-methods",
    ),
    path("checkout/check-email", views.CheckEmailView.as_view(), name="store-checkout-check-email"),
    path("checkout/login", views.CheckoutLoginView.as_view(), name="store-checkout-login"),
    path(
        "checkout/create-account",
        views.CheckoutCreateAccountView.as_view(),
        name="store-checkout-create-account",
    ),
    path(
        "checkout/<id:checkout_id>",
        views.CheckoutDetailView.as_view(),
        name="store-checkout-detail",
    ),
    path(
        "checkout/<id:checkout_id>/validate",
        views.CheckoutValidateView.as_view(),
        name="store-checkout-validate",
    ),
    path(
        "checkout/<id:checkout_id>/complete",
        views.CheckoutCompleteView.as_view(),
        name="store-checkout-complete",
    ),
]
