"""The /payment routes: methods offered (public), gateways and their configs (staff,
ec_manage_payments), refunds (staff), the shopper's online payments (with the order's key)
and the providers' inbound notifications (public, verified by signature)."""

from __future__ import annotations

from decimal import Decimal

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from store.cart.services.pricing import cart_state
from store.cart.services.session import cart_find
from store.common.capabilities import manage
from store.common.cart_session import SESSION_PARAMETERS
from store.common.money import money_str
from store.common.params import validate_body, validate_query
from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from store.common.views import CartSessionView, StoreAPIView
from store.payments import selectors, services
from store.payments.gateways import GATEWAYS
from store.settings import selectors as store_settings

from . import serializers as s

TAG = "Payments"
CONFIG_TAG = "Gateway config"
MANAGE_PAYMENTS = manage("payments")
STAFF = {"*": MANAGE_PAYMENTS}
GATEWAY_ID = OpenApiParameter("gateway_id", str, OpenApiParameter.PATH)
ORDER_ID = OpenApiParameter("order_id", int, OpenApiParameter.PATH)
CONFIG_ID = OpenApiParameter("config_id", int, OpenApiParameter.PATH)
CHECKED_BEFORE_ACTIVE = (
    "The credentials are checked by the provider (as POST .../test does) before the config "
    "can serve payments: it is active (`active`, default true on create) only when the check "
    "passes, and only then are the gateway's other configs made inactive. When the check "
    "fails (credentials refused or missing, or the provider unreachable) the config is saved "
    "all the same, inactive, and the answer says why: `active: false`, `check.ok: false`, "
    "`check.held_inactive: true` and `check.message` (kept as `last_check`). A credential "
    "the provider does not take is 400 naming it."
)
PROVIDER_502 = (
    "The provider could not be reached or refused (`payment_provider_unavailable`, "
    "`payment_provider_refused`); nothing was recorded."
)
NOT_CONFIGURED_503 = (
    "No active config and the sandbox is off on this server (`payments_not_configured`)."
)
PAYING_ERRORS = {
    403: "The order's key does not match, or no such order (`invalid_order_key`).",
    409: "The order is not paid by this gateway (`payment_method_mismatch`), not awaiting "
    "payment (`order_not_payable`) or paid already (`order_already_paid`).",
    502: PROVIDER_502,
    503: NOT_CONFIGURED_503,
}


class OfferedPaymentMethodsView(CartSessionView):
    openapi_tag = TAG

    @store_schema(
        summary="Payment methods a shopper can use now",
        parameters=[s.MethodsQuerySerializer, *SESSION_PARAMETERS],
        responses={200: s.OfferedMethodsSerializer},
        description="The gateways enabled in /payment/gateways that can take payments on "
        "this server and are offered for the cart's shipping country and total (their "
        "`countries`, `min_total`, `max_total`), in the gateways' order. `country` and "
        "`total` stand in for the cart's (a `country` that is no ISO 3166-1 code is 400 naming "
        "it, as the shipping and tax routes answer). The same list as /checkout/payment-methods.",
    )
    def get(self, request):
        query = validate_query(s.MethodsQuerySerializer, request.query_params)
        config = store_settings.get_all()
        cart = cart_find(**self.session(request))
        state = cart_state(cart)
        country = query.get("country", state.location.country or "")
        total = query.get("total", state.totals["total"])
        methods = selectors.payment_methods(config=config, country=country, total=total)
        body = {
            "payment_methods": [g.describe(config) for g in methods],
            "country": country,
            "total": money_str(Decimal(total)),
            "currency": state.currency,
        }
        return self.answer(request, cart, body)


class GatewayListView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="List payment gateways",
        responses={200: s.GatewayListSerializer},
        description="Every gateway (a fixed list, so not paged), in their order: enabled, "
        "title, description, order, whether it can take payments here, its provider and "
        "active config, and its settings.",
    )
    def get(self, request):
        return Response({"gateways": selectors.gateway_list()})


class GatewayDetailView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Read a payment gateway",
        parameters=[GATEWAY_ID],
        responses={200: s.GatewaySerializer},
    )
    def get(self, request, gateway_id):
        gateway = selectors.gateway_of(gateway_id)
        return Response(selectors.gateway_data(gateway, store_settings.get_all()))

    UPDATE = {
        "request": s.GatewayWriteSerializer,
        "parameters": [GATEWAY_ID],
        "responses": {200: s.GatewaySerializer},
        "description": "Only the fields sent change (PUT is the same). `settings`: "
        "`countries` (ISO codes, empty: all), `min_total`, `max_total` (0: no limit), and "
        "for bank_transfer `account_name`, `bank_name`, `iban`, `bic`, `hold_hours`; another "
        "key is 400 `unknown_setting`. Stored in the `payments` store settings.",
    }

    @store_schema(summary="Update a payment gateway (partial)", **UPDATE)
    def patch(self, request, gateway_id):
        selectors.gateway_of(gateway_id)
        fields = validate_body(s.GatewayWriteSerializer, request.data, partial=True)
        return Response(
            services.gateway_update(gateway_id=gateway_id, fields=fields, user=request.user)
        )

    @store_schema(summary="Update a payment gateway (partial, as PATCH)", **UPDATE)
    def put(self, request, gateway_id):
        return self.patch(request, gateway_id)


class RefundView(StoreAPIView):
    access = STAFF
    openapi_tag = TAG

    @store_schema(
        summary="Refund an order",
        parameters=[ORDER_ID],
        request=s.RefundWriteSerializer,
        responses={201: s.RefundSerializer},
        errors={
            409: "Nothing paid (`order_not_paid`), more than is left to refund "
            "(`refund_exceeds_refundable`), more units than a line holds "
            "(`restock_exceeds_held`) or an order whose stock was given back "
            "(`order_stock_released`).",
            502: PROVIDER_502,
            503: NOT_CONFIGURED_503,
        },
        description="In full (no `amount`) or in part, through the gateway that took each "
        "payment (newest first; one taken offline is refunded by hand: recorded, no provider "
        "call). Each is recorded on the order as a refund payment (shown here with a "
        "negative amount); the payment status follows (partially_refunded, refunded). "
        "`restock: true` gives the stock back, with a refund of everything left only (400 "
        "`restock_needs_full_refund`): the order moves to refunded. `restock: true` with "
        "`items: [{item_id, quantity}]` gives back exactly those units, with any refund (the "
        "order's status stays; an item not of the order is 400 `order_item_not_found`). "
        "`currency` other than "
        "the order's: 400 `currency_mismatch`. Send an Idempotency-Key to retry safely.",
    )
    def post(self, request, order_id):
        body = validate_body(s.RefundWriteSerializer, request.data)
        result = services.refund_create(order_id=order_id, actor=request.user, **body)
        return Response(s.refund_data(result), status=status.HTTP_201_CREATED)


class _InboundView(StoreAPIView):
    """A provider's notification: the raw body is verified, so it is not parsed first."""

    access = {"*": PUBLIC}
    openapi_tag = TAG
    idempotent = False  # the event id is the idempotency key

    @store_schema(
        summary="A payment provider's notification",
        parameters=[GATEWAY_ID],
        request={"application/json": {"type": "object"}},
        responses={200: s.EventAnswerSerializer},
        errors={
            409: "The event names a payment started through another gateway, or another "
            "provider of this one, than the config that signed it "
            "(`payment_gateway_mismatch`): nothing is recorded, and the same event is refused "
            "again.",
            503: NOT_CONFIGURED_503,
            502: PROVIDER_502,
        },
        description="Signed by the gateway's provider: stripe (Stripe-Signature, checked "
        "by stripe.Webhook.construct_event with the config's webhook_secret), paypal (its "
        "Paypal-Transmission-* headers, checked by PayPal's verify-webhook-signature with "
        "the config's webhook_id), the sandbox (`Sandbox-Signature: t=<unix>,v1=<HMAC-"
        "SHA256 hex of '<t>.<body>'>` with the config's webhook_secret, 5 minutes' "
        "tolerance; `manage.py payment_sandbox_event` makes one). A bad signature is 400 "
        "`invalid_signature`. Handled once per event id: again, or an event type not acted "
        "on, or a payment not started here, is 200 with nothing changed (`outcome`). An event "
        "is applied only to a payment started through this gateway and its signing config's "
        "provider: one naming another gateway's payment is 409 `payment_gateway_mismatch`.",
    )
    def post(self, request, gateway_id):
        body = request._request.body
        answer = services.event_receive(gateway_id=gateway_id, body=body, headers=request.headers)
        return Response(answer)


class WebhookView(_InboundView):
    pass


class CallbackView(_InboundView):
    pass


class _PayingView(StoreAPIView):
    access = {"*": PUBLIC}
    openapi_tag = TAG

    def started(self, gateway_id: str, **kwargs) -> Response:
        started = services.payment_start(gateway_id=gateway_id, **kwargs)
        instructions = GATEWAYS[gateway_id].instructions(store_settings.get_all())
        return Response(
            s.started_data(started, instructions=instructions), status=status.HTTP_201_CREATED
        )


class StripeIntentView(_PayingView):
    @store_schema(
        summary="Create a card payment intent for an order",
        request=s.IntentWriteSerializer,
        responses={201: s.StartedSerializer},
        errors=PAYING_ERRORS,
        description="For an order placed with the `stripe` gateway, with its key: a "
        "PaymentIntent for what is due (Stripe's, or the sandbox's). Confirm it with "
        "`client_secret` (Stripe.js and `publishable_key`); the payment is recorded when "
        "the provider's `payment_intent.succeeded` arrives at /webhooks/payment/stripe. "
        "Asking again for the same order and amount answers the same intent.",
    )
    def post(self, request):
        body = validate_body(s.IntentWriteSerializer, request.data)
        return self.started("stripe", **body)


class PayPalOrdersView(_PayingView):
    @store_schema(
        summary="Create a PayPal order for an order",
        request=s.WalletOrderWriteSerializer,
        responses={201: s.StartedSerializer},
        errors=PAYING_ERRORS,
        description="For an order placed with the `paypal` gateway, with its key: a PayPal "
        "order (Orders v2, intent CAPTURE) for what is due. Send the shopper to "
        "`redirect_url` to approve it, then capture it.",
    )
    def post(self, request):
        body = validate_body(s.WalletOrderWriteSerializer, request.data)
        return self.started("paypal", **body)


class PayPalCaptureView(StoreAPIView):
    access = {"*": PUBLIC}
    openapi_tag = TAG

    @store_schema(
        summary="Capture an approved PayPal order",
        parameters=[OpenApiParameter("paypal_order_id", str, OpenApiParameter.PATH)],
        request=s.CaptureWriteSerializer,
        responses={200: s.CapturedSerializer},
        errors={
            409: "PayPal did not complete the capture (`capture_not_completed`).",
            502: PROVIDER_502,
            503: NOT_CONFIGURED_503,
        },
        description="Captures the PayPal order and records the payment on the order (the "
        "order moves to processing when paid in full). A second capture answers the first. "
        "404 `wallet_order_not_found` for an id not started here or a wrong order key.",
    )
    def post(self, request, paypal_order_id):
        body = validate_body(s.CaptureWriteSerializer, request.data)
        attempt = services.wallet_capture(external_id=paypal_order_id, **body)
        order = attempt.order
        order.refresh_from_db()
        return Response(
            {
                "order_id": order.pk,
                "id": attempt.external_id,
                "status": attempt.status,
                "transaction_id": attempt.transaction_id,
                "amount": money_str(attempt.amount),
                "currency": attempt.currency,
                "payment_status": order.payment_status,
            }
        )


class BankRedirectView(_PayingView):
    @store_schema(
        summary="The bank redirect of an order",
        parameters=[ORDER_ID],
        request=s.RedirectWriteSerializer,
        responses={201: s.StartedSerializer},
        errors=PAYING_ERRORS,
        description="For an order placed with the `bank_redirect` gateway, with its key: "
        "where to send the shopper to approve the payment (`redirect_url`) and the "
        "instructions. The bank's signed notification at /payment/callback/bank_redirect "
        "records the payment.",
    )
    def post(self, request, order_id):
        body = validate_body(s.RedirectWriteSerializer, request.data)
        return self.started("bank_redirect", order_id=order_id, **body)


# --- Gateway configs ---------------------------------------------------------------------------


class GatewayConfigListView(StoreAPIView):
    access = STAFF
    openapi_tag = CONFIG_TAG

    @store_schema(
        summary="List gateway configs",
        parameters=[s.ConfigListQuerySerializer],
        responses={200: s.ConfigPageSerializer},
        description="`{configs, total, page, per_page, total_pages}`; credentials masked.",
    )
    def get(self, request):
        query = validate_query(s.ConfigListQuerySerializer, request.query_params)
        return Response(selectors.config_list(query))

    @store_schema(
        summary="Create a gateway config",
        request=s.ConfigWriteSerializer,
        responses={201: s.ConfigSavedSerializer},
        description="A provider account of an online gateway (stripe: stripe or sandbox; "
        "paypal: paypal or sandbox; bank_redirect: sandbox). Credentials are stored "
        f"encrypted and answered masked. {CHECKED_BEFORE_ACTIVE} Send an Idempotency-Key to "
        "retry safely.",
    )
    def post(self, request):
        fields = validate_body(s.ConfigWriteSerializer, request.data)
        row = services.config_create(fields=fields)
        return Response(selectors.config_saved_data(row), status=status.HTTP_201_CREATED)


class GatewayConfigDetailView(StoreAPIView):
    access = STAFF
    openapi_tag = CONFIG_TAG

    @store_schema(
        summary="Read a gateway config",
        parameters=[CONFIG_ID],
        responses={200: s.ConfigSerializer},
        description="Credentials masked (`sk_live_…abcd`).",
    )
    def get(self, request, config_id):
        return Response(selectors.config_data(selectors.config_get(config_id)))

    UPDATE = {
        "parameters": [CONFIG_ID],
        "request": s.ConfigWriteSerializer,
        "responses": {200: s.ConfigSavedSerializer},
    }

    @store_schema(
        summary="Update a gateway config (partial)",
        description="Only the fields sent change; `credentials` merge into the stored ones "
        "(a key sent empty removes it; a key sent back as its masked value, as a form "
        "showing the answer would, keeps the stored secret; another masked value is 400). "
        "The provider's check runs when the credentials, provider or mode change or the "
        f"config is made active. {CHECKED_BEFORE_ACTIVE}",
        **UPDATE,
    )
    def patch(self, request, config_id):
        fields = validate_body(s.ConfigWriteSerializer, request.data, partial=True)
        row = services.config_update(config_id=config_id, fields=fields)
        return Response(selectors.config_saved_data(row))

    @store_schema(
        summary="Update a gateway config (partial, as PATCH)",
        description="Same as PATCH.",
        **UPDATE,
    )
    def put(self, request, config_id):
        return self.patch(request, config_id)

    @store_schema(summary="Delete a gateway config", parameters=[CONFIG_ID], responses={204: None})
    def delete(self, request, config_id):
        services.config_delete(config_id=config_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class GatewayConfigTestView(StoreAPIView):
    access = STAFF
    openapi_tag = CONFIG_TAG

    @store_schema(
        summary="Check a gateway config's credentials",
        parameters=[CONFIG_ID],
        request=None,
        responses={200: s.ConfigTestSerializer},
        errors={
            502: "The provider could not be reached (`payment_provider_unavailable`).",
            503: "Credentials missing (`payments_not_configured`).",
        },
        description="A real call to the provider (Stripe: the balance; PayPal: an OAuth "
        "token; the sandbox answers at once). `ok: false` when it refuses the credentials. "
        "The outcome is kept as the config's `last_check`.",
    )
    def post(self, request, config_id):
        return Response(services.config_test(config_id=config_id))
