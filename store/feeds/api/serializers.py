"""Bodies, queries and answers of the feeds' routes (documented in the OpenAPI)."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from common.api.fields import IdField, IntegerField
from common.links import absolute_url
from store.common.formats import iso
from store.common.money import MoneyField, money_str
from store.common.pagination import MetaSerializer
from store.common.params import (
    PageField,
    PerPageField,
    StrictBody,
    StrictBooleanField,
    StrictCharField,
)
from store.feeds.formats import SKROUTZ_AVAILABILITY, SKROUTZ_DEFAULTS
from store.feeds.models import Feed, FeedFile, FeedStatus, Marketplace

AVAILABILITY_HELP = "Skroutz only; one of: " + "; ".join(SKROUTZ_AVAILABILITY) + ". Blank: default."


class FeedWriteSerializer(StrictBody):
    """Refuses fields it does not know (a typo, or `token`), rather than ignoring them."""

    enabled = StrictBooleanField(required=False)
    include_out_of_stock = StrictBooleanField(
        required=False, help_text="List out-of-stock products too (default false)."
    )
    category_ids = serializers.ListField(
        child=IdField(),
        required=False,
        max_length=1000,
        help_text="Only these store categories and their descendants; [] for every category.",
    )
    shipping_price = MoneyField(
        required=False, allow_null=True, help_text="Google: a flat g:shipping price; null: none."
    )
    shipping_country = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=2,
        help_text="ISO 3166-1 alpha-2; blank: the store's country.",
    )
    availability_in_stock = StrictCharField(
        required=False, allow_blank=True, max_length=64, help_text=AVAILABILITY_HELP
    )
    availability_backorder = StrictCharField(
        required=False, allow_blank=True, max_length=64, help_text=AVAILABILITY_HELP
    )
    availability_out_of_stock = StrictCharField(
        required=False, allow_blank=True, max_length=64, help_text=AVAILABILITY_HELP
    )


class FeedSkippedSerializer(serializers.Serializer):
    product_id = IntegerField()
    variant_id = IntegerField(allow_null=True)
    sku = serializers.CharField()
    title = serializers.CharField()
    missing = serializers.ListField(
        child=serializers.CharField(), help_text="The required attributes it lacks."
    )


class FeedSettingsSerializer(serializers.Serializer):
    enabled = serializers.BooleanField()
    include_out_of_stock = serializers.BooleanField()
    category_ids = serializers.ListField(child=IntegerField())
    shipping_price = serializers.CharField(allow_null=True)
    shipping_country = serializers.CharField()
    availability_in_stock = serializers.CharField(allow_null=True)
    availability_backorder = serializers.CharField(allow_null=True)
    availability_out_of_stock = serializers.CharField(allow_null=True)


class FeedSerializer(serializers.Serializer):
    marketplace = serializers.ChoiceField(choices=Marketplace.choices)
    name = serializers.CharField()
    format = serializers.CharField()
    enabled = serializers.BooleanField()
    status = serializers.ChoiceField(choices=FeedStatus.choices)
    url = serializers.CharField(help_text="The secret feed URL to give the marketplace.")
    token_rotated_at = serializers.DateTimeField()
    requested_at = serializers.DateTimeField(allow_null=True)
    generated_at = serializers.DateTimeField(allow_null=True)
    modified_at = serializers.DateTimeField(allow_null=True)
    etag = serializers.CharField(allow_null=True)
    size = IntegerField()
    item_count = IntegerField()
    skipped_count = IntegerField()
    error = serializers.CharField(allow_null=True)
    settings = FeedSettingsSerializer()


class FeedPageSerializer(MetaSerializer):
    feeds = FeedSerializer(many=True)


class FeedSkippedQuerySerializer(serializers.Serializer):
    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")


class FeedSkippedPageSerializer(MetaSerializer):
    skipped = FeedSkippedSerializer(many=True)
    skipped_total = IntegerField(help_text="Every product skipped (the list keeps the first ones).")


class CategoryMappingEntrySerializer(serializers.Serializer):
    category_id = IntegerField()
    category_name = serializers.CharField()
    value = serializers.CharField()
    updated_at = serializers.DateTimeField()


class CategoryMappingSerializer(serializers.Serializer):
    marketplace = serializers.ChoiceField(choices=Marketplace.choices)
    mapping = serializers.DictField(
        child=serializers.CharField(), help_text="{store category id: marketplace category}"
    )
    entries = CategoryMappingEntrySerializer(many=True)


class CategoryMappingWriteSerializer(serializers.Serializer):
    mapping = serializers.DictField(
        child=StrictCharField(allow_null=True, allow_blank=True, trim_whitespace=False),
        help_text="{store category id: marketplace category}. Google: a numeric Google product "
        "category id or its full path ('Apparel & Accessories > Clothing'); Skroutz: the "
        "category path. PATCH: null removes an entry.",
    )


FORMAT_NAMES = {
    Marketplace.GOOGLE: "Google Merchant Center RSS 2.0",
    Marketplace.SKROUTZ: "Skroutz XML",
}


def feed_url(feed: Feed) -> str:
    path = reverse("store-feed-xml", kwargs={"marketplace": feed.marketplace})
    return absolute_url(f"{path}?token={feed.token}")


def feed_data(feed: Feed, file: FeedFile | None) -> dict:
    skroutz = feed.marketplace == Marketplace.SKROUTZ
    return {
        "marketplace": feed.marketplace,
        "name": feed.get_marketplace_display(),
        "format": FORMAT_NAMES[feed.marketplace],
        "enabled": feed.enabled,
        "status": feed.status,
        "url": feed_url(feed),
        "token_rotated_at": iso(feed.token_rotated_at),
        "requested_at": iso(feed.requested_at),
        "generated_at": iso(feed.generated_at),
        "modified_at": iso(file.modified_at) if file else None,
        "etag": f'"{file.etag}"' if file else None,
        "size": file.size if file else 0,
        "item_count": feed.item_count,
        "skipped_count": feed.skipped_count,
        "error": feed.error or None,
        "settings": {
            "enabled": feed.enabled,
            "include_out_of_stock": feed.include_out_of_stock,
            "category_ids": list(feed.category_ids or []),
            "shipping_price": money_str(feed.shipping_price),
            "shipping_country": feed.shipping_country,
            **{
                name: (getattr(feed, name) or SKROUTZ_DEFAULTS[name]) if skroutz else None
                for name in SKROUTZ_DEFAULTS
            },
        },
    }
