"""Admin for tax classes, rates and products' tax classes: adding, changing and deleting go
through store.tax.services (the API's checks), bulk enable/disable too. EU VAT rates are
loaded with `manage.py load_eu_vat_rates`."""

from __future__ import annotations

from django.contrib import admin, messages

from common.admin import ServiceAdmin, ServiceForm
from store.tax import selectors, services
from store.tax.models import ProductTaxClass, TaxClass, TaxRate


class TaxClassForm(ServiceForm):
    generated = ("slug",)

    class Meta:
        model = TaxClass
        fields = ["name", "slug", "sort_order"]

    def check(self, fields: dict) -> None:
        if fields.get("slug"):
            services.tax_class_check_slug(
                fields["slug"], instance=self.instance if self.instance.pk else None
            )


@admin.register(TaxClass)
class TaxClassAdmin(ServiceAdmin):
    form = TaxClassForm
    list_display = ["name", "slug", "rate_count", "product_count", "sort_order"]
    search_fields = ["name", "slug"]
    readonly_fields = ["created_at", "updated_at"]

    def get_changelist_instance(self, request):
        changelist = super().get_changelist_instance(request)
        self._usage = selectors.class_usage(obj.pk for obj in changelist.result_list)
        return changelist

    def _count(self, obj, key: str) -> int:
        usage = getattr(self, "_usage", {}).get(obj.pk)
        if usage is None:
            usage = selectors.class_usage([obj.pk])[obj.pk]
        return usage[key]

    @admin.display(description="Rates")
    def rate_count(self, obj):
        return self._count(obj, "rates")

    @admin.display(description="Products")
    def product_count(self, obj):
        return self._count(obj, "products")

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.slug in services.protected_class_slugs():
            return False  # standard: products without a class; the shipping tax class
        return super().has_delete_permission(request, obj)

    def create(self, request, fields):
        return services.tax_class_create(fields=fields)

    def update(self, request, obj, fields):
        return services.tax_class_update(ref=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.tax_class_delete(ref=obj.pk)


class TaxRateForm(ServiceForm):
    class Meta:
        model = TaxRate
        fields = [
            "tax_class",
            "country",
            "region",
            "postcodes",
            "rate",
            "name",
            "priority",
            "applies_to_shipping",
            "enabled",
        ]

    def check(self, fields: dict) -> None:
        services.tax_rate_check(fields=fields, rate=self.instance if self.instance.pk else None)

    def service_fields(self) -> dict:
        fields = super().service_fields()
        if fields.get("tax_class") is not None:
            fields["tax_class"] = fields["tax_class"].slug
        return fields


@admin.register(TaxRate)
class TaxRateAdmin(ServiceAdmin):
    form = TaxRateForm
    list_display = [
        "name",
        "tax_class",
        "country",
        "region",
        "postcodes",
        "rate",
        "priority",
        "applies_to_shipping",
        "enabled",
        "source",
    ]
    list_filter = ["tax_class", "enabled", "source", "applies_to_shipping", "country"]
    search_fields = ["name", "country", "region", "postcodes"]
    list_select_related = ["tax_class"]
    readonly_fields = ["source", "created_at", "updated_at"]
    actions = ["enable", "disable"]
    list_per_page = 100

    def create(self, request, fields):
        return services.tax_rate_create(fields=fields)

    def update(self, request, obj, fields):
        return services.tax_rate_update(rate_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.tax_rate_delete(rate_id=obj.pk)

    @admin.action(description="Enable")
    def enable(self, request, queryset):
        ids = queryset.values_list("pk", flat=True)
        count = services.tax_rates_set_enabled(ids=ids, enabled=True)
        self.message_user(request, f"{count} rate(s) enabled.")

    @admin.action(description="Disable")
    def disable(self, request, queryset):
        ids = queryset.values_list("pk", flat=True)
        count = services.tax_rates_set_enabled(ids=ids, enabled=False)
        self.message_user(request, f"{count} rate(s) disabled.", messages.WARNING)


@admin.register(ProductTaxClass)
class ProductTaxClassAdmin(admin.ModelAdmin):
    list_display = ["product", "tax_class"]
    list_filter = ["tax_class"]
    search_fields = ["product__title", "product__sku"]
    list_select_related = ["product", "tax_class"]
    raw_id_fields = ["product"]
