"""The managers' coupon routes (/admin/coupons, capability ec_manage_coupons). The shopper's
(apply, remove, applied, validate) are cart routes: store.cart.api.views.coupons."""

from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response

from store.common.capabilities import manage
from store.common.pagination import data_page, page_of
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.coupons import selectors, services

from . import serializers as s

TAG = "Coupons"
MANAGE_COUPONS = manage("coupons")


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
        page = page_of(
            selectors.coupon_list(
                search=query.get("search"),
                status=query.get("status"),
                discount_type=query.get("discount_type"),
                orderby=query["orderby"],
                order=query["order"],
            ),
            query,
        )
        return Response(data_page(page, s.coupon_data))

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
