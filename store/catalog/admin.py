"""Admin for the catalog: previews, search and filters; writes with rules go through services.

Stock quantities and statuses typed into the product and variant forms are not saved with the
row: they go to the inventory (store.catalog.services.stock), which records the movement and
recomputes the stock fields.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db import models

from common.errors import ServiceError
from store.catalog.choices import StockStatus
from store.catalog.models import (
    Attribute,
    AttributeTerm,
    Brand,
    Category,
    Product,
    ProductImage,
    Variant,
    VariantAttribute,
)
from store.catalog.rules import barcode_problem
from store.catalog.services import categories as category_services
from store.catalog.services import products as product_services
from store.catalog.services import variants as variant_services
from store.catalog.services.common import barcode_taken, sku_taken
from store.catalog.services.stock import stock_write
from store.inventory import selectors as inventory_selectors
from store.media.admin import image_preview


def _check_prices(cleaned: dict) -> None:
    regular, sale = cleaned.get("regular_price"), cleaned.get("sale_price")
    if sale is not None and regular is None:
        raise forms.ValidationError({"sale_price": "A sale price needs a regular price."})
    if sale is not None and regular is not None and sale >= regular:
        raise forms.ValidationError(
            {"sale_price": "The sale price must be lower than the regular price."}
        )


def _stock_field_remembers_the_page(form) -> None:
    """Compare the typed quantity with the one the page showed (a hidden initial), not with
    the stock now: a page loaded before an order took stock does not write its old number
    back unless someone changed it."""
    if "stock_quantity" in form.fields:
        form.fields["stock_quantity"].show_hidden_initial = True


def _check_stock(form, *, product_id=None, variant_id=None) -> None:
    quantity = form.cleaned_data.get("stock_quantity")
    if quantity is None or not form.instance.pk or "stock_quantity" not in form.changed_data:
        return
    elsewhere = inventory_selectors.stock_elsewhere(product_id=product_id, variant_id=variant_id)
    if quantity < elsewhere:
        form.add_error(
            "stock_quantity",
            f"Other warehouses hold {elsewhere} of this item; the total cannot be lower.",
        )


def _save_with_stock(obj, *, changed_fields, user, product=None) -> None:
    """Save a product or variant row keeping its stored stock fields; the typed quantity and
    manual status then go through the inventory."""
    quantity, status = obj.stock_quantity, obj.stock_status
    creating = obj.pk is None
    if creating:
        obj.stock_quantity, obj.stock_status = 0, StockStatus.IN_STOCK
    else:
        stored = type(obj).objects.filter(pk=obj.pk).values("stock_quantity", "stock_status")[0]
        obj.stock_quantity, obj.stock_status = stored["stock_quantity"], stored["stock_status"]
    obj.save()
    stock_write(
        product=product or obj,
        variant=obj if product is not None else None,
        quantity=quantity if creating or "stock_quantity" in changed_fields else None,
        manual_status=status,
        user=user,
    )


def _check_identifiers(form, *, barcode_field: str, product_id=None, variant_id=None) -> None:
    sku = form.cleaned_data.get("sku")
    if sku and sku_taken(sku, product_id=product_id, variant_id=variant_id):
        form.add_error("sku", "This SKU is used by another product or variant.")
    code = form.cleaned_data.get(barcode_field)
    if code:
        problem = barcode_problem(code)
        if problem:
            form.add_error(barcode_field, problem)
        elif barcode_taken(code, product_id=product_id, variant_id=variant_id):
            form.add_error(barcode_field, "This barcode is used by another product or variant.")


class ProductForm(forms.ModelForm):
    class Meta:
        model = Product
        fields = [
            "title",
            "slug",
            "type",
            "status",
            "featured_image",
            "sku",
            "ean",
            "mpn",
            "brand",
            "product_condition",
            "short_description",
            "description",
            "regular_price",
            "sale_price",
            "track_inventory",
            "stock_quantity",
            "allow_backorders",
            "stock_status",
            "low_stock_threshold",
            "weight",
            "length",
            "width",
            "height",
            "categories",
            "attribute_terms",
        ]

    def clean(self):
        cleaned = super().clean()
        _check_prices(cleaned)
        _check_identifiers(self, barcode_field="ean", product_id=self.instance.pk)
        _check_stock(self, product_id=self.instance.pk)
        return cleaned

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _stock_field_remembers_the_page(self)


class VariantForm(forms.ModelForm):
    class Meta:
        model = Variant
        fields = [
            "product",
            "title",
            "sku",
            "barcode",
            "regular_price",
            "sale_price",
            "track_inventory",
            "stock_quantity",
            "allow_backorders",
            "stock_status",
            "weight",
            "length",
            "width",
            "height",
            "image",
            "enabled",
            "sort_order",
        ]

    def clean(self):
        cleaned = super().clean()
        _check_prices(cleaned)
        _check_identifiers(self, barcode_field="barcode", variant_id=self.instance.pk)
        if self.instance.pk:
            _check_stock(self, product_id=self.instance.product_id, variant_id=self.instance.pk)
        return cleaned

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _stock_field_remembers_the_page(self)


class CategoryForm(forms.ModelForm):
    class Meta:
        model = Category
        fields = ["name", "slug", "parent", "description", "image", "sort_order"]

    def clean_parent(self):
        parent = self.cleaned_data.get("parent")
        if parent is not None and self.instance.pk:
            parents = category_services._parents_map()
            if parent.pk == self.instance.pk or category_services._creates_cycle(
                self.instance.pk, parent.pk, parents
            ):
                raise forms.ValidationError(
                    "A category cannot be its own parent or the child of its descendants."
                )
        return parent


class GalleryInline(admin.TabularInline):
    model = ProductImage
    extra = 0
    raw_id_fields = ["image"]
    fields = ["preview", "image", "sort_order"]
    readonly_fields = ["preview"]

    @admin.display(description="Image")
    def preview(self, obj):
        return image_preview(obj.image if obj.pk else None)


class VariantInline(admin.TabularInline):
    model = Variant
    form = VariantForm
    extra = 0
    show_change_link = True
    raw_id_fields = ["image"]
    fields = [
        "preview",
        "title",
        "sku",
        "barcode",
        "regular_price",
        "sale_price",
        "track_inventory",
        "stock_quantity",
        "allow_backorders",
        "stock_status",
        "enabled",
        "sort_order",
        "image",
    ]
    readonly_fields = ["preview"]

    @admin.display(description="Image")
    def preview(self, obj):
        return image_preview(obj.image if obj.pk else None, height=40)


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    form = ProductForm
    list_display = [
        "preview",
        "title",
        "sku",
        "type",
        "status",
        "price",
        "on_sale",
        "stock_status",
        "stock_quantity",
        "brand",
        "average_rating",
        "updated_at",
    ]
    list_display_links = ["preview", "title"]
    list_filter = [
        "status",
        "type",
        "stock_status",
        "on_sale",
        "product_condition",
        "brand",
        "categories",
    ]
    search_fields = ["title", "slug", "sku", "ean", "mpn", "variants__sku", "variants__barcode"]
    list_select_related = ["featured_image", "brand"]
    raw_id_fields = ["featured_image"]
    filter_horizontal = ["categories"]
    autocomplete_fields = ["brand", "attribute_terms"]
    prepopulated_fields = {"slug": ["title"]}
    readonly_fields = [
        "large_preview",
        "price",
        "min_price",
        "max_price",
        "on_sale",
        "average_rating",
        "review_count",
        "total_sales",
        "created_at",
        "updated_at",
    ]
    inlines = [GalleryInline, VariantInline]
    actions = ["publish", "archive", "duplicate"]
    list_per_page = 50
    fieldsets = [
        (None, {"fields": ["title", "slug", "type", "status", "large_preview", "featured_image"]}),
        ("Identifiers", {"fields": ["sku", "ean", "mpn", "brand", "product_condition"]}),
        ("Text", {"fields": ["short_description", "description"]}),
        (
            "Price",
            {
                "fields": [
                    "regular_price",
                    "sale_price",
                    "price",
                    "min_price",
                    "max_price",
                    "on_sale",
                ]
            },
        ),
        (
            "Inventory",
            {
                "fields": [
                    "track_inventory",
                    "stock_quantity",
                    "allow_backorders",
                    "stock_status",
                    "low_stock_threshold",
                ]
            },
        ),
        ("Shipping", {"fields": ["weight", "length", "width", "height"]}),
        ("Catalog", {"fields": ["categories", "attribute_terms"]}),
        (
            "Statistics",
            {
                "fields": [
                    "average_rating",
                    "review_count",
                    "total_sales",
                    "created_at",
                    "updated_at",
                ]
            },
        ),
    ]

    @admin.display(description="Image")
    def preview(self, obj):
        return image_preview(obj.featured_image)

    @admin.display(description="Preview")
    def large_preview(self, obj):
        return image_preview(obj.featured_image, height=200)

    def save_model(self, request, obj, form, change):
        _save_with_stock(obj, changed_fields=form.changed_data, user=request.user)

    def delete_model(self, request, obj):
        product_services.product_delete(product_id=obj.pk)

    def delete_queryset(self, request, queryset):
        for product_id in queryset.values_list("pk", flat=True):
            product_services.product_delete(product_id=product_id)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Variant:
            return super().save_formset(request, form, formset, change)
        formset.save(commit=False)
        for variant in formset.deleted_objects:
            variant_services.variant_delete(variant_id=variant.pk)
        changed = dict(formset.changed_objects)
        for variant in [*formset.new_objects, *changed]:
            variant_services.variant_derive(variant=variant)
            _save_with_stock(
                variant,
                changed_fields=changed.get(variant, []),
                user=request.user,
                product=form.instance,
            )
        formset.save_m2m()
        return None

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # Derived prices and the stock fields follow the product and its variants.
        product_services.product_refresh(product=form.instance)

    @admin.action(description="Publish (status active)")
    def publish(self, request, queryset):
        self._set_status(request, queryset, "active")

    @admin.action(description="Archive")
    def archive(self, request, queryset):
        self._set_status(request, queryset, "archived")

    def _set_status(self, request, queryset, status: str) -> None:
        for product_id in queryset.values_list("pk", flat=True):
            product_services.product_update(product_id=product_id, fields={"status": status})
        self.message_user(request, f"{queryset.count()} product(s) set to {status}.")

    @admin.action(description="Duplicate as drafts")
    def duplicate(self, request, queryset):
        made = 0
        for product_id in queryset.values_list("pk", flat=True):
            try:
                product_services.product_duplicate(product_id=product_id)
                made += 1
            except ServiceError as exc:
                self.message_user(request, f"Product {product_id}: {exc.detail}", messages.ERROR)
        self.message_user(request, f"{made} draft copy(ies) made.")


class VariantAttributeInline(admin.TabularInline):
    model = VariantAttribute
    extra = 0
    autocomplete_fields = ["attribute", "term"]


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    form = VariantForm
    list_display = [
        "preview",
        "__str__",
        "product",
        "sku",
        "barcode",
        "price",
        "stock_status",
        "stock_quantity",
        "enabled",
        "sort_order",
    ]
    list_display_links = ["preview", "__str__"]
    list_filter = ["enabled", "stock_status", "on_sale"]
    search_fields = ["title", "sku", "barcode", "product__title"]
    list_select_related = ["product", "image"]
    raw_id_fields = ["product", "image"]
    readonly_fields = ["price", "on_sale", "created_at", "updated_at"]
    inlines = [VariantAttributeInline]

    @admin.display(description="Image")
    def preview(self, obj):
        return image_preview(obj.image)

    def save_model(self, request, obj, form, change):
        variant_services.variant_derive(variant=obj)
        _save_with_stock(
            obj, changed_fields=form.changed_data, user=request.user, product=obj.product
        )

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        variant = form.instance
        product_services.ensure_product_terms(
            product=variant.product, terms=[link.term for link in variant.variant_attributes.all()]
        )
        product_services.product_refresh(product=variant.product)

    def delete_model(self, request, obj):
        variant_services.variant_delete(variant_id=obj.pk)

    def delete_queryset(self, request, queryset):
        for variant_id in queryset.values_list("pk", flat=True):
            variant_services.variant_delete(variant_id=variant_id)


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    form = CategoryForm
    list_display = ["preview", "name", "slug", "parent", "sort_order", "updated_at"]
    list_display_links = ["preview", "name"]
    list_filter = [("parent", admin.EmptyFieldListFilter)]
    search_fields = ["name", "slug"]
    list_select_related = ["parent", "image"]
    raw_id_fields = ["image"]
    autocomplete_fields = ["parent"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["large_preview", "created_at", "updated_at"]

    @admin.display(description="Image")
    def preview(self, obj):
        return image_preview(obj.image)

    @admin.display(description="Preview")
    def large_preview(self, obj):
        return image_preview(obj.image, height=200)


@admin.register(Brand)
class BrandAdmin(admin.ModelAdmin):
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = ["preview", "name", "slug", "website", "updated_at"]
    list_display_links = ["preview", "name"]
    search_fields = ["name", "slug"]
    list_select_related = ["logo"]
    raw_id_fields = ["logo"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["large_preview", "created_at", "updated_at"]

    @admin.display(description="Logo")
    def preview(self, obj):
        return image_preview(obj.logo)

    @admin.display(description="Preview")
    def large_preview(self, obj):
        return image_preview(obj.logo, height=200)


class TermInline(admin.TabularInline):
    model = AttributeTerm
    extra = 0
    prepopulated_fields = {"slug": ["name"]}
    fields = ["name", "slug", "value", "sort_order"]


@admin.register(Attribute)
class AttributeAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "type", "sort_order"]
    list_filter = ["type"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [TermInline]


@admin.register(AttributeTerm)
class AttributeTermAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "attribute", "value", "sort_order"]
    list_filter = ["attribute"]
    search_fields = ["name", "slug", "attribute__name"]
    list_select_related = ["attribute"]
