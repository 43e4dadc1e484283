"""Coupon bodies of the managers' routes (/admin/coupons); the shopper's coupon routes are the
cart's (store.cart.api)."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.formats import iso
from store.common.money import MoneyField, money_str
from store.common.pagination import MetaSerializer
from store.common.params import (
    CaseInsensitiveChoiceField,
    IdListField,
    PageField,
    PerPageField,
    StrictBooleanField,
    StrictCharField,
)
from store.coupons.models import Coupon, DiscountType
from store.coupons.selectors import ORDERBY

# --- Input ---------------------------------------------------------------------------------------


def _optional_money(help_text: str):
    return MoneyField(required=False, allow_null=True, help_text=help_text)


class CouponWriteSerializer(serializers.Serializer):
    code = StrictCharField(max_length=50, help_text="Unique without regard to case; no spaces.")
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    discount_type = serializers.ChoiceField(choices=DiscountType.choices, required=False)
    amount = MoneyField(
        required=False, help_text="Percent (0-100) or an amount, as prices are entered."
    )
    free_shipping = StrictBooleanField(required=False)
    expires_at = serializers.DateTimeField(
        required=False, allow_null=True, help_text="ISO 8601; the coupon stops working then."
    )
    minimum_amount = _optional_money("Minimum cart subtotal.")
    maximum_amount = _optional_money("Maximum cart subtotal.")
    usage_limit = IntegerField(min_value=1, required=False, allow_null=True)
    usage_limit_per_user = IntegerField(min_value=1, required=False, allow_null=True)
    individual_use = StrictBooleanField(required=False)
    exclude_sale_items = StrictBooleanField(required=False)
    product_ids = IdListField(help_text="Only these products (empty: all).")
    excluded_product_ids = IdListField()
    category_ids = IdListField(help_text="Only products of these categories (empty: all).")
    excluded_category_ids = IdListField()
    enabled = StrictBooleanField(required=False)


class CouponListQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20)
    search = serializers.CharField(required=False, max_length=100, help_text="Code or text.")
    status = CaseInsensitiveChoiceField(
        choices=["active", "expired", "disabled"],
        required=False,
        help_text="active: enabled and not expired.",
    )
    discount_type = CaseInsensitiveChoiceField(choices=DiscountType.values, required=False)
    orderby = CaseInsensitiveChoiceField(choices=list(ORDERBY), required=False, default="id")
    order = CaseInsensitiveChoiceField(choices=["ASC", "DESC"], required=False, default="DESC")


# --- Output --------------------------------------------------------------------------------------


def coupon_data(coupon: Coupon) -> dict:
    return {
        "id": coupon.pk,
        "code": coupon.code,
        "description": coupon.description,
        "discount_type": coupon.discount_type,
        "amount": money_str(coupon.amount),
        "free_shipping": coupon.free_shipping,
        "expires_at": iso(coupon.expires_at),
        "minimum_amount": money_str(coupon.minimum_amount),
        "maximum_amount": money_str(coupon.maximum_amount),
        "usage_limit": coupon.usage_limit,
        "usage_limit_per_user": coupon.usage_limit_per_user,
        "usage_count": coupon.usage_count,
        "individual_use": coupon.individual_use,
        "exclude_sale_items": coupon.exclude_sale_items,
        "product_ids": sorted(p.pk for p in coupon.products.all()),
        "excluded_product_ids": sorted(p.pk for p in coupon.excluded_products.all()),
        "category_ids": sorted(c.pk for c in coupon.categories.all()),
        "excluded_category_ids": sorted(c.pk for c in coupon.excluded_categories.all()),
        "enabled": coupon.enabled,
        "created_at": iso(coupon.created_at),
        "updated_at": iso(coupon.updated_at),
    }


class CouponSerializer(serializers.Serializer):
    id = IdField()
    code = serializers.CharField()
    description = serializers.CharField()
    discount_type = serializers.ChoiceField(choices=DiscountType.choices)
    amount = serializers.CharField()
    free_shipping = serializers.BooleanField()
    expires_at = serializers.DateTimeField(allow_null=True)
    minimum_amount = serializers.CharField(allow_null=True)
    maximum_amount = serializers.CharField(allow_null=True)
    usage_limit = IntegerField(allow_null=True)
    usage_limit_per_user = IntegerField(allow_null=True)
    usage_count = IntegerField(help_text="Uses by placed orders.")
    individual_use = serializers.BooleanField()
    exclude_sale_items = serializers.BooleanField()
    product_ids = serializers.ListField(child=IdField())
    excluded_product_ids = serializers.ListField(child=IdField())
    category_ids = serializers.ListField(child=IdField())
    excluded_category_ids = serializers.ListField(child=IdField())
    enabled = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class CouponPageSerializer(serializers.Serializer):
    data = CouponSerializer(many=True)
    meta = MetaSerializer()
