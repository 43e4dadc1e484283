"""The shopper's coupon routes (apply, remove, applied, validate): cart writes and reads bound
to the cart session like the cart's own. The managers' routes (/admin/coupons) are the coupons
app's."""

from __future__ import annotations

from store.cart import shapes
from store.cart.api import serializers as s
from store.cart.api.views.cart import CartRoutesView
from store.cart.services import coupons as cart_coupons
from store.cart.services.pricing import cart_state
from store.cart.services.session import cart_find
from store.common.cart_session import SESSION_PARAMETERS
from store.common.params import validate_body
from store.common.schema import store_schema

TAG = "Coupons"
THROTTLED = {429: "Too many coupon attempts (`throttled`); see Retry-After."}


class CouponSessionView(CartRoutesView):
    openapi_tag = TAG


class CouponApplyView(CouponSessionView):
    # A cart write, under the stricter limit of coupon attempts (codes can be guessed).
    throttle_scopes = {"POST": "coupon_validate"}

    @store_schema(
        summary="Apply a coupon to the cart",
        request=s.CouponCodeSerializer,
        responses={200: shapes.CartBodySerializer},
        parameters=SESSION_PARAMETERS,
        errors=THROTTLED,
        description="Body `{code}` (any case). Answers `{cart}`. Each refusal is a 400 with its "
        "own code: coupon_not_found, coupon_disabled, coupon_expired, coupon_empty_cart, "
        "coupon_already_applied, coupon_individual_use_only, coupon_usage_limit_reached, "
        "coupon_user_usage_limit_reached, coupon_minimum_spend, coupon_maximum_spend, "
        "coupon_not_applicable, coupon_excluded_products, coupon_excluded_categories, "
        "coupon_sale_items_excluded. An individual-use coupon replaces the coupons applied "
        "(notice `coupons_replaced`). Rate limited with /coupons/validate.",
    )
    def post(self, request):
        body = validate_body(s.CouponCodeSerializer, request.data)
        cart, notices = cart_coupons.cart_coupon_apply(**self.session(request), code=body["code"])
        return self.cart_answer(request, cart, notices=notices)


class CouponRemoveView(CouponSessionView):
    throttle_scopes = {"POST": "cart_write"}

    @store_schema(
        summary="Remove a coupon from the cart",
        request=s.CouponCodeSerializer,
        responses={200: shapes.CartBodySerializer},
        parameters=SESSION_PARAMETERS,
        description="Body `{code}` (any case); 400 `coupon_not_applied` when the cart does not "
        "have it. Answers `{cart}`. A cart write (THROTTLE_RATE_CART_WRITE).",
    )
    def post(self, request):
        body = validate_body(s.CouponCodeSerializer, request.data)
        cart = cart_coupons.cart_coupon_remove(**self.session(request), code=body["code"])
        return self.cart_answer(request, cart)


class CouponsAppliedView(CouponSessionView):
    @store_schema(
        summary="The coupons applied to the cart",
        responses={200: shapes.AppliedCouponsSerializer},
        parameters=SESSION_PARAMETERS,
        description="`{coupons: [...]}` with what each takes off the cart.",
    )
    def get(self, request):
        cart = cart_find(**self.session(request))
        return self.answer(request, cart, {"coupons": shapes.coupon_entry(cart_state(cart))})


class CouponValidateView(CouponSessionView):
    throttle_scopes = {"POST": "coupon_validate"}

    @store_schema(
        summary="Check a coupon code against the cart",
        request=s.CouponCodeSerializer,
        responses={200: shapes.CouponValidationSerializer},
        parameters=SESSION_PARAMETERS,
        errors=THROTTLED,
        description="Body `{code}`. Answers 200 `{valid, code, discount, discount_tax, "
        "free_shipping, cart_checked, error}`; when not valid, `error` holds the refusal's "
        "code and message (the codes of POST /coupons/apply). Nothing is saved. With an empty "
        "cart only the coupon itself is checked (`cart_checked: false`). Rate limited "
        "(THROTTLE_RATE_COUPON_VALIDATE, per client address or account).",
    )
    def post(self, request):
        body = validate_body(s.CouponCodeSerializer, request.data)
        result = cart_coupons.cart_coupon_validate(**self.session(request), code=body["code"])
        return self.answer(request, None, shapes.coupon_validation_data(result, code=body["code"]))
