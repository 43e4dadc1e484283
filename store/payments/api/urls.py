from django.urls import path

from . import views

urlpatterns = [
    path(
        "payment/methods",
        views.OfferedPaymentMethodsView.as_view(),
        name="store-payment-methods",
    ),
    path("payment/gateways", views.GatewayListView.as_view(), name="store-payment-gateways"),
    path(
        "payment/gateways/<str:gateway_id>",
        views.GatewayDetailView.as_view(),
        name="store-payment-gateway",
    ),
    path(
        "payment/refund/<id:order_id>",
        views.RefundView.as_view(),
        name="store-payment-refund",
    ),
    path(
        "webhooks/payment/<str:gateway_id>",
        views.WebhookView.as_view(),
        name="store-payment-webhook",
    ),
    path(
        "payment/callback/<str:gateway_id>",
        views.CallbackView.as_view(),
        name="store-payment-callback",
    ),
    path(
        "payment/stripe/intent",
        views.StripeIntentView.as_view(),
        name="store-payment-stripe-intent",
    ),
    path(
        "payment/paypal/orders",
        views.PayPalOrdersView.as_view(),
        name="store-payment-paypal-orders",
    ),
    path(
        "payment/paypal/orders/<str:paypal_order_id>/capture",
        views.PayPalCaptureView.as_view(),
        name="store-payment-paypal-capture",
    ),
    path(
        "payment/bank-redirect/<id:order_id>",
        views.BankRedirectView.as_view(),
        name="store-payment-bank-redirect",
    ),
    path(
        "payment/gateway-config",
        views.GatewayConfigListView.as_view(),
        name="store-payment-gateway-configs",
    ),
    path(
        "payment/gateway-config/<id:config_id>",
        views.GatewayConfigDetailView.as_view(),
        name="store-payment-gateway-config",
    ),
    path(
        "payment/gateway-config/<id:config_id>/test",
        views.GatewayConfigTestView.as_view(),
        name="store-payment-gateway-config-test",
    ),
]
