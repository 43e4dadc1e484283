from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Func, Q
from django.utils import timezone

from store.catalog.choices import (
    AttributeType,
    ProductCondition,
    ProductStatus,
    ProductType,
    StockStatus,
)
from store.common.money import MoneyModelField
from store.media.models import MediaImage


def _dimension(**kwargs) -> models.DecimalField:
    return models.DecimalField(max_digits=10, decimal_places=3, null=True, blank=True, **kwargs)


class SearchDocument(Func):
    """The product's weighted full-text document (title A, SKU B, descriptions C), the
    expression of the generated column `search_document`. PostgreSQL only: elsewhere the
    column is NULL and search falls back to icontains (selectors.products.search_filter)."""

    template = "NULL"
    arity = 0

    def __init__(self, **extra):
        super().__init__(output_field=SearchDocumentField(), **extra)

    def as_postgresql(self, compiler, connection, **extra_context):
        parts = (("title", "A"), ("sku", "B"), ("short_description", "C"), ("description", "C"))
        sql = " || ".join(
            f"setweight(to_tsvector('simple'::regconfig, coalesce({connection.ops.quote_name(c)}"
            f", '')), '{w}')"
            for c, w in parts
        )
        return sql, []


class SearchDocumentField(models.Field):
    """A tsvector column on PostgreSQL; an untyped (always NULL) column elsewhere."""

    def db_type(self, connection):
        return "tsvector" if connection.vendor == "postgresql" else "text"


@SearchDocumentField.register_lookup
class Matches(models.Lookup):
    """document @@ tsquery (PostgreSQL)."""

    lookup_name = "matches"

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs} @@ {rhs}", [*lhs_params, *rhs_params]


class Category(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True, allow_unicode=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )
    description = models.TextField(blank=True)
    image = models.ForeignKey(
        MediaImage, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    sort_order = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["sort_order", "name", "id"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name


class Brand(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True, allow_unicode=True)
    description = models.TextField(blank=True)
    logo = models.ForeignKey(
        MediaImage, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    website = models.URLField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Attribute(models.Model):
    """A product attribute (colour, size); its slug names the list filter attr_{slug}."""

    name = models.CharField(max_length=100)
    slug = models.SlugField(
        max_length=100,
        unique=True,
        validators=[
            RegexValidator(
                r"^[a-z0-9][a-z0-9_-]*$",
                "Lower-case letters, digits, '-' and '_' only (it names the filter attr_{slug}).",
            )
        ],
    )
    type = models.CharField(
        max_length=16, choices=AttributeType.choices, default=AttributeType.SELECT
    )
    sort_order = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["sort_order", "name", "id"]

    def __str__(self) -> str:
        return self.name


class AttributeTerm(models.Model):
    attribute = models.ForeignKey(Attribute, on_delete=models.CASCADE, related_name="terms")
    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100, allow_unicode=True)
    value = models.CharField(
        max_length=64, blank=True, help_text="Swatch value, e.g. #ff0000 for a colour."
    )
    sort_order = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["attribute_id", "sort_order", "name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["attribute", "slug"], name="store_catalog_term_slug_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.attribute.name}: {self.name}" if self.attribute_id else self.name


def _order_indexes(*names: str) -> list[models.Index]:
    """(field, id): the list's order by the field either way (DESC reads it backward). Price
    DESC NULLS LAST has its own index on PostgreSQL (migration 0002; SQLite cannot)."""
    return [
        models.Index(fields=[name, "id"], name=f"catalog_prod_{name.replace('_', '')[:14]}")
        for name in names
    ]


class Product(models.Model):
    """A product. Fields marked derived are recomputed by services.product_refresh;
    `stock_quantity` and `stock_status` (of variants too) are written only by the inventory
    (store.inventory.services), from the stock levels."""

    title = models.CharField(max_length=255)
    slug = models.SlugField(max_length=255, unique=True, allow_unicode=True)
    type = models.CharField(max_length=16, choices=ProductType.choices, default=ProductType.SIMPLE)
    status = models.CharField(
        max_length=16, choices=ProductStatus.choices, default=ProductStatus.DRAFT
    )
    sku = models.CharField("SKU", max_length=64, blank=True, default="")
    ean = models.CharField("EAN", max_length=14, blank=True, default="")
    mpn = models.CharField("MPN", max_length=64, blank=True, default="")
    brand = models.ForeignKey(
        Brand, null=True, blank=True, on_delete=models.SET_NULL, related_name="products"
    )
    product_condition = models.CharField(
        max_length=16, choices=ProductCondition.choices, default=ProductCondition.NEW
    )
    short_description = models.TextField(blank=True)
    description = models.TextField(blank=True)

    regular_price = MoneyModelField(null=True, blank=True)
    sale_price = MoneyModelField(null=True, blank=True)
    price = MoneyModelField(null=True, blank=True, help_text="Derived: the price paid now.")
    min_price = MoneyModelField(null=True, blank=True, help_text="Derived.")
    max_price = MoneyModelField(null=True, blank=True, help_text="Derived.")
    on_sale = models.BooleanField(default=False, help_text="Derived.")

    track_inventory = models.BooleanField(default=False)
    stock_quantity = models.IntegerField(default=0)
    allow_backorders = models.BooleanField(default=False)
    low_stock_threshold = models.PositiveIntegerField(null=True, blank=True)
    stock_status = models.CharField(
        max_length=16,
        choices=StockStatus.choices,
        default=StockStatus.IN_STOCK,
        help_text="Derived from the stock when inventory is tracked (or from the variants).",
    )

    weight = _dimension()
    length = _dimension()
    width = _dimension()
    height = _dimension()

    categories = models.ManyToManyField(Category, blank=True, related_name="products")
    attribute_terms = models.ManyToManyField(AttributeTerm, blank=True, related_name="products")
    featured_image = models.ForeignKey(
        MediaImage, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    average_rating = models.DecimalField(
        max_digits=3, decimal_places=2, default=0, help_text="Derived from approved reviews."
    )
    review_count = models.PositiveIntegerField(default=0, help_text="Derived.")
    total_sales = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)
    # Kept by the database from title, SKU and descriptions (PostgreSQL full-text search, GIN
    # index created by migration 0002 on PostgreSQL only).
    search_document = models.GeneratedField(
        expression=SearchDocument(), output_field=SearchDocumentField(), db_persist=True
    )

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["sku"], condition=~Q(sku=""), name="store_catalog_product_sku_unique"
            ),
            models.UniqueConstraint(
                fields=["ean"], condition=~Q(ean=""), name="store_catalog_product_ean_unique"
            ),
            models.CheckConstraint(
                condition=Q(regular_price__gte=0) | Q(regular_price__isnull=True),
                name="store_catalog_product_regular_price_positive",
            ),
            models.CheckConstraint(
                condition=Q(sale_price__gte=0) | Q(sale_price__isnull=True),
                name="store_catalog_product_sale_price_positive",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "stock_status"]),
            models.Index(fields=["status", "min_price"]),
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["status", "average_rating"]),
            models.Index(fields=["type"]),
            # The list's price bounds (min_price above; max_price for a lower bound).
            models.Index(fields=["max_price"], name="catalog_product_max_price"),
            # Low stock (the dashboard): the highest threshold set bounds the stock range read.
            models.Index(
                fields=["low_stock_threshold"],
                condition=Q(low_stock_threshold__isnull=False),
                name="catalog_prod_threshold",
            ),
            # One index per list order (ties by id).
            *_order_indexes(
                "price",
                "created_at",
                "title",
                "average_rating",
                "total_sales",
                "updated_at",
                "sku",
                "stock_quantity",
            ),
        ]

    def __str__(self) -> str:
        return self.title


class ProductImage(models.Model):
    """A gallery entry: an image shown with a product, in order."""

    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="gallery_items")
    image = models.ForeignKey(MediaImage, on_delete=models.CASCADE, related_name="+")
    sort_order = models.IntegerField(default=0)

    class Meta:
        ordering = ["sort_order", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["product", "image"], name="store_catalog_gallery_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.product_id}: image {self.image_id}"


class Variant(models.Model):
    """One purchasable combination of a variable product's attribute terms."""

    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="variants")
    sku = models.CharField("SKU", max_length=64, blank=True, default="")
    barcode = models.CharField(max_length=14, blank=True, default="", help_text="EAN/UPC/GTIN.")
    title = models.CharField(max_length=255, blank=True)

    regular_price = MoneyModelField(null=True, blank=True)
    sale_price = MoneyModelField(null=True, blank=True)
    price = MoneyModelField(null=True, blank=True, help_text="Derived.")
    on_sale = models.BooleanField(default=False, help_text="Derived.")

    track_inventory = models.BooleanField(default=False)
    stock_quantity = models.IntegerField(default=0)
    allow_backorders = models.BooleanField(default=False)
    stock_status = models.CharField(
        max_length=16, choices=StockStatus.choices, default=StockStatus.IN_STOCK
    )

    weight = _dimension()
    length = _dimension()
    width = _dimension()
    height = _dimension()

    image = models.ForeignKey(
        MediaImage, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    enabled = models.BooleanField(default=True)
    sort_order = models.IntegerField(default=0)
    attribute_terms = models.ManyToManyField(
        AttributeTerm, through="VariantAttribute", related_name="variants", blank=True
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["sort_order", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["sku"], condition=~Q(sku=""), name="store_catalog_variant_sku_unique"
            ),
            models.UniqueConstraint(
                fields=["barcode"],
                condition=~Q(barcode=""),
                name="store_catalog_variant_barcode_unique",
            ),
            models.CheckConstraint(
                condition=Q(regular_price__gte=0) | Q(regular_price__isnull=True),
                name="store_catalog_variant_regular_price_positive",
            ),
            models.CheckConstraint(
                condition=Q(sale_price__gte=0) | Q(sale_price__isnull=True),
                name="store_catalog_variant_sale_price_positive",
            ),
        ]
        indexes = [
            # Low stock (the dashboard): tracked variants by quantity, read up to a bound.
            models.Index(
                fields=["stock_quantity"],
                condition=Q(track_inventory=True, enabled=True),
                name="catalog_variant_low_stock",
            ),
        ]

    def __str__(self) -> str:
        return self.title or self.sku or f"Variant {self.pk}"


class VariantAttribute(models.Model):
    """The term a variant has for one attribute (one term per attribute)."""

    variant = models.ForeignKey(
        Variant, on_delete=models.CASCADE, related_name="variant_attributes"
    )
    attribute = models.ForeignKey(Attribute, on_delete=models.PROTECT, related_name="+")
    term = models.ForeignKey(AttributeTerm, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["attribute__sort_order", "attribute_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["variant", "attribute"], name="store_catalog_variant_attribute_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.variant_id}: {self.term_id}"


class ProductListEntry(models.Model):
    """A product's public list entry as the database wrote it (selectors.product_json), kept
    so that a page reads it instead of building it. Valid only while it is what building it
    again would give, which the page's query checks itself: `row_version` is the version of
    the product row it was built from (PostgreSQL's xmin and ctid), `generation` the catalog's
    ListEntryGeneration then, `base` the media base URL in its URLs. Any other entry is built
    in the query and stored again (services.list_entries). PostgreSQL only."""

    product = models.OneToOneField(
        Product,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="+",
        # A page stores the entries of the rows it read; one deleted meanwhile must not fail it.
        db_constraint=False,
    )
    row_version = models.CharField(max_length=64)
    generation = models.BigIntegerField()
    base = models.CharField(max_length=200)
    body = models.TextField()

    def __str__(self) -> str:
        return f"list entry of product {self.product_id}"


class ListEntryGeneration(models.Model):
    """The generation of the stored list entries (one row, id 1, made by the first bump): a
    change of what entries show beside the product's own row (a category, a brand, an image)
    moves it on, which leaves every stored entry unread (services.list_entries)."""

    value = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"list entry generation {self.value}"
