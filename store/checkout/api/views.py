"""The checkout routes (spec: the Checkout group of the index): public, bound to the cart
session like the cart (the `ec_cart_id` cookie or a `cart_id` hint, or the logged-in
customer). Bodies are JSON only: a cross-site form cannot post here.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from accounts.services import client_address
from common.api.parsers import JSONParser
from store.cart import shapes as cart_shapes
from store.cart.services.pricing import cart_state
from store.cart.services.session import cart_find
from store.checkout.models import EDITABLE, Checkout
from store.checkout.services import accounts as account_services
from store.checkout.services import checkout as services
from store.checkout.services import complete as completing
from store.common import nonce as nonces
from store.common.cart_session import SESSION_PARAMETERS
from store.common.params import validate_body
from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from store.common.views import CartSessionView, StoreAPIView
from store.payments import services as payment_services
from store.settings import selectors as store_settings

from . import serializers as s

TAG = "Checkout"
CHECKOUT_ID = OpenApiParameter("checkout_id", int, OpenApiParameter.PATH)
SESSION_TEXT = (
    " The checkout belongs to the cart session (the ec_cart_id cookie, a cart_id hint, or the "
    "logged-in customer); anyone else's is 404 `checkout_not_found`."
)
HOLD_TEXT = (
    " Every write holds the cart's stock (409 `insufficient_stock`, naming "
    "`items.<item id>.quantity`) and one use of each coupon (400 with the coupon's code) for "
    "`checkout.hold_minutes` (10); nothing changes when that is refused. Before anything is "
    "held, the limits: a line above `cart.max_quantity` (100) is 400 "
    "`cart_item_quantity_limit`, and a guest's checkout (no account, or an unverified e-mail "
    "address) above `checkout.guest_order_max_units` (100) units in all is 400 "
    "`guest_order_quantity_limit`. Against hoarding, one shopper (this cart session, or this "
    "client address) holds at most `checkout.shopper_hold_percent` (10%) of an item's stock, "
    "or `checkout.shopper_hold_min_units` (5) units when that is more, across its open "
    "checkouts and its unpaid orders: a write taking more of an item is 409 "
    "`product_hold_limit` (naming the product and the limit, and `items.<item id>.quantity`); "
    "an account with a verified e-mail address is not limited."
)


def _throttled(what: str) -> dict:
    return {429: f"Too many {what} (`throttled`); see Retry-After."}


class CheckoutSessionView(CartSessionView):
    openapi_tag = TAG
    parser_classes = [JSONParser]

    def shopper(self, request) -> dict:
        """The cart session and the client address (the hoarding limit counts by both)."""
        return {**self.session(request), "address": client_address(request)}

    def checkout_body(self, request, checkout: Checkout, config: dict) -> dict:
        checkout = Checkout.objects.select_related("order", "cart").get(pk=checkout.pk)
        state = None
        if checkout.status in EDITABLE and checkout.cart is not None:
            state = cart_state(checkout.cart)
        return s.checkout_data(checkout, state=state, config=config)

    def checkout_answer(self, request, checkout: Checkout, *, status: int = 200):
        config = store_settings.get_all()
        body = self.checkout_body(request, checkout, config)
        return self.answer(request, checkout.cart, body, status=status)


class CheckoutView(CheckoutSessionView):
    # Starting holds stock: limited per client address or account against hoarding.
    throttle_scopes = {"POST": "checkout_start"}

    @store_schema(
        summary="The cart's open checkout",
        responses={200: s.CheckoutSerializer},
        parameters=SESSION_PARAMETERS,
        errors={404: "The cart has no open checkout (`checkout_not_found`)."},
        description="The open (or expired) checkout of the session's cart." + SESSION_TEXT,
    )
    def get(self, request):
        checkout = services.checkout_current(**self.session(request))
        return self.checkout_answer(request, checkout)

    @store_schema(
        summary="Start a checkout from the cart",
        request=s.CheckoutWriteSerializer,
        responses={201: s.CheckoutSerializer, 200: s.CheckoutSerializer},
        parameters=SESSION_PARAMETERS,
        errors={
            409: "Not enough stock to hold (`insufficient_stock`), or more of an item than one "
            "shopper may hold (`product_hold_limit`).",
            503: "The sandbox card method outside development (`payments_not_configured`).",
        },
        description="Starts the checkout of the session's cart (400 `cart_empty` without items) "
        "with any of: `email`, `billing_address`, `shipping_address` (absent or null: ship to "
        "the billing address), `shipping_method` (an id of GET /cart/shipping-methods, "
        "available for the address), `payment_method` (GET /checkout/payment-methods: one "
        "the gateway's countries or min/max total leave out for the cart as this body leaves "
        "it is 400 `payment_method_unavailable`), `customer_note`, `vat_number`. Answers 201 "
        "with the checkout; a cart has one open checkout, so "
        "starting again updates it (200). The shipping address (country, state, postcode) "
        "becomes the cart's, for shipping costs and tax. Rate limited per client address or "
        "account (THROTTLE_RATE_CHECKOUT_START, 20/hour), since it holds stock. Without an account "
        "(`checkout.guest_checkout` off) 400 `login_required`." + HOLD_TEXT,
    )
    def post(self, request):
        fields = validate_body(s.CheckoutWriteSerializer, request.data)
        fields.pop("cart_id", None)
        checkout, created = services.checkout_start(**self.shopper(request), fields=fields)
        return self.checkout_answer(request, checkout, status=201 if created else 200)


class CheckoutDetailView(CheckoutSessionView):
    throttle_scopes = {"PATCH": "cart_write", "PUT": "cart_write"}

    @store_schema(
        summary="Read a checkout",
        responses={200: s.CheckoutSerializer},
        parameters=[CHECKOUT_ID, *SESSION_PARAMETERS],
        description="The checkout with its cart priced (while open) or its order (once "
        "placed), its hold and its payment attempts." + SESSION_TEXT,
    )
    def get(self, request, checkout_id):
        checkout = services.checkout_find(checkout_id=checkout_id, **self.session(request))
        return self.checkout_answer(request, checkout)

    def _update(self, request, checkout_id):
        fields = validate_body(s.CheckoutWriteSerializer, request.data, partial=True)
        fields.pop("cart_id", None)
        checkout = services.checkout_update(
            checkout_id=checkout_id, **self.shopper(request), fields=fields
        )
        return self.checkout_answer(request, checkout)

    UPDATE = {
        "request": s.CheckoutWriteSerializer,
        "responses": {200: s.CheckoutSerializer},
        "parameters": [CHECKOUT_ID, *SESSION_PARAMETERS],
        "errors": {
            409: "The order is placed (`checkout_not_editable`), stock is short "
            "(`insufficient_stock`) or more of an item than one shopper may hold "
            "(`product_hold_limit`).",
            503: "The sandbox card method outside development (`payments_not_configured`).",
        },
    }

    @store_schema(
        summary="Update a checkout",
        description="Changes the fields sent (those of POST /checkout); an address replaces the "
        "stored one; a payment method its gateway's countries or min/max total leave out "
        "for the cart is 400 `payment_method_unavailable`. Only while open or expired (409 "
        "`checkout_not_editable` once the order is placed)." + HOLD_TEXT + SESSION_TEXT,
        **UPDATE,
    )
    def patch(self, request, checkout_id):
        return self._update(request, checkout_id)

    @store_schema(summary="Update a checkout (same as PATCH)", **UPDATE)
    def put(self, request, checkout_id):
        return self._update(request, checkout_id)


class CheckoutValidateView(CheckoutSessionView):
    throttle_scopes = {"POST": "cart_write"}

    @store_schema(
        summary="Validate a checkout",
        request=None,
        responses={200: s.ValidationSerializer},
        parameters=[CHECKOUT_ID, *SESSION_PARAMETERS],
        errors={409: "The order is placed (`checkout_not_editable`)."},
        description="Checks what complete would, and answers every problem at once (200 with "
        "`valid` false; nothing refused): stock (holding it again, `insufficient_stock`, "
        "`product_hold_limit`), "
        "coupons (holding their uses again; the coupon refusal codes), the e-mail and the "
        "addresses' required fields (`checkout_incomplete`, naming each), shipping "
        "(`no_shipping_method` for the address), the payment method "
        "(`payment_method_unavailable`, `payments_not_configured`), the cart "
        "(`cart_empty`) and the login rule (`login_required`). `notices` say what pricing "
        "removed from the cart." + SESSION_TEXT,
    )
    def post(self, request, checkout_id):
        result = services.checkout_validate(checkout_id=checkout_id, **self.shopper(request))
        config = store_settings.get_all()
        checkout = Checkout.objects.select_related("order", "cart").get(pk=result.checkout.pk)
        state = cart_state(checkout.cart) if checkout.cart is not None else None
        result.checkout = checkout
        body = s.validation_data(result, state=state, config=config)
        return self.answer(request, checkout.cart, body)


class CheckoutCompleteView(CheckoutSessionView):
    throttle_scopes = {"POST": "checkout_complete"}

    @store_schema(
        summary="Complete a checkout: place the order and pay",
        request=s.CompleteSerializer,
        responses={200: s.CompletionSerializer},
        parameters=[CHECKOUT_ID, *SESSION_PARAMETERS],
        errors={
            402: "The card was declined (`payment_declined`; the order is kept pending until "
            "`payment.due_at`: complete again).",
            409: "Stock is short (`insufficient_stock`), more of an item than one shopper may "
            "hold (`product_hold_limit`), the cart changed while pricing "
            "(`cart_changed`), the total is not `expected_total` (`total_changed`), the "
            "checkout was cancelled (`checkout_cancelled`) or its order takes no payment "
            "(`order_not_payable`).",
            **_throttled("checkout completions"),
            502: "The payment provider could not be reached (`payment_provider_unavailable`).",
            503: "The sandbox card method outside development (`payments_not_configured`).",
        },
        description="Places the order through the orders' services (stock taken atomically: "
        "the checkout's hold becomes the order's; coupon uses counted), empties the cart and "
        "answers the order's id, number, key and order-received URL. `sandbox_card` charges "
        "`payment_data` now (approved: order processing and paid); `bank_transfer` leaves the "
        "order on hold until paid (cancelled, its stock given back, after "
        "`checkout.offline_payment_hold_minutes`, 120, or `payments.bank_transfer_hold_hours` "
        "when shorter; `payment_due_at` says when), "
        "`cash_on_delivery` in processing, unpaid; a free order needs no method. Refusals "
        "before the order exists change nothing: `checkout_incomplete` (naming each missing "
        "field), `cart_empty`, `no_shipping_method`, `payment_method_unavailable` (also a "
        "method whose countries or min/max total no longer take the cart), "
        "`invalid_param` for `payment_data.*`. A declined card keeps the order pending for "
        "`checkout.unpaid_order_hold_minutes` (60), then it is cancelled and its stock and "
        "coupon uses come back. Completing a completed checkout answers the same order; the "
        "order e-mail goes out once (Celery). Rate limited (THROTTLE_RATE_CHECKOUT_COMPLETE)."
        + SESSION_TEXT,
    )
    def post(self, request, checkout_id):
        body = validate_body(s.CompleteSerializer, request.data)
        checkout = completing.checkout_complete(
            checkout_id=checkout_id,
            **self.shopper(request),
            payment_method=body.get("payment_method") or None,
            payment_data=body.get("payment_data"),
            expected_total=body.get("expected_total"),
        )
        checkout = Checkout.objects.select_related("order", "cart").get(pk=checkout.pk)
        data = s.completion_data(checkout, config=store_settings.get_all())
        return self.answer(request, checkout.cart, data)


class CheckoutSettingsView(StoreAPIView):
    access = {"GET": PUBLIC}
    openapi_tag = TAG
    parser_classes = [JSONParser]

    @store_schema(
        summary="The checkout's settings",
        responses={200: s.CheckoutSettingsSerializer},
        description="What a checkout form needs: guest checkout and account creation allowed, "
        "the required fields, the hold times, the terms page, the currency and the payment "
        "methods offered (their ids). Edited with /settings/checkout and /settings/payments.",
    )
    def get(self, request):
        config = store_settings.get_all()
        methods = payment_services.payment_methods(config=config)
        return Response(s.settings_data(config, methods))


class PaymentMethodsView(CheckoutSessionView):
    @store_schema(
        summary="Payment methods offered for the cart",
        responses={200: s.PaymentMethodsSerializer},
        parameters=SESSION_PARAMETERS,
        description="`{payment_methods: [{id, title, description, type (card|offline), "
        "instructions, test_cards}], needs_payment, total, currency}`: the methods enabled in "
        "/settings/payments that can take payments on this server (the sandbox card only with "
        "DEBUG or PAYMENT_SANDBOX_ALLOWED). A free cart needs none.",
    )
    def get(self, request):
        config = store_settings.get_all()
        cart = cart_find(**self.session(request))
        state = cart_state(cart)
        methods = payment_services.payment_methods(config=config, state=state)
        return self.answer(request, cart, s.payment_methods_data(config, methods, state))


class CheckEmailView(CheckoutSessionView):
    throttle_scopes = {"POST": "checkout_check_email"}

    @store_schema(
        summary="Does an account have this e-mail address?",
        request=s.CheckEmailSerializer,
        responses={200: s.CheckEmailAnswerSerializer},
        errors=_throttled("e-mail checks"),
        description="Body `{email}`; answers `{email, account_exists, guest_checkout, "
        "account_creation}` so the checkout can offer to log in. Rate limited "
        "(THROTTLE_RATE_CHECKOUT_CHECK_EMAIL), since it tells whether an account exists.",
    )
    def post(self, request):
        body = validate_body(s.CheckEmailSerializer, request.data)
        return self.answer(request, None, account_services.check_email(email=body["email"]))


class _SessionLoginView(CheckoutSessionView):
    # The answer is a session (its cookie): not replayed, so Idempotency-Key is ignored. A
    # retry is safe anyway: logging in again, or `email_taken` for an account just made.
    idempotent = False

    def logged_in(self, request, user, cart, *, status: int = 200):
        open_checkout = (
            Checkout.objects.filter(cart=cart, status__in=EDITABLE)
            .values_list("pk", flat=True)
            .first()
            if cart is not None
            else None
        )
        body = nonces.nonce_answer(request._request)
        body["user"]["email_verified"] = user.email_verified
        body["cart"] = cart_shapes.cart_data(cart_state(cart))
        body["checkout_id"] = open_checkout
        return self.answer(request, cart, body, status=status)


LOGIN_TEXT = (
    " Starts a store session: the answer sets the session cookie and carries the REST nonce; "
    "send both with the next requests (the cookie alone counts as logged out). The guest "
    "cart of the request is merged into the account's cart and its checkout goes with it "
    "(its stock is held again at the checkout's next write)."
)


class CheckoutLoginView(_SessionLoginView):
    throttle_scopes = {"POST": "checkout_login"}

    @store_schema(
        summary="Log in at the checkout",
        request=s.LoginSerializer,
        responses={200: s.LoginAnswerSerializer},
        errors=_throttled("log-in attempts"),
        description="Body `{email, password}`; 401 `invalid_credentials` when wrong. Rate "
        "limited (THROTTLE_RATE_CHECKOUT_LOGIN)." + LOGIN_TEXT,
    )
    def post(self, request):
        body = validate_body(s.LoginSerializer, request.data)
        user, cart = account_services.checkout_login(
            request=request._request,
            email=body["email"],
            password=body["password"],
            token=self.session(request)["token"],
        )
        return self.logged_in(request, user, cart)


class CheckoutCreateAccountView(_SessionLoginView):
    throttle_scopes = {"POST": "checkout_create_account"}

    @store_schema(
        summary="Create an account at the checkout",
        request=s.CreateAccountSerializer,
        responses={201: s.LoginAnswerSerializer},
        errors={
            403: "Accounts are not created at the checkout (`account_creation_disabled`).",
            **_throttled("accounts created"),
        },
        description="Body `{email, password, name?}` (or `first_name`/`last_name`); 400 "
        "`email_taken` when an account has the address (log in instead), `invalid_param` for a "
        "weak password (Django's validators, named in `data.params.password`), "
        "`already_logged_in`. Creates the account, sends the e-mail that verifies the "
        "address, and logs it in (201). Rate limited (THROTTLE_RATE_CHECKOUT_CREATE_ACCOUNT)."
        + LOGIN_TEXT,
    )
    def post(self, request):
        body = validate_body(s.CreateAccountSerializer, request.data)
        names = (body.get("first_name"), body.get("last_name"))
        name = body.get("name") or " ".join(part for part in names if part)[:150]
        user, cart = account_services.checkout_account_create(
            request=request._request,
            email=body["email"],
            password=body["password"],
            name=name,
            token=self.session(request)["token"],
            current_user=request.user,
        )
        return self.logged_in(request, user, cart, status=201)
