"""Admin for the catalog: previews, search and filters; every write goes through the services.

The forms check with the services' checks (product_check, variant_check, category_check, ...:
the rules the API applies) and show a refusal on their fields; the admin then saves through
the services (product_create/update, variant_create/update/delete, ...), so a form can refuse
nothing the API would accept and accept nothing it would refuse (a variable product with
variants does not become a simple one here either). Stock quantities and statuses typed into
the product and variant forms go to the inventory through those services.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.forms.models import BaseInlineFormSet

from common.admin import ServiceAdmin, ServiceForm, for_each
from common.errors import ServiceError
from store.catalog.models import (
    Attribute,
    AttributeTerm,
    Brand,
    Category,
    Product,
    ProductImage,
    Variant,
)
from store.catalog.services import attributes as attribute_services
from store.catalog.services import brands as brand_services
from store.catalog.services import categories as category_services
from store.catalog.services import products as product_services
from store.catalog.services import variants as variant_services
from store.inventory import selectors as inventory_selectors
from store.media.admin import image_preview


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


def _stock_fields(form, fields: dict) -> None:
    """The stock as the services take it: the quantity when typed (or when adding), and a
    status set by hand only for an item without tracked inventory."""
    creating = form.instance.pk is None
    fields.pop("stock_quantity", None)
    fields.pop("stock_status", None)
    data, changed = form.cleaned_data, set(form.changed_data)
    if data.get("stock_quantity") is not None and (creating or "stock_quantity" in changed):
        fields["stock_quantity"] = data["stock_quantity"]
    if not data.get("track_inventory") and data.get("stock_status"):
        fields["stock_status"] = data["stock_status"]


class ProductForm(ServiceForm):
    generated = ("slug",)
    ids = {"brand": "brand", "featured_image": "featured_image_id"}
    params = {"category_ids": "categories", "attributes": "attribute_terms"}

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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _stock_field_remembers_the_page(self)

    def service_fields(self) -> dict:
        fields = super().service_fields()
        if "categories" in fields:
            fields["category_ids"] = [category.pk for category in fields.pop("categories")]
        if "attribute_terms" in fields:
            grouped: dict[int, list[int]] = {}
            for term in fields.pop("attribute_terms"):
                grouped.setdefault(term.attribute_id, []).append(term.pk)
            fields["attributes"] = [
                {"attribute_id": attribute_id, "term_ids": term_ids}
                for attribute_id, term_ids in grouped.items()
            ]
        _stock_fields(self, fields)
        return fields

    def check(self, fields: dict) -> None:
        product_services.product_check(fields=fields, product_id=self.instance.pk)

    def clean(self):
        cleaned = super().clean()
        _check_stock(self, product_id=self.instance.pk)
        return cleaned


class TermsField(forms.ModelMultipleChoiceField):
    """A variant's attributes: one term of each attribute."""

    def label_from_instance(self, obj: AttributeTerm) -> str:
        return f"{obj.attribute.name}: {obj.name}"


class VariantForm(ServiceForm):
    """A variant on its own page: its product, and its attributes as terms."""

    ids = {"image": "image_id", "product": "product_id"}
    params = {"attributes": "terms"}
    terms = TermsField(
        queryset=AttributeTerm.objects.select_related("attribute").order_by(
            "attribute__sort_order", "attribute__name", "sort_order", "name"
        ),
        required=False,
        widget=FilteredSelectMultiple("attribute terms", is_stacked=False),
        help_text="One term of each attribute; no other variant of the product may have the "
        "same ones.",
    )
    product: Product | None = None  # the parent product (set by the inline's formset)

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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _stock_field_remembers_the_page(self)
        if "terms" in self.fields and self.instance.pk:
            self.fields["terms"].initial = list(self.instance.attribute_terms.all())

    def service_fields(self) -> dict:
        fields = super().service_fields()
        if self.instance.pk is None and fields.get("regular_price") is None:
            # Without a price of its own a new variant takes the product's (as in the API).
            fields.pop("regular_price", None)
            if fields.get("sale_price") is None:
                fields.pop("sale_price", None)
        if "terms" in self.fields and (self.instance.pk is None or "terms" in self.changed_data):
            fields["attributes"] = [
                {"attribute_id": term.attribute_id, "term_id": term.pk}
                for term in self.cleaned_data.get("terms") or []
            ]
        _stock_fields(self, fields)
        return fields

    def check(self, fields: dict) -> None:
        product = self.product or self.cleaned_data.get("product") or self.instance.product
        variant_services.variant_check(fields=fields, product=product, variant_id=self.instance.pk)

    def clean(self):
        cleaned = super().clean()
        if self.instance.pk:
            _check_stock(self, product_id=self.instance.product_id, variant_id=self.instance.pk)
        return cleaned


class VariantInlineForm(VariantForm):
    """A variant in its product's page (its attributes are edited on its own page)."""

    terms = None

    class Meta(VariantForm.Meta):
        fields = [name for name in VariantForm.Meta.fields if name != "product"]


class VariantFormSet(BaseInlineFormSet):
    """Each variant of the page is checked with the page's product (its type as typed)."""

    def _construct_form(self, i, **kwargs):
        form = super()._construct_form(i, **kwargs)
        form.product = self.instance
        return form

    @property
    def empty_form(self):
        form = super().empty_form
        form.product = self.instance
        return form


class CategoryForm(ServiceForm):
    generated = ("slug",)
    ids = {"parent": "parent_id", "image": "image_id"}

    class Meta:
        model = Category
        fields = ["name", "slug", "parent", "description", "image", "sort_order"]

    def check(self, fields: dict) -> None:
        category_services.category_check(fields=fields, category_id=self.instance.pk)


class BrandForm(ServiceForm):
    generated = ("slug",)
    ids = {"logo": "logo_id"}
    website = forms.URLField(required=False, max_length=200, assume_scheme="https")

    class Meta:
        model = Brand
        fields = ["name", "slug", "description", "website", "logo"]

    def check(self, fields: dict) -> None:
        brand_services.brand_check(fields=fields, brand_id=self.instance.pk)


class AttributeForm(ServiceForm):
    generated = ("slug",)

    class Meta:
        model = Attribute
        fields = ["name", "slug", "type", "sort_order"]

    def check(self, fields: dict) -> None:
        attribute_services.attribute_check(fields=fields, attribute_id=self.instance.pk)


class TermForm(ServiceForm):
    generated = ("slug",)
    ids = {"attribute": "attribute_id"}

    class Meta:
        model = AttributeTerm
        fields = ["attribute", "name", "slug", "value", "sort_order"]

    def check(self, fields: dict) -> None:
        attribute = self.cleaned_data.get("attribute")
        attribute_services.term_check(
            fields=fields,
            attribute_id=attribute.pk if attribute is not None else self.instance.attribute_id,
            term_id=self.instance.pk,
        )


def _save_children(formset, *, delete, create, update) -> None:
    """Save an inline's rows through the services: its deleted rows, then each new or
    changed row with the fields its form checked."""
    formset.save(commit=False)  # fills new/changed/deleted_objects for the change message
    for obj in formset.deleted_objects:
        delete(obj)
    for form in formset.forms:
        fields = getattr(form, "checked_fields", None)
        if fields is None or form in formset.deleted_forms or not form.has_changed():
            continue
        saved = update(form.instance, fields) if form.instance.pk else create(fields)
        form.instance.pk = saved.pk


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
    form = VariantInlineForm
    formset = VariantFormSet
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
class ProductAdmin(ServiceAdmin):
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

    def create(self, request, fields):
        return product_services.product_create(fields=fields, user=request.user)

    def update(self, request, obj, fields):
        return product_services.product_update(product_id=obj.pk, fields=fields, user=request.user)

    def remove(self, request, obj):
        product_services.product_delete(product_id=obj.pk)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Variant:
            return super().save_formset(request, form, formset, change)
        product, user = form.instance, request.user
        _save_children(
            formset,
            delete=lambda variant: variant_services.variant_delete(variant_id=variant.pk),
            create=lambda fields: variant_services.variant_create(
                product_id=product.pk, fields=fields, user=user
            ),
            update=lambda variant, fields: variant_services.variant_update(
                variant_id=variant.pk, fields=fields, user=user
            ),
        )
        return None

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # Derived prices and the stock fields follow the gallery and the variants.
        product_services.product_refresh(product=form.instance)

    @admin.action(description="Publish (status active)")
    def publish(self, request, queryset):
        self._set_status(request, queryset, "active")

    @admin.action(description="Archive")
    def archive(self, request, queryset):
        self._set_status(request, queryset, "archived")

    def _set_status(self, request, queryset, status: str) -> None:
        done = for_each(
            self,
            request,
            queryset.values_list("pk", flat=True),
            lambda pk: product_services.product_update(
                product_id=pk, fields={"status": status}, user=request.user
            ),
            label="Product",
        )
        self.message_user(request, f"{done} product(s) set to {status}.")

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


@admin.register(Variant)
class VariantAdmin(ServiceAdmin):
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
    fields = [*VariantForm.Meta.fields, "terms", *readonly_fields]

    def get_readonly_fields(self, request, obj=None):
        # A variant stays with its product (as in the API).
        return [*self.readonly_fields, "product"] if obj is not None else self.readonly_fields

    @admin.display(description="Image")
    def preview(self, obj):
        return image_preview(obj.image)

    def create(self, request, fields):
        product_id = fields.pop("product_id")
        return variant_services.variant_create(
            product_id=product_id, fields=fields, user=request.user
        )

    def update(self, request, obj, fields):
        return variant_services.variant_update(variant_id=obj.pk, fields=fields, user=request.user)

    def remove(self, request, obj):
        variant_services.variant_delete(variant_id=obj.pk)


@admin.register(Category)
class CategoryAdmin(ServiceAdmin):
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

    def create(self, request, fields):
        return category_services.category_create(fields=fields)

    def update(self, request, obj, fields):
        return category_services.category_update(category_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        category_services.category_delete(category_id=obj.pk)


@admin.register(Brand)
class BrandAdmin(ServiceAdmin):
    form = BrandForm
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

    def create(self, request, fields):
        return brand_services.brand_create(fields=fields)

    def update(self, request, obj, fields):
        return brand_services.brand_update(brand_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        brand_services.brand_delete(brand_id=obj.pk)


class TermInline(admin.TabularInline):
    model = AttributeTerm
    form = TermForm
    extra = 0
    prepopulated_fields = {"slug": ["name"]}
    fields = ["name", "slug", "value", "sort_order"]


@admin.register(Attribute)
class AttributeAdmin(ServiceAdmin):
    form = AttributeForm
    list_display = ["name", "slug", "type", "sort_order"]
    list_filter = ["type"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [TermInline]

    def create(self, request, fields):
        return attribute_services.attribute_create(fields=fields)

    def update(self, request, obj, fields):
        return attribute_services.attribute_update(attribute_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        attribute_services.attribute_delete(attribute_id=obj.pk)

    def save_formset(self, request, form, formset, change):
        attribute = form.instance
        _save_children(
            formset,
            delete=lambda term: attribute_services.term_delete(term_id=term.pk),
            create=lambda fields: attribute_services.term_create(
                attribute_id=attribute.pk, fields=fields
            ),
            update=lambda term, fields: attribute_services.term_update(
                term_id=term.pk, fields=fields
            ),
        )


@admin.register(AttributeTerm)
class AttributeTermAdmin(ServiceAdmin):
    form = TermForm
    list_display = ["name", "slug", "attribute", "value", "sort_order"]
    list_filter = ["attribute"]
    search_fields = ["name", "slug", "attribute__name"]
    list_select_related = ["attribute"]

    def get_readonly_fields(self, request, obj=None):
        return ["attribute"] if obj is not None else []  # a term stays with its attribute

    def create(self, request, fields):
        attribute_id = fields.pop("attribute_id")
        return attribute_services.term_create(attribute_id=attribute_id, fields=fields)

    def update(self, request, obj, fields):
        return attribute_services.term_update(term_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        attribute_services.term_delete(term_id=obj.pk)
