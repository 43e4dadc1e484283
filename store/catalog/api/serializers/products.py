"""Product and variant bodies: input serializers (validate only) and the output shapes.

Outputs are built by plain functions (`product_summary`, `product_detail`, `variant_data`):
a page of 100 products is rendered without DRF's per-field machinery. The serializer classes
beside them declare the same shapes for the OpenAPI description.
"""

from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField, RowListSerializer
from store.catalog.choices import (
    ProductCondition,
    ProductStatus,
    ProductType,
    StockStatus,
)
from store.catalog.models import Product, Variant
from store.common.formats import decimal_str, iso
from store.common.money import MoneyField, money_str
from store.common.pagination import MetaSerializer
from store.common.params import (
    CaseInsensitiveChoiceField,
    CommaSeparatedIntegersField,
    IdListField,
    NumberField,
    PageField,
    PerPageField,
)
from store.media.selectors import featured
from store.media.shapes import ImageObjectSerializer, SourcesSerializer

from .fields import BrandRefField

# --- Output -------------------------------------------------------------------------------------


def product_summary(product: Product) -> dict:
    categories = list(product.categories.all())
    image = product.featured_image
    brand = product.brand
    return {
        "id": product.pk,
        "title": product.title,
        "slug": product.slug,
        "type": product.type,
        "status": product.status,
        "sku": product.sku,
        "price": money_str(product.price),
        "regular_price": money_str(product.regular_price),
        "sale_price": money_str(product.sale_price),
        "on_sale": product.on_sale,
        "min_price": money_str(product.min_price),
        "max_price": money_str(product.max_price),
        "stock_status": product.stock_status,
        "stock_quantity": product.stock_quantity,
        "low_stock_threshold": product.low_stock_threshold,
        "featured_image": featured(image),
        "image": image.url if image is not None else None,
        "categories": [{"id": c.pk, "name": c.name, "slug": c.slug} for c in categories],
        "category_ids": [c.pk for c in categories],
        "brand": {"id": brand.pk, "name": brand.name, "slug": brand.slug} if brand else None,
        "average_rating": decimal_str(product.average_rating),
        "review_count": product.review_count,
        "created_at": iso(product.created_at),
        "updated_at": iso(product.updated_at),
    }


def variant_data(variant: Variant) -> dict:
    links = list(variant.variant_attributes.all())
    return {
        "id": variant.pk,
        "product_id": variant.product_id,
        "sku": variant.sku,
        "barcode": variant.barcode,
        "title": variant.title,
        "attributes": [
            {
                "attribute_id": link.attribute_id,
                "attribute": link.attribute.name,
                "attribute_slug": link.attribute.slug,
                "term_id": link.term_id,
                "term": link.term.name,
                "term_slug": link.term.slug,
            }
            for link in links
        ],
        "price": money_str(variant.price),
        "regular_price": money_str(variant.regular_price),
        "sale_price": money_str(variant.sale_price),
        "on_sale": variant.on_sale,
        "stock_status": variant.stock_status,
        "stock_quantity": variant.stock_quantity,
        "track_inventory": variant.track_inventory,
        "allow_backorders": variant.allow_backorders,
        "weight": decimal_str(variant.weight),
        "length": decimal_str(variant.length),
        "width": decimal_str(variant.width),
        "height": decimal_str(variant.height),
        "image_id": variant.image_id,
        "image": featured(variant.image),
        "enabled": variant.enabled,
        "sort_order": variant.sort_order,
        "created_at": iso(variant.created_at),
        "updated_at": iso(variant.updated_at),
    }


def product_detail(product: Product) -> dict:
    data = product_summary(product)
    gallery = [item.image for item in product.gallery_items.all()]
    attributes: dict[int, dict] = {}
    for term in sorted(
        product.attribute_terms.all(),
        key=lambda t: (
            t.attribute.sort_order,
            t.attribute.name,
            t.attribute_id,
            t.sort_order,
            t.name,
        ),
    ):
        entry = attributes.setdefault(
            term.attribute_id,
            {
                "id": term.attribute_id,
                "name": term.attribute.name,
                "slug": term.attribute.slug,
                "type": term.attribute.type,
                "terms": [],
            },
        )
        entry["terms"].append(
            {"id": term.pk, "name": term.name, "slug": term.slug, "value": term.value}
        )
    image = product.featured_image
    data.update(
        {
            "ean": product.ean,
            "mpn": product.mpn,
            "product_condition": product.product_condition,
            "short_description": product.short_description,
            "description": product.description,
            "track_inventory": product.track_inventory,
            "allow_backorders": product.allow_backorders,
            "weight": decimal_str(product.weight),
            "length": decimal_str(product.length),
            "width": decimal_str(product.width),
            "height": decimal_str(product.height),
            "featured_image_id": product.featured_image_id,
            "image_sources": image.sources() if image is not None else {},
            "gallery_image_ids": [img.pk for img in gallery],
            "gallery_images": [featured(img) for img in gallery],
            "attributes": list(attributes.values()),
            "variants": [variant_data(v) for v in product.variants.all()],
            "total_sales": product.total_sales,
        }
    )
    return data


class NamedRefSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()


class ProductSummarySerializer(serializers.Serializer):
    """A product list entry."""

    id = IdField()
    title = serializers.CharField()
    slug = serializers.CharField()
    type = serializers.ChoiceField(choices=ProductType.choices)
    status = serializers.ChoiceField(choices=ProductStatus.choices)
    sku = serializers.CharField()
    price = serializers.CharField(allow_null=True, help_text="Decimal string: the price paid now.")
    regular_price = serializers.CharField(allow_null=True)
    sale_price = serializers.CharField(allow_null=True)
    on_sale = serializers.BooleanField()
    min_price = serializers.CharField(
        allow_null=True, help_text="Variable products: lowest enabled variant price."
    )
    max_price = serializers.CharField(allow_null=True)
    stock_status = serializers.ChoiceField(choices=StockStatus.choices)
    stock_quantity = IntegerField()
    low_stock_threshold = IntegerField(
        allow_null=True,
        help_text="This product's own threshold; null: inventory_settings.low_stock_threshold.",
    )
    featured_image = ImageObjectSerializer(allow_null=True)
    image = serializers.CharField(allow_null=True, help_text="URL of the featured image.")
    categories = NamedRefSerializer(many=True)
    category_ids = serializers.ListField(child=IdField())
    brand = NamedRefSerializer(allow_null=True)
    average_rating = serializers.CharField()
    review_count = IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class VariantAttributeOutSerializer(serializers.Serializer):
    attribute_id = IdField()
    attribute = serializers.CharField()
    attribute_slug = serializers.CharField()
    term_id = IdField()
    term = serializers.CharField()
    term_slug = serializers.CharField()


class VariantSerializer(serializers.Serializer):
    id = IdField()
    product_id = IdField()
    sku = serializers.CharField()
    barcode = serializers.CharField()
    title = serializers.CharField()
    attributes = VariantAttributeOutSerializer(many=True)
    price = serializers.CharField(allow_null=True)
    regular_price = serializers.CharField(allow_null=True)
    sale_price = serializers.CharField(allow_null=True)
    on_sale = serializers.BooleanField()
    stock_status = serializers.ChoiceField(choices=StockStatus.choices)
    stock_quantity = IntegerField()
    track_inventory = serializers.BooleanField()
    allow_backorders = serializers.BooleanField()
    weight = serializers.CharField(allow_null=True)
    length = serializers.CharField(allow_null=True)
    width = serializers.CharField(allow_null=True)
    height = serializers.CharField(allow_null=True)
    image_id = IdField(allow_null=True)
    image = ImageObjectSerializer(allow_null=True)
    enabled = serializers.BooleanField()
    sort_order = IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class TermOutSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    value = serializers.CharField()


class ProductAttributeOutSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    type = serializers.CharField()
    terms = TermOutSerializer(many=True)


class ProductDetailSerializer(ProductSummarySerializer):
    """A single product: the list entry plus everything else."""

    ean = serializers.CharField()
    mpn = serializers.CharField()
    product_condition = serializers.ChoiceField(choices=ProductCondition.choices)
    short_description = serializers.CharField()
    description = serializers.CharField()
    track_inventory = serializers.BooleanField()
    allow_backorders = serializers.BooleanField()
    weight = serializers.CharField(allow_null=True)
    length = serializers.CharField(allow_null=True)
    width = serializers.CharField(allow_null=True)
    height = serializers.CharField(allow_null=True)
    featured_image_id = IdField(allow_null=True)
    image_sources = SourcesSerializer(help_text="AVIF and WebP of the featured image by size.")
    gallery_image_ids = serializers.ListField(child=IdField())
    gallery_images = ImageObjectSerializer(many=True)
    attributes = ProductAttributeOutSerializer(many=True)
    variants = VariantSerializer(many=True, help_text="Enabled variants (variable products).")
    total_sales = IntegerField()


class InventorySettingsSerializer(serializers.Serializer):
    stock_display_format = serializers.CharField()
    low_stock_threshold = IntegerField()


class ProductListSerializer(serializers.Serializer):
    data = ProductSummarySerializer(many=True)
    meta = MetaSerializer()
    inventory_settings = InventorySettingsSerializer()


# --- Input --------------------------------------------------------------------------------------


class ProductListQuerySerializer(serializers.Serializer):
    pure_query = True  # store.common.params.validate_query remembers it per distinct query

    page = PageField()
    per_page = PerPageField(cap=100, help_text="Default 20 (store setting and hook), at most 100.")
    q = serializers.CharField(required=False, max_length=200, help_text="Search term (preferred).")
    search = serializers.CharField(required=False, max_length=200, help_text="Same as q.")
    status = CaseInsensitiveChoiceField(
        choices=[*ProductStatus.values, "any"],
        required=False,
        help_text="Default active. Other values need ec_manage_products.",
    )
    type = CaseInsensitiveChoiceField(choices=ProductType.values, required=False)
    category = serializers.CharField(
        required=False, max_length=200, help_text="Category slug (subcategories included)."
    )
    category_id = IdField(required=False, min_value=1, help_text="Subcategories included.")
    brand_id = IdField(required=False, min_value=1)
    brand_ids = CommaSeparatedIntegersField(required=False, help_text="Comma-separated brand ids.")
    min_price = MoneyField(required=False, coerce_to_string=False)
    max_price = MoneyField(required=False, coerce_to_string=False)
    on_sale = serializers.BooleanField(required=False, default=False)
    min_rating = serializers.DecimalField(
        required=False,
        max_digits=3,
        decimal_places=2,
        min_value=0,
        max_value=5,
        coerce_to_string=False,
    )
    stock_status = CaseInsensitiveChoiceField(choices=StockStatus.values, required=False)
    filter_logic = CaseInsensitiveChoiceField(choices=["and", "or"], required=False, default="and")
    orderby = CaseInsensitiveChoiceField(
        choices=[
            "id",
            "title",
            "slug",
            "price",
            "date",
            "modified",
            "rating",
            "popularity",
            "sku",
            "stock_quantity",
            "relevance",
        ],
        required=False,
        help_text="Default id (relevance with a search term).",
    )
    order = CaseInsensitiveChoiceField(choices=["ASC", "DESC"], required=False, default="DESC")

    def validate(self, attrs):
        low, high = attrs.get("min_price"), attrs.get("max_price")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError({"max_price": ["max_price is below min_price."]})
        if attrs.get("orderby") == "relevance" and not (attrs.get("q") or attrs.get("search")):
            raise serializers.ValidationError({"orderby": ["relevance needs a search term (q)."]})
        return attrs


class ProductAttributeInSerializer(serializers.Serializer):
    attribute_id = IdField()
    term_ids = IdListField(required=True, allow_empty=False)

    class Meta:  # any other shape (ids, objects keyed by slug, pairs, term objects) is 422
        list_serializer_class = RowListSerializer


class ProductWriteSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=255)
    slug = serializers.SlugField(max_length=200, allow_unicode=True, required=False)
    type = serializers.ChoiceField(choices=ProductType.choices, required=False)
    status = serializers.ChoiceField(choices=ProductStatus.choices, required=False)
    sku = serializers.CharField(max_length=64, allow_blank=True, required=False)
    ean = serializers.CharField(
        max_length=14,
        allow_blank=True,
        required=False,
        help_text="EAN-8/13, UPC-A or GTIN-14; check digit validated.",
    )
    mpn = serializers.CharField(max_length=64, allow_blank=True, required=False)
    brand = BrandRefField(
        required=False, allow_null=True, help_text="Brand id or slug; null for none."
    )
    brand_id = IntegerField(
        required=False, allow_null=True, min_value=1, help_text="Same as brand, by id."
    )
    product_condition = serializers.ChoiceField(choices=ProductCondition.choices, required=False)
    short_description = serializers.CharField(allow_blank=True, required=False, max_length=5000)
    description = serializers.CharField(allow_blank=True, required=False, max_length=200_000)
    price = MoneyField(
        required=False,
        allow_null=True,
        help_text="The regular price when regular_price is not sent.",
    )
    regular_price = MoneyField(required=False, allow_null=True)
    sale_price = MoneyField(
        required=False, allow_null=True, help_text="Below regular_price; null ends the sale."
    )
    stock_quantity = IntegerField(required=False, min_value=0, max_value=1_000_000_000)
    track_inventory = serializers.BooleanField(
        required=False, help_text="On by default when stock_quantity is sent on create."
    )
    allow_backorders = serializers.BooleanField(required=False)
    stock_status = serializers.ChoiceField(
        choices=StockStatus.choices, required=False, help_text="Only without tracked inventory."
    )
    low_stock_threshold = IntegerField(
        required=False, allow_null=True, min_value=0, max_value=1_000_000_000
    )
    category_ids = IdListField()
    featured_image_id = IntegerField(required=False, allow_null=True, min_value=1)
    gallery_image_ids = IdListField(max_length=100)
    weight = NumberField()
    length = NumberField()
    width = NumberField()
    height = NumberField()
    attributes = ProductAttributeInSerializer(many=True, required=False)

    def validate(self, attrs):
        if "brand_id" in attrs:
            attrs.setdefault("brand", attrs.pop("brand_id"))
        if "title" in attrs and not attrs["title"].strip():
            raise serializers.ValidationError({"title": ["This field may not be blank."]})
        return attrs


class VariantAttributeInSerializer(serializers.Serializer):
    attribute_id = IdField()
    term_id = IdField()

    class Meta:
        list_serializer_class = RowListSerializer


class VariantWriteSerializer(serializers.Serializer):
    sku = serializers.CharField(max_length=64, allow_blank=True, required=False)
    barcode = serializers.CharField(max_length=14, allow_blank=True, required=False)
    title = serializers.CharField(max_length=255, allow_blank=True, required=False)
    attributes = VariantAttributeInSerializer(
        many=True, required=False, help_text="One term per attribute."
    )
    price = MoneyField(
        required=False,
        allow_null=True,
        help_text="The regular price when regular_price is not sent.",
    )
    regular_price = MoneyField(
        required=False, allow_null=True, help_text="Default on create: the product's."
    )
    sale_price = MoneyField(required=False, allow_null=True)
    stock_quantity = IntegerField(required=False, min_value=0, max_value=1_000_000_000)
    track_inventory = serializers.BooleanField(required=False)
    allow_backorders = serializers.BooleanField(required=False)
    stock_status = serializers.ChoiceField(choices=StockStatus.choices, required=False)
    weight = NumberField()
    length = NumberField()
    width = NumberField()
    height = NumberField()
    image_id = IntegerField(required=False, allow_null=True, min_value=1)
    enabled = serializers.BooleanField(required=False)
    sort_order = IntegerField(required=False, min_value=-1_000_000, max_value=1_000_000)


class ReorderItemSerializer(serializers.Serializer):
    id = IntegerField(min_value=1)
    sort_order = IntegerField(min_value=-1_000_000, max_value=1_000_000)


class ReorderSerializer(serializers.Serializer):
    order = ReorderItemSerializer(many=True, allow_empty=False)


class LookupQuerySerializer(serializers.Serializer):
    barcode = serializers.CharField(max_length=14, help_text="EAN-8/13, UPC-A or GTIN-14.")
    warehouse_id = IdField(
        required=False, min_value=0, default=0, help_text="0 is the default warehouse."
    )


class LookupSerializer(serializers.Serializer):
    match = serializers.ChoiceField(choices=["product", "variant"])
    barcode = serializers.CharField()
    warehouse_id = IdField(min_value=0, help_text="0 is the default warehouse.")
    stock_quantity = IntegerField(help_text="In the warehouse asked for.")
    product = ProductDetailSerializer()
    variant = VariantSerializer(allow_null=True)


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=200, help_text="The search term.")
    per_page = PerPageField(
        cap=20, default=8, help_text="Default 8, at most 20 (larger values are capped)."
    )


class SearchCategorySerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    parent_id = IdField(allow_null=True)
    image = ImageObjectSerializer(allow_null=True)


class SearchProductsSerializer(serializers.Serializer):
    items = ProductSummarySerializer(many=True)
    total = IntegerField()


class SearchCategoriesSerializer(serializers.Serializer):
    items = SearchCategorySerializer(many=True)


class SearchResultSerializer(serializers.Serializer):
    products = SearchProductsSerializer()
    categories = SearchCategoriesSerializer()


class FacetTermSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    value = serializers.CharField()
    count = IntegerField()


class FacetAttributeSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    type = serializers.CharField()
    terms = FacetTermSerializer(many=True)


class FacetCountSerializer(serializers.Serializer):
    id = IdField()
    name = serializers.CharField()
    slug = serializers.CharField()
    count = IntegerField()


class FacetCategorySerializer(FacetCountSerializer):
    parent_id = IdField(allow_null=True)


class PriceRangeSerializer(serializers.Serializer):
    min = serializers.CharField(allow_null=True)
    max = serializers.CharField(allow_null=True)


class StockFacetSerializer(serializers.Serializer):
    value = serializers.ChoiceField(choices=StockStatus.choices)
    count = IntegerField()


class FacetsSerializer(serializers.Serializer):
    total = IntegerField(help_text="Products matching every filter.")
    on_sale = IntegerField(help_text="Of those, how many are on sale.")
    price_range = PriceRangeSerializer(help_text="Ignoring min_price and max_price.")
    categories = FacetCategorySerializer(
        many=True, help_text="Ignoring category filters; subcategories counted in."
    )
    brands = FacetCountSerializer(many=True, help_text="Ignoring brand filters.")
    attributes = FacetAttributeSerializer(
        many=True, help_text="Each attribute ignoring its own attr_ filter."
    )
    stock_status = StockFacetSerializer(many=True, help_text="Ignoring stock_status.")


class DeletedCountSerializer(serializers.Serializer):
    success = serializers.BooleanField()
    message = serializers.CharField()
    data = serializers.DictField(help_text="{deleted: number of variants deleted}")


class VariantListSerializer(serializers.Serializer):
    data = VariantSerializer(many=True)
