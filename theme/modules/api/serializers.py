"""The modules' bodies, queries and answers (answers document the OpenAPI description; the
views build plain dicts)."""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from store.common.cart_session import CartHintField
from store.common.params import (
    PageField,
    PerPageField,
    StrictCharField,
    StrictDecimalField,
)
from theme.modules.models import PointsKind, PromotionKind, QuoteStatus

# --- Shared -------------------------------------------------------------------------------------


class PageQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20)


class ModuleProductCardSerializer(serializers.Serializer):
    id = IdField()
    title = serializers.CharField()
    slug = serializers.CharField()
    price = serializers.CharField(allow_null=True)
    on_sale = serializers.BooleanField()
    stock_status = serializers.CharField()


class ModuleDeletedSerializer(serializers.Serializer):
    deleted = IntegerField()


# --- Recently viewed ----------------------------------------------------------------------------


class RecentlyViewedAddSerializer(serializers.Serializer):
    product_id = IdField()
    cart_id = CartHintField()


class RecentlyViewedEntrySerializer(serializers.Serializer):
    product_id = IdField()
    viewed_at = serializers.DateTimeField()
    product = ModuleProductCardSerializer()


class RecentlyViewedSerializer(serializers.Serializer):
    items = RecentlyViewedEntrySerializer(many=True)
    total = IntegerField()
    max_items = IntegerField()


# --- Bundles ------------------------------------------------------------------------------------


class BundleItemSerializer(serializers.Serializer):
    product_id = IdField()
    quantity = IntegerField()
    product = ModuleProductCardSerializer()


class BundleSerializer(serializers.Serializer):
    id = IdField()
    title = serializers.CharField()
    slug = serializers.CharField()
    description = serializers.CharField()
    discount_percent = serializers.CharField()
    regular_price = serializers.CharField()
    price = serializers.CharField()
    saving = serializers.CharField()
    items = BundleItemSerializer(many=True)


class BundlePageSerializer(serializers.Serializer):
    bundles = BundleSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


# --- Points -------------------------------------------------------------------------------------


class PointsBalanceSerializer(serializers.Serializer):
    balance = IntegerField()
    points_per_unit = IntegerField()


class PointsEntrySerializer(serializers.Serializer):
    id = IdField()
    kind = serializers.ChoiceField(choices=PointsKind.choices)
    points = IntegerField()
    order_id = IdField(allow_null=True)
    order_number = serializers.CharField(allow_null=True)
    note = serializers.CharField()
    created_at = serializers.DateTimeField()


class PointsPageSerializer(serializers.Serializer):
    transactions = PointsEntrySerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


# --- Promotions ---------------------------------------------------------------------------------


class PromotionSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    description = serializers.CharField()
    kind = serializers.ChoiceField(choices=PromotionKind.choices)
    value = serializers.CharField()
    min_subtotal = serializers.CharField()
    starts_at = serializers.DateTimeField(allow_null=True)
    ends_at = serializers.DateTimeField(allow_null=True)


class PromotionListSerializer(serializers.Serializer):
    promotions = PromotionSerializer(many=True)
    total = IntegerField()


class AppliedPromotionSerializer(PromotionSerializer):
    discount = serializers.CharField()


class CartTotalsSerializer(serializers.Serializer):
    subtotal = serializers.CharField()
    discount = serializers.CharField()
    shipping = serializers.CharField()
    tax = serializers.CharField()
    total = serializers.CharField()


class CartPromotionsSerializer(serializers.Serializer):
    promotions = AppliedPromotionSerializer(many=True)
    discount = serializers.CharField(help_text="The promotions' cut together.")
    totals = CartTotalsSerializer()


# --- Quotes -------------------------------------------------------------------------------------


class QuoteLineSerializer(serializers.Serializer):
    product_id = IdField()
    quantity = IntegerField(min_value=1, max_value=100_000)


class QuoteRequestSerializer(serializers.Serializer):
    name = StrictCharField(max_length=200)
    email = serializers.EmailField(max_length=254)
    company = StrictCharField(max_length=200, required=False, default="", allow_blank=True)
    phone = StrictCharField(max_length=40, required=False, default="", allow_blank=True)
    message = StrictCharField(max_length=5000, required=False, default="", allow_blank=True)
    items = QuoteLineSerializer(many=True, allow_empty=False, max_length=100)


class QuoteItemOutSerializer(serializers.Serializer):
    product_id = IdField()
    title = serializers.CharField()
    quantity = IntegerField()


class QuoteSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    email = serializers.CharField()
    company = serializers.CharField()
    phone = serializers.CharField()
    message = serializers.CharField()
    status = serializers.ChoiceField(choices=QuoteStatus.choices)
    created_at = serializers.DateTimeField()
    items = QuoteItemOutSerializer(many=True)


class QuoteReceivedSerializer(serializers.Serializer):
    id = IdField()
    status = serializers.CharField()
    message = serializers.CharField()


class QuoteQuerySerializer(PageQuerySerializer):
    status = serializers.ChoiceField(choices=QuoteStatus.choices, required=False)


class QuotePageSerializer(serializers.Serializer):
    quotes = QuoteSerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


# --- Product names and labels -------------------------------------------------------------------


class ProductNamesQuerySerializer(serializers.Serializer):
    ids = serializers.CharField(
        max_length=2000, help_text="Comma-separated product ids (at most THEME_PRODUCT_NAMES_MAX)."
    )


class ProductNamesSerializer(serializers.Serializer):
    names = serializers.DictField(
        child=serializers.CharField(), help_text="Product id (as a string) -> title."
    )
    missing = serializers.ListField(child=IdField(), help_text="Ids with no active product.")


class LabelSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=["new", "sale", "low_stock", "out_of_stock"])
    label = serializers.CharField()


class ProductLabelsSerializer(serializers.Serializer):
    product_id = IdField()
    labels = LabelSerializer(many=True)


# --- B2B groups ---------------------------------------------------------------------------------


class GroupWriteSerializer(serializers.Serializer):
    name = StrictCharField(max_length=100)
    description = StrictCharField(max_length=500, required=False, allow_blank=True)
    discount_percent = StrictDecimalField(
        max_digits=5, decimal_places=2, min_value=0, max_value=100, required=False
    )
    member_ids = serializers.ListField(
        child=IdField(), required=False, max_length=1000, help_text="Replaces the members."
    )


class GroupSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    description = serializers.CharField()
    discount_percent = serializers.CharField()
    member_ids = serializers.ListField(child=IdField())


class GroupListEntrySerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    description = serializers.CharField()
    discount_percent = serializers.CharField()
    member_count = IntegerField()


class GroupPageSerializer(serializers.Serializer):
    groups = GroupListEntrySerializer(many=True)
    total = IntegerField()
    page = IntegerField()
    per_page = IntegerField()
    total_pages = IntegerField()


class GroupBodySerializer(serializers.Serializer):
    group = GroupSerializer()


class MyGroupSerializer(serializers.Serializer):
    group = GroupListEntrySerializer(allow_null=True, help_text="null when in no group.")


# --- Recover cart -------------------------------------------------------------------------------


class RecoveredSerializer(serializers.Serializer):
    restored = IntegerField(help_text="How many lines were added to your cart.")
    cart = serializers.DictField(help_text="The cart's summary, as GET /cart/totals.")
