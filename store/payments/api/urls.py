from django.urls import path, re_path

from . import views

GATEWAY = r"(?P<gateway_id>[a-z_]{1,40})"

urlpatterns = [
    path(
        "payment/methods",
        views.OfferedPaymentMethodsView.as_view(),
        name="store-payment-methods",
    ),
    path("payment/gateways", views.GatewayListView.as_view(), name="store-payment-gateways"),
    re_path(
        rf"^payment/gateways/{GATEWAY}$",
        views.GatewayDetailView.as_view(),
        name="store-payment-gateway",
    ),
    path(
        "payment/refund/<id:order_id>",
        views.RefundView.as_view(),
        name="store-payment-refund",
    ),
    re_path(
        rf"^webhooks/payment/{GATEWAY}$",
        views.WebhookView.as_view(),
        name="store-payment-webhook",
    ),
    re_path(
        rf"^payment/callback/{GATEWAY}$",
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
    re_path(
        r"^payment/paypal/orders/(?P<paypal_order_id>[A-Za-z0-9_-]{1,100})/capture$",
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
