"""Coupon routes: the shopper's (apply, remove, applied, validate; bound to the cart session)
and the managers' (/admin/coupons, capability ec_manage_coupons)."""

from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response

from common.api.throttling import ScopedRateThrottle
from store.cart.api.serializers import CartBodySerializer, coupon_entry
from store.cart.api.views import SESSION_PARAMETERS, CartSessionView
from store.cart.services import coupons as cart_coupons
from store.cart.services.pricing import cart_state
from store.cart.services.session import cart_find
from store.common.capabilities import manage
from store.common.money import from_cents, money_str
from store.common.pagination import paginate
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.coupons import selectors, services

from . import serializers as s

TAG = "Coupons"
MANAGE_COUPONS = manage("coupons")
THROTTLED = {429: "Too many coupon attempts (`throttled`); see Retry-After."}


class CouponSessionView(CartSessionView):
    openapi_tag = TAG


class CouponApplyView(CouponSessionView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "coupon_validate"

    @store_schema(
        summary="Apply a coupon to the cart",
        request=s.CouponCodeSerializer,
        responses={200: CartBodySerializer},
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
    @store_schema(
        summary="Remove a coupon from the cart",
        request=s.CouponCodeSerializer,
        responses={200: CartBodySerializer},
        parameters=SESSION_PARAMETERS,
        description="Body `{code}` (any case); 400 `coupon_not_applied` when the cart does not "
        "have it. Answers `{cart}`.",
    )
    def post(self, request):
        body = validate_body(s.CouponCodeSerializer, request.data)
        cart = cart_coupons.cart_coupon_remove(**self.session(request), code=body["code"])
        return self.cart_answer(request, cart)


class CouponsAppliedView(CouponSessionView):
    @store_schema(
        summary="The coupons applied to the cart",
        responses={200: s.AppliedCouponsSerializer},
        parameters=SESSION_PARAMETERS,
        description="`{coupons: [...]}` with what each takes off the cart.",
    )
    def get(self, request):
        cart = cart_find(**self.session(request))
        state = cart_state(cart)
        return self.answer(request, cart, {"coupons": coupon_entry(state)})


class CouponValidateView(CouponSessionView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "coupon_validate"

    @store_schema(
        summary="Check a coupon code against the cart",
        request=s.CouponCodeSerializer,
        responses={200: s.CouponValidationSerializer},
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
        discount = discount_tax = None
        if result.state is not None:
            entry = next(
                (e for e in result.state.amounts.coupons if e.code == result.coupon.code), None
            )
            discount = money_str(from_cents(entry.discount if entry else 0))
            discount_tax = money_str(from_cents(entry.discount_tax if entry else 0))
        elif result.valid:
            discount = discount_tax = "0.00"
        data = {
            "valid": result.valid,
            "code": result.coupon.code if result.coupon is not None else body["code"].strip(),
            "discount": discount,
            "discount_tax": discount_tax,
            "free_shipping": bool(result.coupon and result.coupon.free_shipping),
            "cart_checked": result.cart_checked,
            "error": None
            if result.error is None
            else {"code": result.error.code, "message": result.error.detail},
        }
        return self.answer(request, None, data)


class AdminCouponListView(StoreAPIView):
    access = {"*": MANAGE_COUPONS}
    openapi_tag = TAG

    @store_schema(
        summary="List coupons",
        parameters=[s.CouponListQuerySerializer],
        responses={200: s.CouponPageSerializer},
        description="`{data, meta}`; filters `search` (code, description), `status` (active, "
        "expired, disabled), `discount_type`; `orderby` id, code, date, expires_at, "
        "usage_count, amount.",
    )
    def get(self, request):
        query = validate_query(s.CouponListQuerySerializer, request.query_params)
        page = paginate(
            selectors.coupon_list(
                search=query.get("search"),
                status=query.get("status"),
                discount_type=query.get("discount_type"),
                orderby=query["orderby"],
                order=query["order"],
            ),
            page=query["page"],
            per_page=query["per_page"],
        )
        return Response({"data": [s.coupon_data(c) for c in page.items], "meta": page.meta()})

    @store_schema(
        summary="Create a coupon",
        request=s.CouponWriteSerializer,
        responses={201: s.CouponSerializer},
        description="`code` is required and unique without regard to case (400 "
        "`duplicate_coupon_code`); a percentage is at most 100; the maximum spend is not "
        "below the minimum; product and category ids must exist and not be both included "
        "and excluded. Every problem is named at once.",
    )
    def post(self, request):
        fields = validate_body(s.CouponWriteSerializer, request.data)
        coupon = services.coupon_create(fields=fields)
        return Response(
            s.coupon_data(selectors.coupon_get(coupon.pk)), status=status.HTTP_201_CREATED
        )


class AdminCouponDetailView(StoreResourceView):
    access = {"*": MANAGE_COUPONS}
    openapi_tag = TAG
    resource = "coupon"
    id_kwarg = "coupon_id"
    output_serializer = s.CouponSerializer
    write_serializer = s.CouponWriteSerializer
    errors = {"delete": {409: "The coupon has been used by orders (`coupon_has_uses`)."}}
    descriptions = {
        "delete": "Only a coupon no order has used; disable a used one instead (409).",
    }

    def read(self, request, pk):
        return s.coupon_data(selectors.coupon_get(pk))

    def update(self, request, pk, fields):
        services.coupon_update(coupon_id=pk, fields=fields)

    def remove(self, request, pk):
        services.coupon_delete(coupon_id=pk)
